package dev.leap.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.runtime.internal.Json;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What the output must match: a regular expression, one of a list of choices, JSON that fits a JSON
 * Schema, a context-free grammar (GBNF), free text with constrained tags in it ({@link
 * #structuralTag}), a constraint after free reasoning ({@link #afterReasoning}), or nothing.
 *
 * <p>Each kind is a record holding exactly its own parts, checked (and a schema normalized) by its
 * constructor; the static factories here are the short way to make them. A constraint is compiled
 * once per runtime and cached by {@link #cacheKey()} (its kind and source text, with every part of
 * a composite constraint in it). Compilation happens off the step loop; a constraint that cannot
 * compile gives its request an error result, and the other requests go on.
 */
public sealed interface Constraint {

  /** The kinds of constraint, one per record. */
  enum Kind {
    /** No constraint: any token, EOS included. */
    NONE,
    /** A regular expression in Leap's dialect (see the compressed-fsm module). */
    REGEX,
    /** Exactly one of a list of strings. */
    CHOICE,
    /** JSON that fits a JSON Schema (see {@code dev.leap.fsm.json.JsonSchema}). */
    JSON_SCHEMA,
    /**
     * Text of a GBNF grammar (see {@code docs/grammar.md}); without recursion it is one DFA, as a
     * regex.
     */
    GRAMMAR,
    /**
     * Free text in which every trigger starts a tag whose content is constrained (tool calls; see
     * {@code docs/structural-tags.md}): one DFA ({@code dev.leap.fsm.tags.StructuralTags}).
     */
    STRUCTURAL_TAG,
    /**
     * Free text up to an end marker ({@code </think>}), then a constraint: one DFA ({@code
     * dev.leap.fsm.tags.ReasoningGate}).
     */
    AFTER_REASONING
  }

  /** The kind of this constraint. */
  Kind kind();

  /** The key under which the compiled form is cached: equal keys compile to the same automaton. */
  String cacheKey();

  /** No constraint: {@link #none()}. */
  record None() implements Constraint {
    @Override
    public Kind kind() {
      return Kind.NONE;
    }

    @Override
    public String cacheKey() {
      return "none";
    }

    @Override
    public String toString() {
      return "Constraint.none()";
    }
  }

  /** The whole output matches {@code regex}: {@link #regex(String)}. */
  record Regex(String regex) implements Constraint {
    public Regex {
      Objects.requireNonNull(regex, "regex");
    }

    @Override
    public Kind kind() {
      return Kind.REGEX;
    }

    @Override
    public String cacheKey() {
      return "regex:" + regex;
    }

    @Override
    public String toString() {
      return "Constraint.regex(" + regex + ")";
    }
  }

  /**
   * The output is exactly one of {@code choices} (at least one, none empty): {@link #choice(List)}.
   * It compiles (and is cached) as {@link #regex()}.
   */
  record Choice(List<String> choices) implements Constraint {
    public Choice {
      if (choices.isEmpty()) {
        throw new IllegalArgumentException("a choice constraint needs at least one choice");
      }
      for (int i = 0; i < choices.size(); i++) {
        String c = choices.get(i);
        if (c == null || c.isEmpty()) {
          throw new IllegalArgumentException("choice " + i + " is empty");
        }
      }
      choices = List.copyOf(choices);
    }

    /** The alternation of the choices, each quoted ({@link Constraint#quote}). */
    public String regex() {
      StringBuilder re = new StringBuilder();
      for (String c : choices) {
        if (re.length() > 0) {
          re.append('|');
        }
        re.append(quote(c));
      }
      return re.toString();
    }

    @Override
    public Kind kind() {
      return Kind.CHOICE;
    }

    @Override
    public String cacheKey() {
      return "regex:" + regex();
    }

    @Override
    public String toString() {
      return "Constraint.choice(" + regex() + ")";
    }
  }

  /**
   * JSON that fits {@code schema}, laid out with {@code indent} spaces per level ({@code -1}:
   * compact), ignoring what Leap cannot honour exactly when {@code lenient}: {@link
   * #jsonSchema(String, int, boolean)}. The schema is kept as canonical JSON text (Jackson's
   * compact form), so equal schemas share a cache key however they were written.
   */
  record JsonSchema(String schema, int indent, boolean lenient) implements Constraint {
    public JsonSchema {
      Objects.requireNonNull(schema, "schemaJson");
      try {
        schema = Json.MAPPER.writeValueAsString(Json.MAPPER.readTree(schema));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            "the JSON Schema is not valid JSON: " + e.getOriginalMessage());
      }
    }

    @Override
    public Kind kind() {
      return Kind.JSON_SCHEMA;
    }

    @Override
    public String cacheKey() {
      return "schema:" + indent + (lenient ? ":lenient:" : ":") + schema;
    }

    @Override
    public String toString() {
      return "Constraint.jsonSchema(" + schema + (lenient ? ", lenient)" : ")");
    }
  }

  /**
   * Text of a GBNF grammar: {@link #grammar(String)} (compiled to a {@code
   * dev.leap.fsm.grammar.Grammar}).
   */
  record Gbnf(String text) implements Constraint {
    public Gbnf {
      Objects.requireNonNull(text, "gbnf");
    }

    @Override
    public Kind kind() {
      return Kind.GRAMMAR;
    }

    @Override
    public String cacheKey() {
      return "grammar:" + text;
    }

    @Override
    public String toString() {
      return "Constraint.grammar("
          + (text.length() > 200 ? text.substring(0, 200) + "..." : text)
          + ")";
    }
  }

  /** Free text in which every trigger starts a tag: {@link #structuralTag(List, List)}. */
  record StructuralTag(List<String> triggers, List<Tag> tags) implements Constraint {
    public StructuralTag {
      Objects.requireNonNull(triggers, "triggers");
      Objects.requireNonNull(tags, "tags");
      for (int i = 0; i < triggers.size(); i++) {
        Objects.requireNonNull(triggers.get(i), "trigger " + i);
      }
      for (int i = 0; i < tags.size(); i++) {
        Objects.requireNonNull(tags.get(i), "tag " + i);
      }
      triggers = List.copyOf(triggers);
      tags = List.copyOf(tags);
    }

    @Override
    public Kind kind() {
      return Kind.STRUCTURAL_TAG;
    }

    @Override
    public String cacheKey() {
      // Every part length-prefixed: no two different constraints share a key.
      StringBuilder sb = new StringBuilder("tags:").append(triggers.size()).append(':');
      triggers.forEach(t -> part(sb, t));
      sb.append(tags.size()).append(':');
      for (Tag t : tags) {
        part(sb, t.begin());
        part(sb, t.content().cacheKey());
        part(sb, t.end());
      }
      return sb.toString();
    }

    @Override
    public String toString() {
      return "Constraint.structuralTag(" + triggers + ", " + tags + ")";
    }
  }

  /** Free reasoning up to {@code endMarker}, then {@code inner}: {@link #afterReasoning}. */
  record AfterReasoning(String endMarker, Constraint inner) implements Constraint {
    public AfterReasoning {
      Objects.requireNonNull(endMarker, "endMarker");
      Objects.requireNonNull(inner, "inner");
      if (inner.kind() == Kind.NONE) {
        throw new IllegalArgumentException(
            "afterReasoning("
                + endMarker
                + ", Constraint.none()): the constraint after"
                + " the reasoning must be a regex, choice, JSON Schema, grammar or structural tag");
      }
    }

    @Override
    public Kind kind() {
      return Kind.AFTER_REASONING;
    }

    @Override
    public String cacheKey() {
      return part(new StringBuilder("reasoning:"), endMarker).append(inner.cacheKey()).toString();
    }

    @Override
    public String toString() {
      return "Constraint.afterReasoning(" + endMarker + ", " + inner + ")";
    }
  }

  /**
   * One kind of tag of a {@link #structuralTag} constraint.
   *
   * @param begin the text that opens the tag; it must start with one of the triggers (else an error
   *     result naming the tag)
   * @param content what goes between begin and end: a regex, choice, JSON Schema, grammar without
   *     recursion (a grammar with recursion is an error result for now), or another structural tag
   *     or reasoning constraint; not {@link #none()}
   * @param end the text that closes the tag (may be empty)
   */
  record Tag(String begin, Constraint content, String end) {
    public Tag {
      Objects.requireNonNull(begin, "begin");
      Objects.requireNonNull(content, "content");
      Objects.requireNonNull(end, "end");
      if (content.kind() == Kind.NONE) {
        throw new IllegalArgumentException(
            "the content of the tag that begins "
                + begin
                + " is Constraint.none(): a tag's content must be a regex, choice, JSON Schema or grammar");
      }
    }
  }

  /** No constraint. */
  static None none() {
    return new None();
  }

  /**
   * The whole output must match {@code regex} (full match, as {@code
   * java.util.regex.Matcher#matches}).
   */
  static Regex regex(String regex) {
    return new Regex(regex);
  }

  /** The output must be exactly one of {@code choices} (at least one, none empty). */
  static Choice choice(String... choices) {
    return choice(List.of(choices));
  }

  /** The output must be exactly one of {@code choices} (at least one, none empty). */
  static Choice choice(List<String> choices) {
    return new Choice(choices);
  }

  /** Compact JSON (no whitespace) that fits {@code schemaJson}. */
  static JsonSchema jsonSchema(String schemaJson) {
    return jsonSchema(schemaJson, -1);
  }

  /**
   * JSON that fits {@code schemaJson}, laid out with {@code indent} spaces per level ({@code -1}:
   * compact). Unsupported keywords are an error result naming the keyword and its JSON pointer.
   */
  static JsonSchema jsonSchema(String schemaJson, int indent) {
    return jsonSchema(schemaJson, indent, false);
  }

  /**
   * As {@link #jsonSchema(String, int)}; with {@code lenient}, keywords Leap cannot honour exactly
   * are ignored instead of failing the request (documented lenient mode: the runtime logs each
   * ignored keyword with its JSON pointer at WARN when it compiles the constraint, as it logs what
   * it narrowed).
   */
  static JsonSchema jsonSchema(String schemaJson, int indent, boolean lenient) {
    return new JsonSchema(schemaJson, indent, lenient);
  }

  /**
   * Text of the GBNF grammar {@code gbnf} (llama.cpp's and XGrammar's dialect, {@code root ::=
   * ...}; see {@code docs/grammar.md}). A grammar that does not parse is an error result naming the
   * line and column.
   */
  static Gbnf grammar(String gbnf) {
    return new Gbnf(gbnf);
  }

  /**
   * A JSON object whose values are any JSON, nested without bound (OpenAI's {@code response_format:
   * {"type": "json_object"}}): the built-in grammar, compact (no whitespace).
   */
  static Gbnf jsonObject() {
    return new Gbnf(Grammar.jsonObject().source());
  }

  /**
   * Free text in which every occurrence of a trigger starts one of {@code tags} whose begin starts
   * with it: the tag's begin, its content, its end, then free text again; any number of tags, and
   * the text may end only outside a tag (vLLM's {@code structural_tag} and XGrammar's triggered
   * tags; the exact language is in {@code docs/structural-tags.md}). After a trigger, the rest of
   * the begin and the content's forced text are jumped. No trigger, no tag, an empty or repeated
   * trigger, a begin that starts with no trigger, or a content that does not compile is an error
   * result naming the trigger or the tag.
   */
  static StructuralTag structuralTag(List<String> triggers, List<Tag> tags) {
    return new StructuralTag(triggers, tags);
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
  static AfterReasoning afterReasoning(String endMarker, Constraint inner) {
    return new AfterReasoning(endMarker, inner);
  }

  /** {@code text} as a regex that matches exactly it, in Leap's dialect. */
  static String quote(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 8);
    text.codePoints()
        .forEach(
            cp -> {
              if ("\\.^$|?*+()[]{}".indexOf(cp) >= 0) {
                sb.append('\\').appendCodePoint(cp);
              } else if (cp == '\n') {
                sb.append("\\n");
              } else if (cp == '\t') {
                sb.append("\\t");
              } else if (cp < 0x20 || cp == 0x7F) {
                sb.append(String.format(Locale.ROOT, "\\x%02X", cp));
              } else {
                sb.appendCodePoint(cp);
              }
            });
    return sb.toString();
  }

  private static StringBuilder part(StringBuilder sb, String text) {
    return sb.append(text.length()).append(':').append(text);
  }
}
