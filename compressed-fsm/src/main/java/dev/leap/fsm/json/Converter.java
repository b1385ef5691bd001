package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.Trees;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One conversion of a schema document to a regex tree: the dispatch from a schema to the converter
 * of each kind of value, and the state they share (options, what was ignored and narrowed, the memo
 * of converted schemas, the {@code $ref} expansion depths in {@link References}).
 *
 * <p>{@link #value} is the entry for every sub-schema: it returns the language of the values the
 * schema allows at a nesting level, memoized by schema node and {@link #memoKey}; the result is
 * always a subset of the valid values (see {@link JsonSchema}). A converter is used for one
 * conversion, by one thread.
 */
final class Converter {
  /** Nesting depth of values allowed where the schema allows any JSON value. */
  static final int ANY_DEPTH = 2;

  /**
   * Values whose tree is larger than this (in {@link Trees#size} nodes) are compiled to their
   * minimal DFA at once and embedded as a {@link Re.Automaton}: minimizing bottom-up keeps every
   * enclosing subset construction close to minimal size (a tree built from unminimized parts
   * carries their redundancy into every copy, and a recursive schema copies them many times).
   */
  static final long MINIMIZE_ABOVE = 256;

  final JsonNode root;
  final JsonSchemaOptions options;
  final JsonLayout layout;

  /** What lenient mode ignored ({@code #/pointer/keyword: why}). */
  final List<String> ignored = new ArrayList<>();

  /** Where Leap generates less than the schema allows beyond its documented rules, and why. */
  final List<String> narrowed = new ArrayList<>();

  /** Whether large values become embedded minimal automata ({@link #MINIMIZE_ABOVE}). */
  final boolean automata;

  /**
   * Whether a value is embedded as an automaton only when its own tree passes {@link
   * #MINIMIZE_ABOVE} nodes, an embedded automaton counted as one node ({@link Trees#ownSize}),
   * rather than when its whole size does: a thin value around a large automaton (an object with one
   * large member, an optional or nullable wrapper) is then left as a tree for the enclosing value's
   * automaton, instead of being determinized and minimized again at every level of nesting. The
   * language is the same; the sizes that limits are checked against are not, so a lean conversion
   * stops with {@link LeanOverflow} or an {@link AutomatonTooLargeException} where one of its
   * limits is reached or where a thin value is large enough that compiling it alone might reach the
   * state limit ({@link #LEAN_SIZE_MARGIN}), and {@link JsonSchema#compileDetailed} converts again
   * without it. This keeps every result on the corpora as it was (the twin test, and a comparison
   * over all of JSONSchemaBench in BENCHMARKS.md); it is a rule of thumb about state counts, not a
   * proof.
   */
  final boolean lean;

  /**
   * A lean conversion gives up on a thin value whose size ({@link Trees#size}: its automata's
   * states and its own nodes) passes this fraction of the state limit: the exact conversion
   * compiles that value, and its subset construction, about that size for JSON's deterministic
   * glue, could reach the limit where the lean conversion, which never compiles it alone, would not
   * (a value converted but then unused, as the items of an array with {@code maxItems} 0).
   */
  static final int LEAN_SIZE_MARGIN = 2;

  /** Compiles values' trees, each distinct tree once ({@link AutomatonCache}). */
  final AutomatonCache cache;

  final References references;
  final SchemaMerge merge;
  final StringValues strings;
  final NumberValues numbers;
  final ArrayValues arrays;
  final ObjectValues objects;
  final ExtraMembers extraMembers;
  final Dependencies dependencies;
  final Alternatives alternatives;
  final AnyValues any;

  /**
   * Recursion and free-form values as grammar rules, or null: unrolled and nested {@link
   * #ANY_DEPTH} levels.
   */
  final RecursiveRules rules;

  /**
   * Whether, with {@link #rules}, a reference named from two or more places is a rule too (not only
   * a recursive one): {@link JsonSchema#compileDetailed}'s rules for a large automaton.
   */
  final boolean sharedRules;

  /**
   * Results of {@link #value} by schema node (identity) and {@link #memoKey}: a definition used in
   * many places, or reached again through recursion at the same unrolling depth, is converted once,
   * and the one result is shared in the tree (the NFA builds shared nodes once).
   */
  private final Map<JsonNode, Map<String, Re>> memo = new IdentityHashMap<>();

  /** The automata this converter embedded that {@link Automata} minimized (by identity). */
  private final Set<Dfa> minimized = Collections.newSetFromMap(new IdentityHashMap<>());

  /**
   * The conversion for one DFA: large values embedded as minimal automata ({@link #automata}),
   * members beyond {@code properties} generated ({@link ExtraMembers}), recursion unrolled.
   */
  static Converter forDfa(JsonNode root, JsonSchemaOptions options) {
    return forDfa(root, options, new AutomatonCache());
  }

  /** As {@link #forDfa(JsonNode, JsonSchemaOptions)}, compiling through {@code cache}. */
  static Converter forDfa(JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    return new Converter(root, options, true, true, false, false, false, cache);
  }

  /** As {@link #forDfa}, {@link #lean}. */
  static Converter lean(JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    return new Converter(root, options, true, true, false, false, true, cache);
  }

  /**
   * As {@link #forDfa}, but objects with {@code properties} get no further members (the narrowing
   * past the state limit).
   */
  static Converter withoutExtraMembers(
      JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    return new Converter(root, options, true, false, false, false, false, cache);
  }

  /**
   * As {@link #forDfa}, with recursion and free-form values as grammar rules ({@link
   * RecursiveRules}; compact layout only).
   */
  static Converter withRules(JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    return new Converter(root, options, true, true, true, false, false, cache);
  }

  /**
   * As {@link #withRules}, and every reference named from two or more places in the document a rule
   * as well ({@link #sharedRules}).
   */
  static Converter withSharedRules(JsonNode root, JsonSchemaOptions options, AutomatonCache cache) {
    return new Converter(root, options, true, true, true, true, false, cache);
  }

  /**
   * As {@link #forDfa}, but no value embedded as an automaton: a tree whose regex text can be
   * printed.
   */
  static Converter printable(JsonNode root, JsonSchemaOptions options) {
    return new Converter(root, options, false, true, false, false, false, new AutomatonCache());
  }

  /**
   * @param automata see {@link #automata}
   * @param beyondProperties whether objects with {@code properties} may have further members
   *     ({@link ExtraMembers})
   * @param asRules recursion and free-form values as grammar rules ({@link RecursiveRules})
   * @param sharedRules see {@link #sharedRules} (only with {@code asRules})
   * @param lean see {@link #lean}
   * @param cache compiles the values' trees (shared by the conversions of one document)
   */
  private Converter(
      JsonNode root,
      JsonSchemaOptions options,
      boolean automata,
      boolean beyondProperties,
      boolean asRules,
      boolean sharedRules,
      boolean lean,
      AutomatonCache cache) {
    this.root = root;
    this.options = options;
    this.layout = new JsonLayout(options.indent());
    this.automata = automata;
    this.lean = lean;
    this.cache = cache;
    this.references = new References(this, new SchemaIndex(root));
    this.merge = new SchemaMerge(this);
    this.strings = new StringValues(this);
    this.numbers = new NumberValues(this);
    this.arrays = new ArrayValues(this);
    this.objects = new ObjectValues(this);
    this.extraMembers = new ExtraMembers(this, beyondProperties);
    this.dependencies = new Dependencies(this);
    this.alternatives = new Alternatives(this);
    this.any = new AnyValues(this);
    this.rules = asRules ? new RecursiveRules(this) : null;
    this.sharedRules = asRules && sharedRules;
  }

  /** The tree of the whole document. */
  Re convert() {
    return value(root, "", 0);
  }

  /**
   * The minimal DFA of {@code tree} (from {@link #convert}), for a language that must not be empty.
   * A tree that is one automaton this converter minimized is that automaton: compiling it again
   * would determinize and minimize it to the same canonical table ({@link Automata}).
   *
   * @throws dev.leap.fsm.EmptyLanguageException the tree matches nothing
   */
  Dfa compileDocument(Re tree) {
    if (tree instanceof Re.Automaton a && minimized.contains(a.dfa())) {
      return a.dfa();
    }
    return Automata.compileNonEmpty(tree, "JSON Schema", options.maxDfaStates());
  }

  /** {@code d}, a result of {@link Automata} (minimal, canonical, not empty), embedded. */
  private Re minimized(Dfa d) {
    minimized.add(d);
    return new Re.Automaton(d);
  }

  /**
   * Reports that {@code keyword} at {@code ptr} is not honoured: strict mode fails with a {@link
   * JsonSchemaException}, lenient mode records it in {@link #ignored} and the caller goes on
   * without it.
   */
  void notHonoured(String keyword, String ptr, String why) {
    if (!options.lenient()) {
      throw new JsonSchemaException(keyword, ptr, why);
    }
    ignored.add((ptr.isEmpty() ? "#" : "#" + ptr) + "/" + keyword + ": " + why);
  }

  /** The language of the values {@code schema} allows, at nesting {@code level}. */
  Re value(JsonNode schema, String ptr, int level) {
    String key = memoKey(schema, level);
    Map<String, Re> byKey = memo.get(schema);
    Re re = byKey == null ? null : byKey.get(key);
    if (re != null) {
      return re;
    }
    re = valueTree(schema, ptr, level);
    if (lean && !(re instanceof Re.Automaton) && Trees.ownSize(re) <= MINIMIZE_ABOVE) {
      long size = Trees.size(re);
      if (size > MINIMIZE_ABOVE && size > options.maxDfaStates() / LEAN_SIZE_MARGIN) {
        // The exact conversion compiles this value here, and might reach its limit doing so.
        throw new LeanOverflow("a thin value of size " + size);
      }
    }
    if (automata
        && !(re instanceof Re.Automaton)
        && (lean ? Trees.ownSize(re) : Trees.size(re)) > MINIMIZE_ABOVE) {
      Dfa d = cache.compile(re, "JSON Schema", options.maxDfaStates());
      re = d == null ? NOTHING : minimized(d);
    }
    memo.computeIfAbsent(schema, k -> new HashMap<>()).put(key, re);
    return re;
  }

  /**
   * What {@link #value} of {@code schema} depends on besides the node: the nesting level (only the
   * indented layout writes it), and how often each reference reachable from it is being expanded
   * already ({@link References#expansionKey}).
   */
  private String memoKey(JsonNode schema, int level) {
    return layout.levelKey(level) + references.expansionKey(schema);
  }

  private Re valueTree(JsonNode schema, String ptr, int level) {
    if (schema.isBoolean()) {
      return schema.asBoolean() ? any.value(level, ANY_DEPTH) : NOTHING;
    }
    if (!schema.isObject()) {
      throw new JsonSchemaException(
          "(schema)",
          ptr,
          "a schema must be an object or a boolean, found " + schema.getNodeType());
    }
    ObjectNode o = (ObjectNode) schema;
    if (o.has("$ref")) {
      return references.ref(o, ptr, level);
    }
    if (o.has("allOf")) {
      return references.valueOfMerge(() -> merge.mergeAllOf(o, ptr), ptr, level);
    }
    for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (Keywords.UNSUPPORTED.contains(k)) {
        notHonoured(k, ptr, "not expressible as a regular language here");
      }
    }
    // anyOf/oneOf of required-only schemas: a presence formula on the object's members.
    // Otherwise: alternatives.
    boolean presenceCombinators = false;
    for (String k : List.of("anyOf", "oneOf")) {
      if (o.has(k)) {
        presenceCombinators =
            PresenceSchemas.presenceOnly(JsonNodeFactory.instance.objectNode().set(k, o.get(k)), o);
        if (!presenceCombinators) {
          return alternatives.value(o, ptr, level);
        }
      }
    }
    Presence combined = Presence.TRUE;
    if (presenceCombinators) {
      ObjectNode only = JsonNodeFactory.instance.objectNode();
      for (String k : List.of("anyOf", "oneOf")) {
        if (o.has(k)) {
          only.set(k, o.get(k));
        }
      }
      combined = PresenceSchemas.formula(only);
    }
    Set<String> excludedTypes = new LinkedHashSet<>();
    if (o.has("not")) {
      JsonNode not = o.get("not");
      if (PresenceSchemas.presenceOnly(not, o)) {
        combined = Presence.and(List.of(combined, Presence.not(PresenceSchemas.formula(not))));
      } else if (typeOnly(not)) {
        excludedTypes.addAll(types((ObjectNode) not, ptr + "/not"));
        if (excludedTypes.contains("number")) {
          excludedTypes.add("integer");
        }
      } else {
        notHonoured(
            "not",
            ptr,
            "supported only when it excludes types or asserts which members are present");
      }
    }
    if (o.has("const") || o.has("enum")) {
      return constOrEnum(o, ptr, level);
    }
    List<Re> options = new ArrayList<>();
    for (String t : types(o, ptr)) {
      if (excludedTypes.contains(t)) {
        continue;
      }
      if (t.equals("number") && excludedTypes.contains("integer")) {
        notHonoured("not", ptr + "/not", "numbers that are not integers");
      }
      if (t.equals("object")) {
        options.add(objects.value(o, ptr, level, combined));
      } else if (combined.evalAll(true)) {
        // A presence formula holds or fails as a whole on a value that is not an object.
        options.add(ofType(t, o, ptr, level));
      }
    }
    return alt(options);
  }

  /** The values of {@code const}/{@code enum} that also meet the other keywords of {@code o}. */
  private Re constOrEnum(ObjectNode o, String ptr, int level) {
    List<JsonNode> values = new ArrayList<>();
    if (o.has("const")) {
      if (!o.has("enum") || Keywords.containsValue(o.get("enum"), o.get("const"))) {
        values.add(o.get("const"));
      }
    } else {
      o.get("enum").forEach(values::add);
    }
    ObjectNode rest = references.copy(o);
    rest.remove("const");
    rest.remove("enum");
    if (Keywords.hasAssertions(rest)) {
      // The values must also satisfy the other keywords: keep those the rest accepts.
      Dfa restDfa = null;
      boolean checked = true;
      try {
        restDfa = cache.compile(value(rest, ptr, level), "enum siblings", 20_000);
      } catch (ConstraintException e) {
        if (lean && e instanceof AutomatonTooLargeException) {
          throw e; // the limit met by a lean tree: decided by the conversion without it
        }
        notHonoured(
            "enum",
            ptr,
            "the keywords beside enum/const are too large to check its values against");
        checked = false;
      }
      List<JsonNode> kept = new ArrayList<>();
      for (JsonNode v : values) {
        if (!checked
            || (restDfa != null
                && restDfa.matches(layout.write(v, level).getBytes(StandardCharsets.UTF_8)))) {
          kept.add(v);
        }
      }
      values = kept;
    }
    if (values.isEmpty()) {
      return NOTHING;
    }
    return literalValues(values, level);
  }

  /** The texts of {@code values} in the layout, each once. */
  private Re literalValues(List<JsonNode> values, int level) {
    List<Re> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (JsonNode v : values) {
      String text = layout.write(v, level);
      if (seen.add(text)) {
        out.add(StringValues.jsonText(text));
      }
    }
    return alt(out);
  }

  /**
   * The types {@code o} allows ({@code integer} folded into {@code number}); every type if it has
   * no {@code type}.
   */
  List<String> types(ObjectNode o, String ptr) {
    JsonNode t = o.get("type");
    List<String> out = new ArrayList<>();
    if (t == null) {
      // No type: every type, each under the keywords that apply to it (as the specification reads).
      out.addAll(List.of("object", "array", "string", "number", "boolean", "null"));
      return out;
    }
    if (t.isTextual()) {
      out.add(t.asText());
    } else if (t.isArray()) {
      t.forEach(x -> out.add(x.asText()));
    } else {
      throw new JsonSchemaException("type", ptr, "type must be a string or an array, found " + t);
    }
    if (out.contains("number") && out.contains("integer")) {
      out.remove("integer");
    }
    return out;
  }

  /** Whether {@code schema} is a schema that says nothing but {@code type}. */
  private static boolean typeOnly(JsonNode schema) {
    if (!schema.isObject() || !schema.has("type")) {
      return false;
    }
    for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!k.equals("type") && Keywords.asserts(k)) {
        return false;
      }
    }
    return true;
  }

  private Re ofType(String type, ObjectNode o, String ptr, int level) {
    switch (type) {
      case "null":
        return lit("null");
      case "boolean":
        return alt(List.of(lit("true"), lit("false")));
      case "string":
        return strings.value(o, ptr);
      case "integer":
        return numbers.integer(o, ptr);
      case "number":
        return numbers.number(o, ptr);
      case "object":
        return objects.value(o, ptr, level, Presence.TRUE);
      case "array":
        return arrays.value(o, ptr, level);
      default:
        throw new JsonSchemaException("type", ptr, "unknown type \"" + type + "\"");
    }
  }

  /**
   * The intersection of the languages {@code parts}, as an embedded automaton; a single part is
   * returned as it is. Parts must be written at the same level (all JSON text, or all encoded
   * string contents). Past the state limit, {@code keyword} is not honoured and the first part
   * stands alone.
   */
  Re intersection(List<Re> parts, String keyword, String ptr) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    try {
      Dfa acc = cache.compile(parts.get(0), "JSON Schema", options.maxDfaStates());
      for (int i = 1; i < parts.size() && acc != null; i++) {
        Dfa next = cache.compile(parts.get(i), "JSON Schema", options.maxDfaStates());
        acc =
            next == null
                ? null
                : Automata.intersect(acc, next, options.maxDfaStates(), "JSON Schema");
      }
      return acc == null ? NOTHING : minimized(acc);
    } catch (AutomatonTooLargeException e) {
      if (lean) {
        throw e; // the limit met by a lean tree: decided by the conversion without it
      }
      notHonoured(
          keyword, ptr, "the intersection of its keywords' languages exceeds the state limit");
      return parts.get(0);
    }
  }

  /**
   * The value of {@code key} in {@code o}, a non-negative int, or a {@link JsonSchemaException}.
   */
  static int nonNegative(ObjectNode o, String key, String ptr) {
    JsonNode n = o.get(key);
    if (!n.canConvertToInt() || n.asInt() < 0) {
      throw new JsonSchemaException(key, ptr, key + " must be a non-negative integer, found " + n);
    }
    return n.asInt();
  }

  /**
   * A lean conversion ({@link #lean}) reached a limit whose outcome depends on the sizes of the
   * parts, which a lean tree measures differently: the conversion without it decides.
   */
  static final class LeanOverflow extends RuntimeException {
    LeanOverflow(String what) {
      super(what, null, false, false);
    }
  }
}
