package dev.leap.runtime;

import java.util.List;
import java.util.Objects;

/**
 * What the output must match: a regular expression, one of a list of choices, JSON that fits a JSON
 * Schema, a context-free grammar (GBNF), free text with constrained tags in it ({@link
 * #structuralTag}), a constraint after free reasoning ({@link #afterReasoning}), or nothing.
 *
 * <p>A constraint is compiled once per runtime and cached by {@link #cacheKey()} (its kind and
 * source text, with every part of a composite constraint in it). Compilation happens off the step loop; a constraint that cannot compile gives its
 * request an error result, and the other requests go on.
 */
public final class Constraint {

  /** The kinds of constraint. */
  public enum Kind {
    /** No constraint: any token, EOS included. */
    NONE,
    /** A regular expression in Leap's dialect (see the compressed-fsm module). */
    REGEX,
    /** Exactly one of a list of strings. */
    CHOICE,
    /** JSON that fits a JSON Schema (see {@code dev.leap.fsm.json.JsonSchema}). */
    JSON_SCHEMA,
    /** Text of a GBNF grammar (see {@code docs/grammar.md}); without recursion it is one DFA, as a regex. */
    GRAMMAR,
    /**
     * Free text in which every trigger starts a tag whose content is constrained (tool calls; see
     * {@code docs/structural-tags.md}): one DFA ({@code dev.leap.fsm.tags.StructuralTags}).
     */
    STRUCTURAL_TAG,
    /** Free text up to an end marker ({@code </think>}), then a constraint: one DFA ({@code dev.leap.fsm.tags.ReasoningGate}). */
    AFTER_REASONING
  }

  /**
   * One kind of tag of a {@link #structuralTag} constraint.
   *
   * @param begin the text that opens the tag; it must start with one of the triggers (else an error
   *     result naming the tag)
   * @param content what goes between begin and end: a regex, choice, JSON Schema, grammar without
   *     recursion (a grammar with recursion is an error result for now), or another structural tag or
   *     reasoning constraint; not {@link #none()}
   * @param end the text that closes the tag (may be empty)
   */
  public record Tag(String begin, Constraint content, String end) {
    public Tag {
      Objects.requireNonNull(begin, "begin");
      Objects.requireNonNull(content, "content");
      Objects.requireNonNull(end, "end");
      if (content.kind() == Kind.NONE) {
        throw new IllegalArgumentException("the content of the tag that begins " + begin
            + " is Constraint.none(): a tag's content must be a regex, choice, JSON Schema or grammar");
      }
    }
  }

  private static final Constraint NONE = new Constraint(Kind.NONE, null, List.of(), null, -1, false);
  private static final Constraint JSON_OBJECT = grammar(dev.leap.fsm.grammar.Grammar.jsonObject().source());

  private final Kind kind;
  private final String regex;
  private final List<String> choices;
  private final String schema; // the JSON Schema, or the grammar text of a GRAMMAR constraint
  private final int indent;
  private final boolean lenient;
  private final List<String> triggers; // STRUCTURAL_TAG
  private final List<Tag> tags; // STRUCTURAL_TAG
  private final String endMarker; // AFTER_REASONING
  private final Constraint inner; // AFTER_REASONING

  private Constraint(Kind kind, String regex, List<String> choices, String schema, int indent, boolean lenient) {
    this(kind, regex, choices, schema, indent, lenient, List.of(), List.of(), null, null);
  }

  private Constraint(Kind kind, String regex, List<String> choices, String schema, int indent, boolean lenient,
      List<String> triggers, List<Tag> tags, String endMarker, Constraint inner) {
    this.kind = kind;
    this.regex = regex;
    this.choices = choices;
    this.schema = schema;
    this.indent = indent;
    this.lenient = lenient;
    this.triggers = triggers;
    this.tags = tags;
    this.endMarker = endMarker;
    this.inner = inner;
  }

  /**
   * Free text in which every occurrence of a trigger starts one of {@code tags} whose begin starts
   * with it: the tag's begin, its content, its end, then free text again; any number of tags, and the
   * text may end only outside a tag (vLLM's {@code structural_tag} and XGrammar's triggered tags; the
   * exact language is in {@code docs/structural-tags.md}). After a trigger, the rest of the begin and
   * the content's forced text are jumped. No trigger, no tag, an empty or repeated trigger, a begin
   * that starts with no trigger, or a content that does not compile is an error result naming the
   * trigger or the tag.
   */
  public static Constraint structuralTag(List<String> triggers, List<Tag> tags) {
    Objects.requireNonNull(triggers, "triggers");
    Objects.requireNonNull(tags, "tags");
    for (int i = 0; i < triggers.size(); i++) {
      Objects.requireNonNull(triggers.get(i), "trigger " + i);
    }
    for (int i = 0; i < tags.size(); i++) {
      Objects.requireNonNull(tags.get(i), "tag " + i);
    }
    return new Constraint(Kind.STRUCTURAL_TAG, null, List.of(), null, -1, false, List.copyOf(triggers),
        List.copyOf(tags), null, null);
  }

  /**
   * Free reasoning text up to the first {@code endMarker} (Qwen3's and DeepSeek-R1's {@code
   * </think>}), at most two newlines, then {@code inner}. The model writes its {@code <think>}
   * itself (or the prompt does): it is ordinary reasoning text. Where the vocabulary has the marker
   * as a token with text (Qwen3's {@code </think>}), the mask allows that token wherever the marker
   * may follow. Use it only when the model will reason: with a prompt that already closed the
   * reasoning (Qwen3's {@code enable_thinking: false}) use {@code inner} alone. See {@code
   * docs/structural-tags.md}.
   */
  public static Constraint afterReasoning(String endMarker, Constraint inner) {
    Objects.requireNonNull(endMarker, "endMarker");
    Objects.requireNonNull(inner, "inner");
    if (inner.kind() == Kind.NONE) {
      throw new IllegalArgumentException("afterReasoning(" + endMarker + ", Constraint.none()): the constraint after"
          + " the reasoning must be a regex, choice, JSON Schema, grammar or structural tag");
    }
    return new Constraint(Kind.AFTER_REASONING, null, List.of(), null, -1, false, List.of(), List.of(), endMarker, inner);
  }

  /** The triggers of a {@link Kind#STRUCTURAL_TAG} constraint, else empty. */
  public List<String> triggers() {
    return triggers;
  }

  /** The tags of a {@link Kind#STRUCTURAL_TAG} constraint, else empty. */
  public List<Tag> tags() {
    return tags;
  }

  /** The end marker of an {@link Kind#AFTER_REASONING} constraint, else null. */
  public String endMarker() {
    return endMarker;
  }

  /** The constraint after the reasoning of an {@link Kind#AFTER_REASONING} constraint, else null. */
  public Constraint inner() {
    return inner;
  }

  /** Compact JSON (no whitespace) that fits {@code schemaJson}. */
  public static Constraint jsonSchema(String schemaJson) {
    return jsonSchema(schemaJson, -1);
  }

  /**
   * JSON that fits {@code schemaJson}, laid out with {@code indent} spaces per level ({@code -1}:
   * compact). Unsupported keywords are an error result naming the keyword and its JSON pointer.
   */
  public static Constraint jsonSchema(String schemaJson, int indent) {
    return jsonSchema(schemaJson, indent, false);
  }

  /**
   * As {@link #jsonSchema(String, int)}; with {@code lenient}, keywords Leap cannot honour exactly
   * are ignored instead of failing the request (documented lenient mode: the runtime logs each
   * ignored keyword with its JSON pointer at WARN when it compiles the constraint, as it logs what
   * it narrowed).
   */
  public static Constraint jsonSchema(String schemaJson, int indent, boolean lenient) {
    Objects.requireNonNull(schemaJson, "schemaJson");
    String canonical;
    try {
      com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
      canonical = m.writeValueAsString(m.readTree(schemaJson));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("the JSON Schema is not valid JSON: " + e.getOriginalMessage());
    }
    return new Constraint(Kind.JSON_SCHEMA, null, List.of(), canonical, indent, lenient);
  }

  /** The schema of a {@link Kind#JSON_SCHEMA} constraint (canonical JSON text), else null. */
  public String schema() {
    return kind == Kind.JSON_SCHEMA ? schema : null;
  }

  /** Spaces per level of a JSON Schema constraint's layout, {@code -1} for compact. */
  public int indent() {
    return indent;
  }

  /** Whether a JSON Schema constraint ignores the keywords Leap cannot honour exactly. */
  public boolean lenient() {
    return lenient;
  }

  /** No constraint. */
  public static Constraint none() {
    return NONE;
  }

  /**
   * Text of the GBNF grammar {@code gbnf} (llama.cpp's and XGrammar's dialect, {@code root ::= ...};
   * see {@code docs/grammar.md}). A grammar that does not parse is an error result naming the line and
   * column.
   */
  public static Constraint grammar(String gbnf) {
    Objects.requireNonNull(gbnf, "gbnf");
    return new Constraint(Kind.GRAMMAR, null, List.of(), gbnf, -1, false);
  }

  /**
   * A JSON object whose values are any JSON, nested without bound (OpenAI's {@code response_format:
   * {"type": "json_object"}}): the built-in grammar, compact (no whitespace).
   */
  public static Constraint jsonObject() {
    return JSON_OBJECT;
  }

  /** The GBNF text of a {@link Kind#GRAMMAR} constraint, else null. */
  public String grammar() {
    return kind == Kind.GRAMMAR ? schema : null;
  }

  /** The whole output must match {@code regex} (full match, as {@code java.util.regex.Matcher#matches}). */
  public static Constraint regex(String regex) {
    Objects.requireNonNull(regex, "regex");
    return new Constraint(Kind.REGEX, regex, List.of(), null, -1, false);
  }

  /** The output must be exactly one of {@code choices} (at least one, none empty). */
  public static Constraint choice(String... choices) {
    return choice(List.of(choices));
  }

  /** The output must be exactly one of {@code choices} (at least one, none empty). */
  public static Constraint choice(List<String> choices) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("a choice constraint needs at least one choice");
    }
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < choices.size(); i++) {
      String c = choices.get(i);
      if (c == null || c.isEmpty()) {
        throw new IllegalArgumentException("choice " + i + " is empty");
      }
      if (i > 0) {
        re.append('|');
      }
      re.append(quote(c));
    }
    return new Constraint(Kind.CHOICE, re.toString(), List.copyOf(choices), null, -1, false);
  }

  public Kind kind() {
    return kind;
  }

  /** The regex this constraint compiles to; {@code null} for {@link Kind#NONE} and the kinds that are not one regex. */
  public String regex() {
    return regex;
  }

  /** The choices of a {@link Kind#CHOICE} constraint, else empty. */
  public List<String> choices() {
    return choices;
  }

  /** The key under which the compiled form is cached. */
  public String cacheKey() {
    return switch (kind) {
      case NONE -> "none";
      case JSON_SCHEMA -> "schema:" + indent + (lenient ? ":lenient:" : ":") + schema;
      case GRAMMAR -> "grammar:" + schema;
      case STRUCTURAL_TAG -> {
        // Every part length-prefixed: no two different constraints share a key.
        StringBuilder sb = new StringBuilder("tags:").append(triggers.size()).append(':');
        triggers.forEach(t -> part(sb, t));
        sb.append(tags.size()).append(':');
        for (Tag t : tags) {
          part(sb, t.begin());
          part(sb, t.content().cacheKey());
          part(sb, t.end());
        }
        yield sb.toString();
      }
      case AFTER_REASONING -> part(new StringBuilder("reasoning:"), endMarker).append(inner.cacheKey()).toString();
      default -> "regex:" + regex;
    };
  }

  private static StringBuilder part(StringBuilder sb, String text) {
    return sb.append(text.length()).append(':').append(text);
  }

  /** {@code text} as a regex that matches exactly it, in Leap's dialect. */
  public static String quote(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 8);
    text.codePoints().forEach(cp -> {
      if ("\\.^$|?*+()[]{}".indexOf(cp) >= 0) {
        sb.append('\\').appendCodePoint(cp);
      } else if (cp == '\n') {
        sb.append("\\n");
      } else if (cp == '\t') {
        sb.append("\\t");
      } else if (cp < 0x20 || cp == 0x7F) {
        sb.append(String.format("\\x%02X", cp));
      } else {
        sb.appendCodePoint(cp);
      }
    });
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Constraint c && c.cacheKey().equals(cacheKey());
  }

  @Override
  public int hashCode() {
    return cacheKey().hashCode();
  }

  @Override
  public String toString() {
    return switch (kind) {
      case NONE -> "Constraint.none()";
      case JSON_SCHEMA -> "Constraint.jsonSchema(" + schema + (lenient ? ", lenient)" : ")");
      case GRAMMAR -> "Constraint.grammar(" + (schema.length() > 200 ? schema.substring(0, 200) + "..." : schema) + ")";
      case STRUCTURAL_TAG -> "Constraint.structuralTag(" + triggers + ", " + tags + ")";
      case AFTER_REASONING -> "Constraint.afterReasoning(" + endMarker + ", " + inner + ")";
      default -> "Constraint." + kind.name().toLowerCase(java.util.Locale.ROOT) + "(" + regex + ")";
    };
  }
}
