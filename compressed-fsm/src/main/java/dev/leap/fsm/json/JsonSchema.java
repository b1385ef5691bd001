package dev.leap.fsm.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.internal.Json;
import dev.leap.fsm.internal.Re;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * JSON Schema to a byte-level automaton: the schema becomes a regex syntax tree ({@link Re}), then
 * the regex pipeline of {@link CompressedFsm} (DFA, minimization, jump edges).
 *
 * <p>The invariant: every text the automaton accepts is valid against the schema (the generated
 * language is a subset of the valid instances, never a superset). Where the full set of valid
 * instances is not regular or would cost too many states, Leap generates a documented part of it.
 *
 * <p>What the generated text looks like: compact JSON by default (no whitespace), or a fixed indent
 * ({@link JsonSchemaOptions#indent}): a newline and the indent before every member and element,
 * {@code ": "} between key and value. Never unbounded whitespace. Object members appear in the
 * order of {@code properties}; optional ones may be absent; then members that {@code required} or a
 * presence keyword names but {@code properties} does not list; then, where the schema asks for them
 * ({@code patternProperties}, an explicit {@code additionalProperties} of {@code true} or a schema,
 * or no {@code properties} at all), further members with keys not listed, in their canonical JSON
 * spelling. Beside {@code properties}, an absent {@code additionalProperties} generates no further
 * members (as if it were {@code false}: the outputs stay valid). Values of any type nest up to
 * {@link #ANY_DEPTH} levels. Numbers and integers are written in JSON's syntax; bounded numbers and
 * multiples as plain decimals (no exponent). Strings use JSON escapes; {@code minLength}/{@code
 * maxLength} count code points (an escape is one character); a {@code maxLength} above {@link
 * JsonSchemaOptions#maxStringLength} generates at most that many. {@code pattern} is searched, not
 * anchored, unless it starts with {@code ^} / ends with {@code $}; characters it allows that JSON
 * must escape are written with their canonical escape.
 *
 * <p>Exact constructions: length, {@code format} and {@code pattern} of a string are intersected
 * ({@link Re.Automaton}); {@code required}, {@code dependencies}/{@code dependentRequired}, {@code
 * dependentSchemas} and {@code anyOf}/{@code oneOf}/{@code allOf}/{@code not} whose branches only
 * name required members, and {@code minProperties}/{@code maxProperties}, become a {@link Presence}
 * formula written out member by member; {@code patternProperties} merge into the listed members
 * they match; numeric bounds compare the integer part, then the fraction digits ({@link Numbers});
 * {@code multipleOf} a power of ten or a whole number; {@code oneOf} of other schemas only when its
 * branches are provably disjoint; {@code allOf} when it merges simply; {@code not} of types; local
 * {@code $ref} (recursion unrolled {@link JsonSchemaOptions#maxRecursion} times, or, where that
 * exceeds the state limit, grammar rules: see {@link #compileDetailed}); every {@code format} of
 * the specification ({@link Formats}; others are annotations). Annotations and unknown keywords are
 * ignored (they assert nothing). Everything else is a {@link JsonSchemaException} naming the
 * keyword and its JSON pointer, unless the options are lenient: then it is ignored and listed in
 * {@link Result#ignored()}.
 */
public final class JsonSchema {
  private JsonSchema() {}

  /** Nesting depth of values allowed where the schema allows any JSON value. */
  public static final int ANY_DEPTH = Converter.ANY_DEPTH;

  /**
   * The conversion result: the regex tree and what lenient mode ignored (package-private: {@link
   * Re} is internal).
   */
  record Result(Re tree, List<String> ignored) {}

  /**
   * A compiled schema: a compressed FSM (a DFA), or, where recursion became grammar rules, a {@link
   * Grammar} (exactly one of the two).
   *
   * @param fsm the constraint as a DFA, or null when it is a grammar (then {@link #fsm()} throws)
   * @param grammar the constraint as a grammar (recursive {@code $ref}s and free-form values as
   *     rules, see {@link #compileDetailed}), or empty when it is a DFA; compile it against a
   *     vocabulary with {@link dev.leap.fsm.grammar.CompiledGrammar#compile} and drive each request
   *     with a {@link dev.leap.fsm.grammar.GrammarMatcher}; {@link Grammar#describe()} lists its
   *     rules (for {@code leap explain})
   * @param ignored what lenient mode ignored ({@code #/pointer/keyword: why})
   * @param narrowed where Leap generates less than it would within larger limits (still only valid
   *     values), e.g. no members beyond {@code properties}
   */
  public record Compiled(
      CompressedFsm fsm, Optional<Grammar> grammar, List<String> ignored, List<String> narrowed) {
    public Compiled {
      if ((fsm == null) == grammar.isEmpty()) {
        throw new IllegalArgumentException("a compiled schema is a DFA or a grammar, exactly one");
      }
      ignored = List.copyOf(ignored);
      narrowed = List.copyOf(narrowed);
    }

    /**
     * The constraint as a DFA.
     *
     * @throws ConstraintException the schema compiled to a grammar ({@link #grammar()}), not a DFA
     */
    public CompressedFsm fsm() {
      if (fsm == null) {
        throw new ConstraintException(
            "the JSON Schema needs a grammar (its recursion does not fit one DFA of at most "
                + "maxDfaStates states, so recursive $refs and free-form values are grammar rules: "
                + String.join(", ", grammar.get().compiledRules())
                + "); use JsonSchema.Compiled.grammar()");
      }
      return fsm;
    }
  }

  /**
   * Compiles {@code schemaJson} to a compressed FSM.
   *
   * @throws ConstraintException also when the schema needs a grammar (see {@link #compileDetailed})
   */
  public static CompressedFsm compile(String schemaJson, JsonSchemaOptions options) {
    return compileDetailed(schemaJson, options).fsm();
  }

  /**
   * Compiles {@code schemaJson}, saying what was ignored and narrowed. Members beyond {@code
   * properties} (which explicit {@code additionalProperties} and {@code patternProperties} ask for)
   * cost the most states: if the automaton exceeds a limit with them, it is compiled again without
   * them, and that is reported in {@link Compiled#narrowed()}.
   *
   * <p>DFA or grammar: the schema is compiled to one DFA, recursion unrolled {@link
   * JsonSchemaOptions#maxRecursion} times and free-form values nested {@link #ANY_DEPTH} levels,
   * whenever that fits {@link JsonSchemaOptions#maxDfaStates}: then the result is exactly what it
   * was before grammars existed (masks precomputed per state, no stack). Two exceptions, both for
   * the compact layout only. A schema with a {@code $ref} named from two or more places whose
   * automaton passes {@link #RULES_ABOVE_STATES} states (or with {@link #LEAN_MAX_RECURSIVE_SITES}
   * recursive reference sites, whose automaton passes the limit: no DFA is tried) is compiled as
   * rules with every such reference, every recursive one and every free-form value a grammar rule
   * (the same values but free-form ones, which nest without bound, compiled in a fraction of the
   * time; if that fails, on as below). And when the automaton exceeds the limit and the schema has
   * a recursive {@code $ref}, it is compiled again with every recursive {@code $ref} and every
   * free-form value as a grammar rule ({@link Compiled#grammar()}: exact recursion, values nested
   * without bound; see {@code RecursiveRules}). If that fails too (a rule exceeds the limit, never
   * finishes, or recursion is left-recursive), the narrowing above is tried, else the first error
   * stands.
   *
   * @throws JsonSchemaException a keyword Leap cannot honour (strict mode), with its JSON pointer
   * @throws AutomatonTooLargeException the automaton exceeds a limit even so
   * @throws dev.leap.fsm.EmptyLanguageException no value is valid (as far as Leap generates them)
   */
  public static Compiled compileDetailed(String schemaJson, JsonSchemaOptions options) {
    return compileDetailed(parse(schemaJson), options, true, RULES_ABOVE_STATES);
  }

  /**
   * As {@link #compileDetailed(String, JsonSchemaOptions)}. With {@code lean}, the schema is first
   * converted with thin values left as trees ({@link Converter#lean}: fewer automata determinized
   * and minimized again), every distinct tree compiled once ({@link AutomatonCache}); where that
   * reaches a limit, it is converted again without lean trees (through the same cache), which
   * decides as before. Without {@code lean}: the conversion as it was, no cache (the twin that
   * tests compare against). Neither applies {@link #RULES_ABOVE_STATES}: the public form's choice
   * of rules for a large automaton has its own twin test, against this DFA.
   */
  static Compiled compileDetailed(JsonNode root, JsonSchemaOptions options, boolean lean) {
    return compileDetailed(root, options, lean, 0);
  }

  /**
   * As {@link #compileDetailed(JsonNode, JsonSchemaOptions, boolean)}, and with {@code rulesAbove}
   * above 0 (only with {@code lean}), a compact schema with a shared reference whose automaton
   * passes {@code rulesAbove} states compiles as rules ({@link #RULES_ABOVE_STATES}; tests use
   * smaller ones).
   */
  static Compiled compileDetailed(
      JsonNode root, JsonSchemaOptions options, boolean lean, int rulesAbove) {
    if (!lean) {
      return exact(root, options, AutomatonCache.off());
    }
    AutomatonCache cache = new AutomatonCache();
    Converter c = Converter.lean(root, options, cache);
    boolean skipsLean = skipsLean(c, root, options);
    if (rulesAbove > 0
        && options.indent() < 0
        && options.maxDfaStates() > rulesAbove
        && c.references.anyShared()) {
      // The DFA up to the size (none tried with many recursive sites: it passes the limit), else
      // shared references as rules, else on as below.
      try {
        if (!skipsLean) {
          return dfa(Converter.lean(root, options.withMaxDfaStates(rulesAbove), cache));
        }
      } catch (AutomatonTooLargeException | Converter.LeanOverflow e) {
        // on to the rules
      }
      Compiled rules = sharedRules(root, options, cache);
      if (rules != null) {
        return rules;
      }
    }
    if (skipsLean) {
      return exact(root, options, cache);
    }
    try {
      return dfa(c);
    } catch (AutomatonTooLargeException | Converter.LeanOverflow e) {
      return exact(root, options, cache);
    }
  }

  /** The document's DFA by converter {@code c}, or the limit it reached. */
  private static Compiled dfa(Converter c) {
    Re tree = c.convert();
    return new Compiled(
        CompressedFsm.of(c.compileDocument(tree), "JSON Schema"),
        Optional.empty(),
        c.ignored,
        c.narrowed);
  }

  /**
   * A compact schema with a reference named from two or more places whose automaton passes this
   * many states (while its subsets are built) is compiled as grammar rules, every such reference a
   * rule ({@link #compileDetailed(String, JsonSchemaOptions)}). XGrammar compiles every schema so;
   * Leap keeps the DFA (masks per state, no stack) below it. GitHub Hard's {@code o69208}: a DFA of
   * 35,966 states in 180-230 ms in a warm loop, as rules in 38-73 ms (22-37 of them the rules, the
   * rest the DFA attempt that stops at this size); {@code o83850} (13,144 states before
   * minimization) compiles about as fast either way and stays a DFA; {@code o21388} (a recursive
   * one with {@link #LEAN_MAX_RECURSIVE_SITES} sites or more) 130-250 → 37-51 ms without the DFA
   * attempt that passed the limit.
   */
  static final int RULES_ABOVE_STATES = 16_384;

  /**
   * The schema as rules with every shared and recursive reference and every free-form value a rule
   * ({@link Converter#withSharedRules}), or null if that fails (a rule too large, never finishing,
   * left recursion).
   */
  private static Compiled sharedRules(
      JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    try {
      return rules(Converter.withSharedRules(root, options, cache), false);
    } catch (ConstraintException e) {
      return null;
    }
  }

  /**
   * A compact schema with at least this many recursive reference sites ({@link
   * References#recursiveReferenceSites}) is converted exactly at once, without a lean attempt
   * first.
   */
  static final int LEAN_MAX_RECURSIVE_SITES = 18;

  /**
   * Whether the lean conversion is left out for {@code root}: a compact schema with {@link
   * #LEAN_MAX_RECURSIVE_SITES} recursive reference sites or more. Unrolled recursion copies a level
   * at each site, so the automaton grows with their number; on JSONSchemaBench most such schemas
   * pass the state limit both ways (Github_hard {@code o21388} and its family of about a hundred,
   * the WashingtonPost ones with 18 to 26 sites: the lean attempt reaches the limit, then the exact
   * one, then grammar rules), where the lean attempt only adds its cost; the threshold was chosen
   * on the corpus's 304 recursive schemas (BENCHMARKS.md, issue 27). A rule of thumb about speed
   * only: the exact conversion always decides (a lean one that succeeds gives the same result), so
   * the result is the same either way.
   */
  static boolean skipsLean(Converter lean, JsonNode root, JsonSchemaOptions options) {
    return options.indent() < 0
        && lean.references.recursiveReferenceSites(root) >= LEAN_MAX_RECURSIVE_SITES;
  }

  /**
   * The conversion without lean trees: one DFA, else rules, else narrowed (see {@link
   * #compileDetailed(String, JsonSchemaOptions)}); {@code cache} holds what a lean conversion of
   * the same document compiled.
   */
  private static Compiled exact(JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    Converter c = Converter.forDfa(root, options, cache);
    try {
      return dfa(c);
    } catch (AutomatonTooLargeException e) {
      Compiled rules = asRules(root, options, cache);
      if (rules != null) {
        return rules;
      }
      if (!c.extraMembers.besideProperties()) {
        throw e;
      }
      Converter narrow = Converter.withoutExtraMembers(root, options, cache);
      CompressedFsm fsm;
      try {
        fsm = CompressedFsm.of(narrow.compileDocument(narrow.convert()), "JSON Schema");
      } catch (AutomatonTooLargeException again) {
        throw e;
      }
      List<String> notes = new ArrayList<>(narrow.narrowed);
      notes.add(
          "members beyond properties (explicit additionalProperties, patternProperties) are not generated: with"
              + " them "
              + e.getMessage());
      return new Compiled(fsm, Optional.empty(), narrow.ignored, notes);
    }
  }

  /**
   * The schema with recursion and free-form values as grammar rules, or null where that does not
   * apply (indented layout; no recursive reference: the limit is then met by narrowing, as before
   * grammars existed) or fails (a rule too large, never finishing, left recursion).
   */
  private static Compiled asRules(JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    try {
      return rulesOrNull(root, options, true, cache);
    } catch (ConstraintException e) {
      return null;
    }
  }

  /**
   * As {@link #asRules}, but a failure of the rules is thrown; with {@code recursionOnly}, null
   * also for a schema whose only rule would be the free-form value (no recursive reference).
   */
  private static Compiled rulesOrNull(
      JsonNode root, JsonSchemaOptions options, boolean recursionOnly, AutomatonCache cache) {
    if (options.indent() >= 0) {
      return null;
    }
    return rules(Converter.withRules(root, options, cache), recursionOnly);
  }

  /**
   * The grammar of rules converter {@code r}, or null if it called no rule (with {@code
   * recursionOnly}, none but the free-form value's); a failure of the rules is thrown.
   */
  private static Compiled rules(Converter r, boolean recursionOnly) {
    r.rules.convert();
    if (!r.rules.any() || (recursionOnly && !r.rules.recursion())) {
      return null;
    }
    return new Compiled(null, Optional.of(r.rules.compile("JSON Schema")), r.ignored, r.narrowed);
  }

  /**
   * Tests and measurements: {@code schemaJson} with recursion and free-form values as rules
   * whenever it has any and the layout is compact, without trying the DFA first (its errors
   * thrown); else as {@link #compileDetailed}.
   */
  static Compiled compileAsRules(String schemaJson, JsonSchemaOptions options) {
    Compiled c = rulesOrNull(parse(schemaJson), options, false, new AutomatonCache());
    return c != null ? c : compileDetailed(schemaJson, options);
  }

  /**
   * The regex text for {@code schemaJson} (in Leap's dialect).
   *
   * @throws ConstraintException if the text would exceed {@link JsonSchemaOptions#maxRegexLength()}
   *     (shared sub-schemas are written out once per use)
   */
  public static String toRegex(String schemaJson, JsonSchemaOptions options) {
    return ReText.print(convert(schemaJson, options, false).tree(), options.maxRegexLength());
  }

  /**
   * The regex tree for {@code schemaJson}; large parts are embedded as minimal automata (tests).
   */
  static Result convert(String schemaJson, JsonSchemaOptions options) {
    return convert(schemaJson, options, true);
  }

  /**
   * @param automata whether large values are compiled to minimal automata as they are converted
   *     (faster to compile, but such a tree has no regex text)
   */
  private static Result convert(String schemaJson, JsonSchemaOptions options, boolean automata) {
    JsonNode root = parse(schemaJson);
    Converter c = automata ? Converter.forDfa(root, options) : Converter.printable(root, options);
    Re tree = c.convert();
    return new Result(tree, List.copyOf(c.ignored));
  }

  private static JsonNode parse(String schemaJson) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(schemaJson);
    } catch (JsonProcessingException e) {
      throw new ConstraintException("the JSON Schema is not valid JSON: " + e.getOriginalMessage());
    }
    if (root == null) {
      throw new ConstraintException("the JSON Schema is empty");
    }
    return root;
  }
}
