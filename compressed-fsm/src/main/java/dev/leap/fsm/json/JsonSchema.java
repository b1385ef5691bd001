package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.opt;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import dev.leap.fsm.internal.Trees;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * JSON Schema to a byte-level automaton: the schema becomes a regex syntax tree ({@link Re}), then
 * the regex pipeline of {@link CompressedFsm} (DFA, minimization, jump edges).
 *
 * <p>The invariant: every text the automaton accepts is valid against the schema (the generated
 * language is a subset of the valid instances, never a superset). Where the full set of valid
 * instances is not regular or would cost too many states, Leap generates a documented part of it.
 *
 * <p>What the generated text looks like: compact JSON by default (no whitespace), or a fixed
 * indent ({@link JsonSchemaOptions#indent}): a newline and the indent before every member and
 * element, {@code ": "} between key and value. Never unbounded whitespace. Object members appear in
 * the order of {@code properties}; optional ones may be absent; then members that {@code required}
 * or a presence keyword names but {@code properties} does not list; then, where the schema asks for
 * them ({@code patternProperties}, an explicit {@code additionalProperties} of {@code true} or a
 * schema, or no {@code properties} at all), further members with keys not listed, in their
 * canonical JSON spelling. Beside {@code properties}, an absent {@code additionalProperties}
 * generates no further members (as if it were {@code false}: the outputs stay valid). Values of any
 * type nest up to {@link #ANY_DEPTH} levels. Numbers and integers are written in JSON's syntax; bounded numbers and
 * multiples as plain decimals (no exponent). Strings use JSON escapes;
 * {@code minLength}/{@code maxLength} count code points (an escape is one character); a
 * {@code maxLength} above {@link JsonSchemaOptions#maxStringLength} generates at most that many.
 * {@code pattern} is searched, not anchored, unless it starts with {@code ^} / ends with {@code $};
 * characters it allows that JSON must escape are written with their canonical escape.
 *
 * <p>Exact constructions: length, {@code format} and {@code pattern} of a string are intersected
 * ({@link Re.Automaton}); {@code required}, {@code dependencies}/{@code dependentRequired},
 * {@code dependentSchemas} and {@code anyOf}/{@code oneOf}/{@code allOf}/{@code not} whose branches
 * only name required members, and {@code minProperties}/{@code maxProperties}, become a
 * {@link Presence} formula written out member by member; {@code patternProperties} merge into the
 * listed members they match; numeric bounds compare the integer part, then the fraction digits
 * ({@link Numbers}); {@code multipleOf} a power of ten or a whole number; {@code oneOf} of other
 * schemas only when its branches are provably disjoint; {@code allOf} when it merges simply;
 * {@code not} of types; local {@code $ref} (recursion unrolled {@link JsonSchemaOptions#maxRecursion}
 * times); every {@code format} of the specification ({@link Formats}; others are annotations).
 * Annotations and unknown keywords are ignored (they assert nothing). Everything else is a
 * {@link JsonSchemaException} naming the keyword and its JSON pointer, unless the options are
 * lenient: then it is ignored and listed in {@link Result#ignored()}.
 */
public final class JsonSchema {
  private JsonSchema() {}

  /** Nesting depth of values allowed where the schema allows any JSON value. */
  public static final int ANY_DEPTH = 2;

  /** The conversion result: the regex tree and what lenient mode ignored. */
  public record Result(Re tree, List<String> ignored) {}

  private static final Set<String> ANNOTATIONS = Set.of("title", "description", "examples", "default", "$comment",
      "$schema", "$id", "id", "$anchor", "$dynamicAnchor", "deprecated", "readOnly", "writeOnly", "$defs", "definitions",
      "contentMediaType", "contentEncoding", "contentSchema", "$vocabulary", "nullable");
  private static final Set<String> HANDLED = Set.of("type", "properties", "required", "additionalProperties", "items",
      "prefixItems", "additionalItems", "minItems", "maxItems", "enum", "const", "minLength", "maxLength", "pattern",
      "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "$ref", "format",
      "uniqueItems", "multipleOf", "minProperties", "maxProperties", "patternProperties", "dependencies",
      "dependentRequired", "dependentSchemas", "not");
  private static final Set<String> UNSUPPORTED = Set.of("propertyNames", "unevaluatedProperties", "unevaluatedItems",
      "contains", "minContains", "maxContains", "if", "then", "else", "$dynamicRef", "$recursiveRef");

  /**
   * A compiled schema.
   *
   * @param fsm the constraint
   * @param ignored what lenient mode ignored ({@code #/pointer/keyword: why})
   * @param narrowed where Leap generates less than it would within larger limits (still only
   *     valid values), e.g. no members beyond {@code properties}
   */
  public record Compiled(CompressedFsm fsm, List<String> ignored, List<String> narrowed) {}

  /** Compiles {@code schemaJson} to a compressed FSM. */
  public static CompressedFsm compile(String schemaJson, JsonSchemaOptions options) {
    return compileDetailed(schemaJson, options).fsm();
  }

  /**
   * Compiles {@code schemaJson}, saying what was ignored and narrowed. Members beyond {@code
   * properties} (which explicit {@code additionalProperties} and {@code patternProperties} ask
   * for) cost the most states: if the automaton exceeds a limit with them, it is compiled again
   * without them, and that is reported in {@link Compiled#narrowed()}.
   *
   * @throws JsonSchemaException a keyword Leap cannot honour (strict mode), with its JSON pointer
   * @throws dev.leap.fsm.AutomatonTooLargeException the automaton exceeds a limit even so
   * @throws dev.leap.fsm.EmptyLanguageException no value is valid (as far as Leap generates them)
   */
  public static Compiled compileDetailed(String schemaJson, JsonSchemaOptions options) {
    JsonNode root = parse(schemaJson);
    Converter c = new Converter(root, options, true, true);
    try {
      Re tree = c.value(root, "", 0);
      return new Compiled(CompressedFsm.fromTree(tree, "JSON Schema", options.maxDfaStates()), List.copyOf(c.ignored),
          List.copyOf(c.narrowed));
    } catch (dev.leap.fsm.AutomatonTooLargeException e) {
      if (!c.extrasBesideProperties) {
        throw e;
      }
      Converter narrow = new Converter(root, options, true, false);
      Re tree;
      CompressedFsm fsm;
      try {
        tree = narrow.value(root, "", 0);
        fsm = CompressedFsm.fromTree(tree, "JSON Schema", options.maxDfaStates());
      } catch (dev.leap.fsm.AutomatonTooLargeException again) {
        throw e;
      }
      List<String> notes = new ArrayList<>(narrow.narrowed);
      notes.add("members beyond properties (explicit additionalProperties, patternProperties) are not generated: with"
          + " them " + e.getMessage());
      return new Compiled(fsm, List.copyOf(narrow.ignored), List.copyOf(notes));
    }
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

  /** The regex tree for {@code schemaJson}; large parts are embedded as minimal automata. */
  public static Result convert(String schemaJson, JsonSchemaOptions options) {
    return convert(schemaJson, options, true);
  }

  /**
   * @param automata whether large values are compiled to minimal automata as they are converted
   *     (faster to compile, but such a tree has no regex text)
   */
  private static Result convert(String schemaJson, JsonSchemaOptions options, boolean automata) {
    Converter c = new Converter(parse(schemaJson), options, automata, true);
    Re tree = c.value(c.root, "", 0);
    return new Result(tree, List.copyOf(c.ignored));
  }

  private static JsonNode parse(String schemaJson) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(schemaJson);
    } catch (JsonProcessingException e) {
      throw new ConstraintException("the JSON Schema is not valid JSON: " + e.getOriginalMessage());
    }
    if (root == null) {
      throw new ConstraintException("the JSON Schema is empty");
    }
    return root;
  }

  // ---------------------------------------------------------------------------------------------

  static final Re NEVER = Trees.NOTHING;

  private static final class Converter {
    final JsonNode root;
    final SchemaIndex index;
    final JsonSchemaOptions opt;
    final List<String> ignored = new ArrayList<>();
    final Map<String, Integer> refDepth = new HashMap<>();
    /** Where Leap generates less than the schema allows beyond its documented rules, and why. */
    final List<String> narrowed = new ArrayList<>();
    /** The references {@link #resolveShallow} followed (merging inlines their targets). */
    final List<String> followed = new ArrayList<>();
    final ObjectMapper mapper = new ObjectMapper();

    /** Whether large values become embedded minimal automata ({@link #MINIMIZE_ABOVE}). */
    final boolean automata;
    /** Whether objects with {@code properties} may have further members (see {@link #extraMember}). */
    final boolean beyondProperties;
    /** Whether some object with {@code properties} was given further members. */
    boolean extrasBesideProperties;

    Converter(JsonNode root, JsonSchemaOptions opt, boolean automata, boolean beyondProperties) {
      this.root = root;
      this.index = new SchemaIndex(root);
      this.opt = opt;
      this.automata = automata;
      this.beyondProperties = beyondProperties;
    }

    JsonSchemaException unsupported(String keyword, String pointer, String why) {
      return new JsonSchemaException(keyword, pointer, why);
    }

    /** Either fails, or (lenient) records that {@code keyword} was ignored. */
    void cannot(String keyword, String pointer, String why) {
      if (!opt.lenient()) {
        throw unsupported(keyword, pointer, why);
      }
      ignored.add((pointer.isEmpty() ? "#" : "#" + pointer) + "/" + keyword + ": " + why);
    }

    /**
     * Values whose tree is larger than this (in {@link #size} nodes) are compiled to their minimal
     * DFA at once and embedded as a {@link Re.Automaton}: minimizing bottom-up keeps every
     * enclosing subset construction close to minimal size (a tree built from unminimized parts
     * carries their redundancy into every copy, and a recursive schema copies them many times).
     */
    static final long MINIMIZE_ABOVE = 256;

    /**
     * Results of {@link #value} by schema node (identity) and {@link #memoKey}: a definition used
     * in many places, or reached again through recursion at the same unrolling depth, is converted
     * once, and the one result is shared in the tree (the NFA builds shared nodes once).
     */
    final Map<JsonNode, Map<String, Re>> memo = new java.util.IdentityHashMap<>();
    /** The local references reachable from a schema node, following references (sorted). */
    final Map<JsonNode, Set<String>> reachable = new java.util.IdentityHashMap<>();
    /** The references inside a schema node's own JSON (not followed). */
    final Map<JsonNode, Set<String>> inside = new java.util.IdentityHashMap<>();

    /** The language of the values {@code s} allows, at nesting {@code level}. */
    Re value(JsonNode s, String ptr, int level) {
      String key = memoKey(s, level);
      Map<String, Re> byKey = memo.get(s);
      Re re = byKey == null ? null : byKey.get(key);
      if (re != null) {
        return re;
      }
      re = valueTree(s, ptr, level);
      if (automata && !(re instanceof Re.Automaton) && size(re) > MINIMIZE_ABOVE) {
        Dfa d = Automata.compile(re, "JSON Schema", opt.maxDfaStates());
        re = d == null ? NEVER : new Re.Automaton(d);
      }
      memo.computeIfAbsent(s, k -> new HashMap<>()).put(key, re);
      return re;
    }

    /**
     * What {@link #value} of {@code s} depends on besides {@code s}: the nesting level (only the
     * indented layout writes it), and how often each reference reachable from {@code s} is being
     * expanded already (recursion unrolls to {@link JsonSchemaOptions#maxRecursion}).
     */
    String memoKey(JsonNode s, int level) {
      StringBuilder key = new StringBuilder().append(opt.indent() < 0 ? 0 : level);
      for (String r : reachableRefs(s)) {
        int d = refDepth.getOrDefault(r, 0);
        if (d > 0) {
          key.append('|').append(r).append('=').append(d);
        }
      }
      return key.toString();
    }

    /** The canonical names of the references reachable from {@code s}, following references (sorted). */
    Set<String> reachableRefs(JsonNode s) {
      Set<String> out = reachable.get(s);
      if (out != null) {
        return out;
      }
      out = new java.util.TreeSet<>(refsInside(s));
      java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(out);
      while (!todo.isEmpty()) {
        JsonNode target = refTargets.get(todo.poll());
        if (target != null) {
          for (String r : refsInside(target)) {
            if (out.add(r)) {
              todo.add(r);
            }
          }
        }
      }
      reachable.put(s, out);
      return out;
    }

    /** Targets of the references seen by {@link #refsInside}, by canonical name. */
    final Map<String, JsonNode> refTargets = new HashMap<>();

    /** The canonical names of the references inside a schema node's own JSON (not followed; unresolvable ones left out). */
    Set<String> refsInside(JsonNode s) {
      Set<String> out = inside.get(s);
      if (out != null) {
        return out;
      }
      out = new java.util.HashSet<>();
      if (s.isObject() && s.path("$ref").isTextual()) {
        SchemaIndex.Target t = localTarget(s.get("$ref").asText(), s);
        if (t != null) {
          out.add(t.key());
          refTargets.put(t.key(), t.node());
        }
      }
      for (JsonNode child : s) {
        out.addAll(refsInside(child));
      }
      inside.put(s, out);
      return out;
    }

    /** The target of a reference, or null (conversion reports bad references itself). */
    SchemaIndex.Target localTarget(String ref, JsonNode at) {
      try {
        return index.resolve(ref, at);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }

    private Re valueTree(JsonNode s, String ptr, int level) {
      if (s.isBoolean()) {
        return s.asBoolean() ? any(level, ANY_DEPTH) : NEVER;
      }
      if (!s.isObject()) {
        throw unsupported("(schema)", ptr, "a schema must be an object or a boolean, found " + s.getNodeType());
      }
      ObjectNode o = (ObjectNode) s;
      if (o.has("$ref")) {
        return ref(o, ptr, level);
      }
      if (o.has("allOf")) {
        return valueOfMerge(() -> mergeAllOf(o, ptr), ptr, level);
      }
      for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (UNSUPPORTED.contains(k)) {
          cannot(k, ptr, "not expressible as a regular language here");
        }
      }
      // anyOf/oneOf of required-only schemas: a presence formula on the object's members.
      // Otherwise: alternatives.
      boolean presenceCombinators = false;
      for (String k : List.of("anyOf", "oneOf")) {
        if (o.has(k)) {
          presenceCombinators = presenceOnly(JsonNodeFactory.instance.objectNode().set(k, o.get(k)), o);
          if (!presenceCombinators) {
            return alternatives(o, ptr, level);
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
        combined = presence(only);
      }
      Set<String> excludedTypes = new LinkedHashSet<>();
      if (o.has("not")) {
        JsonNode not = o.get("not");
        if (presenceOnly(not, o)) {
          combined = Presence.and(List.of(combined, Presence.not(presence(not))));
        } else if (typeOnly(not)) {
          excludedTypes.addAll(types((ObjectNode) not, ptr + "/not"));
          if (excludedTypes.contains("number")) {
            excludedTypes.add("integer");
          }
        } else {
          cannot("not", ptr, "supported only when it excludes types or asserts which members are present");
        }
      }
      if (o.has("const") || o.has("enum")) {
        List<JsonNode> vals = new ArrayList<>();
        if (o.has("const")) {
          if (!o.has("enum") || containsValue(o.get("enum"), o.get("const"))) {
            vals.add(o.get("const"));
          }
        } else {
          o.get("enum").forEach(vals::add);
        }
        ObjectNode rest = o.deepCopy();
        rest.remove("const");
        rest.remove("enum");
        if (hasAssertions(rest)) {
          // The values must also satisfy the other keywords: keep those the rest accepts.
          Dfa restDfa = null;
          boolean checked = true;
          try {
            restDfa = Automata.compile(value(rest, ptr, level), "enum siblings", 20_000);
          } catch (ConstraintException e) {
            cannot("enum", ptr, "the keywords beside enum/const are too large to check its values against");
            checked = false;
          }
          List<JsonNode> kept = new ArrayList<>();
          for (JsonNode v : vals) {
            if (!checked || (restDfa != null
                && restDfa.matches(serialize(v, level).getBytes(java.nio.charset.StandardCharsets.UTF_8)))) {
              kept.add(v);
            }
          }
          vals = kept;
        }
        if (vals.isEmpty()) {
          return NEVER;
        }
        return literalValues(vals, ptr, level);
      }
      List<String> types = types(o, ptr);
      List<Re> opts = new ArrayList<>();
      for (String t : types) {
        if (excludedTypes.contains(t)) {
          continue;
        }
        if (t.equals("number") && excludedTypes.contains("integer")) {
          cannot("not", ptr + "/not", "numbers that are not integers");
        }
        if (t.equals("object")) {
          opts.add(object(o, ptr, level, combined));
        } else if (combined.evalAll(true)) {
          // A presence formula holds or fails as a whole on a value that is not an object.
          opts.add(ofType(t, o, ptr, level));
        }
      }
      return alt(opts);
    }

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
        throw unsupported("type", ptr, "type must be a string or an array, found " + t);
      }
      if (out.contains("number") && out.contains("integer")) {
        out.remove("integer");
      }
      return out;
    }

    /** Whether {@code s} is a schema that says nothing but {@code type}. */
    boolean typeOnly(JsonNode s) {
      if (!s.isObject() || !s.has("type")) {
        return false;
      }
      for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!k.equals("type") && !ANNOTATIONS.contains(k) && (HANDLED.contains(k) || UNSUPPORTED.contains(k))) {
          return false;
        }
      }
      return true;
    }

    Re ofType(String type, ObjectNode o, String ptr, int level) {
      switch (type) {
        case "null":
          return lit("null");
        case "boolean":
          return alt(List.of(lit("true"), lit("false")));
        case "string":
          return string(o, ptr);
        case "integer":
          return integer(o, ptr);
        case "number":
          return number(o, ptr);
        case "object":
          return object(o, ptr, level, Presence.TRUE);
        case "array":
          return array(o, ptr, level);
        default:
          throw unsupported("type", ptr, "unknown type \"" + type + "\"");
      }
    }

    // --- literals

    Re literalValues(List<JsonNode> values, String ptr, int level) {
      List<Re> out = new ArrayList<>();
      Set<String> seen = new LinkedHashSet<>();
      for (JsonNode v : values) {
        String text = serialize(v, level);
        if (seen.add(text)) {
          out.add(lit(text));
        }
      }
      return alt(out);
    }

    String serialize(JsonNode v, int level) {
      try {
        if (opt.indent() < 0 || !(v.isContainerNode()) || v.isEmpty()) {
          return mapper.writeValueAsString(v);
        }
        return pretty(v, level);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    /** A container value in the configured indent, as {@link #object}/{@link #array} lay it out. */
    String pretty(JsonNode v, int level) throws JsonProcessingException {
      StringBuilder sb = new StringBuilder();
      String in = "\n" + " ".repeat(opt.indent() * (level + 1));
      if (v.isObject()) {
        sb.append('{');
        boolean first = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          sb.append(first ? "" : ",").append(in).append(mapper.writeValueAsString(e.getKey())).append(": ")
              .append(serialize(e.getValue(), level + 1));
          first = false;
        }
        return sb.append('\n').append(" ".repeat(opt.indent() * level)).append('}').toString();
      }
      sb.append('[');
      boolean first = true;
      for (JsonNode e : v) {
        sb.append(first ? "" : ",").append(in).append(serialize(e, level + 1));
        first = false;
      }
      return sb.append('\n').append(" ".repeat(opt.indent() * level)).append(']').toString();
    }

    // --- strings

    static final int[] SAFE = CharRanges.of(0x20, 0x21, 0x23, 0x5B, 0x5D, CharRanges.MAX);

    /** One JSON string character in any of JSON's spellings. */
    static Re anyStringChar() {
      return alt(List.of(new Re.Chars(SAFE), seq(lit("\\"), new Re.Chars(CharRanges.of('"', '"', '\\', '\\', '/', '/',
          'b', 'b', 'f', 'f', 'n', 'n', 'r', 'r', 't', 't'))), seq(lit("\\u"), rep(hex(), 4, 4))));
    }

    static Re hex() {
      return new Re.Chars(CharRanges.of('0', '9', 'A', 'F', 'a', 'f'));
    }

    Re string(ObjectNode o, String ptr) {
      int min = o.has("minLength") ? nonNegative(o, "minLength", ptr) : 0;
      int max = o.has("maxLength") ? nonNegative(o, "maxLength", ptr) : -1;
      if (min > opt.maxStringLength()) {
        cannot("minLength", ptr, "minLength above maxStringLength (" + opt.maxStringLength() + ") is not supported");
        min = 0;
      }
      if (max > opt.maxStringLength()) {
        // Generated strings stay within the cap, so they satisfy the larger maxLength too.
        max = opt.maxStringLength();
      }
      if (max >= 0 && max < min) {
        return NEVER;
      }
      // The content is in every applicable language at once: length, format, pattern.
      List<Re> parts = new ArrayList<>();
      if (min > 0 || max >= 0) {
        parts.add(rep(anyStringChar(), min, max));
      }
      if (o.has("format")) {
        Re f = format(o.get("format").asText());
        if (f != null) {
          parts.add(f);
        }
      }
      if (o.has("pattern")) {
        parts.add(pattern(o.get("pattern").asText(), ptr));
      }
      Re content = parts.isEmpty() ? rep(anyStringChar(), 0, -1) : intersection(parts, "pattern", ptr);
      return seq(lit("\""), content, lit("\""));
    }

    /**
     * The intersection of the languages {@code parts}, as an embedded automaton; a single part is
     * returned as it is. Parts must be written at the same level (all JSON text, or all encoded
     * string contents).
     */
    Re intersection(List<Re> parts, String keyword, String ptr) {
      if (parts.size() == 1) {
        return parts.get(0);
      }
      try {
        Dfa acc = Automata.compile(parts.get(0), "JSON Schema", opt.maxDfaStates());
        for (int i = 1; i < parts.size() && acc != null; i++) {
          Dfa next = Automata.compile(parts.get(i), "JSON Schema", opt.maxDfaStates());
          acc = next == null ? null : Automata.intersect(acc, next, opt.maxDfaStates(), "JSON Schema");
        }
        return acc == null ? NEVER : new Re.Automaton(acc);
      } catch (dev.leap.fsm.AutomatonTooLargeException e) {
        cannot(keyword, ptr, "the intersection of its keywords' languages exceeds the state limit");
        return parts.get(0);
      }
    }

    /** The format's language (a subset of its strings, see {@link Formats}; JSON-encoded), or null. */
    Re format(String f) {
      String regex = Formats.regex(f);
      // Not a format of the specification: an annotation, as validators treat it.
      return regex == null ? null : jsonEncode(RegexParser.parse(regex));
    }

    /** The strings that contain a match of {@code p} (searched, as JSON Schema reads it; ECMA classes), JSON-encoded. */
    Re pattern(String p, String ptr) {
      try {
        return jsonEncode(EcmaPattern.searchLanguage(p));
      } catch (ConstraintException e) {
        cannot("pattern", ptr, "outside Leap's regex dialect: " + e.getMessage().lines().findFirst().orElse(""));
        return rep(anyStringChar(), 0, -1);
      }
    }

    /** The same language of decoded strings, with characters JSON must escape written canonically. */
    static Re jsonEncode(Re re) {
      if (re instanceof Re.Chars c) {
        List<Re> opts = new ArrayList<>();
        int[] safe = intersect(c.ranges(), SAFE);
        if (safe.length > 0) {
          opts.add(new Re.Chars(safe));
        }
        for (int cp = 0; cp <= 0x5C; cp++) {
          if ((cp < 0x20 || cp == '"' || cp == '\\') && CharRanges.contains(c.ranges(), cp)) {
            opts.add(lit(escape(cp)));
          }
        }
        return opts.isEmpty() ? NEVER : alt(opts);
      }
      if (re instanceof Re.Concat c) {
        List<Re> items = new ArrayList<>();
        c.items().forEach(x -> items.add(jsonEncode(x)));
        return new Re.Concat(items);
      }
      if (re instanceof Re.Alt a) {
        List<Re> items = new ArrayList<>();
        a.options().forEach(x -> items.add(jsonEncode(x)));
        return new Re.Alt(items);
      }
      if (re instanceof Re.Repeat r) {
        return new Re.Repeat(jsonEncode(r.item()), r.min(), r.max());
      }
      return re;
    }

    static String escape(int cp) {
      switch (cp) {
        case '"':
          return "\\\"";
        case '\\':
          return "\\\\";
        case '\n':
          return "\\n";
        case '\t':
          return "\\t";
        case '\r':
          return "\\r";
        case '\b':
          return "\\b";
        case '\f':
          return "\\f";
        default:
          return String.format("\\u%04X", cp);
      }
    }

    static int[] intersect(int[] a, int[] b) {
      it.unimi.dsi.fastutil.ints.IntArrayList out = new it.unimi.dsi.fastutil.ints.IntArrayList();
      for (int i = 0; i < a.length; i += 2) {
        for (int j = 0; j < b.length; j += 2) {
          int lo = Math.max(a[i], b[j]);
          int hi = Math.min(a[i + 1], b[j + 1]);
          if (lo <= hi) {
            out.add(lo);
            out.add(hi);
          }
        }
      }
      return CharRanges.normalize(out);
    }

    // --- numbers

    static final Re DIGIT = IntegerRange.DIGIT;
    static final Re NONZERO = new Re.Chars(new int[] {'1', '9'});

    Re integer(ObjectNode o, String ptr) {
      BigInteger lo = null;
      BigInteger hi = null;
      Bound b = bounds(o, ptr, true);
      if (b.lo != null) {
        lo = ceil(b.lo, b.loExclusive);
      }
      if (b.hi != null) {
        hi = floor(b.hi, b.hiExclusive);
      }
      if (lo != null && hi != null && lo.compareTo(hi) > 0) {
        return NEVER;
      }
      Re range = IntegerRange.of(lo, hi);
      if (!o.has("multipleOf")) {
        return range;
      }
      java.math.BigDecimal m = positive(o, "multipleOf", ptr);
      if (java.math.BigDecimal.ONE.remainder(m).signum() == 0) {
        return range; // every integer is a multiple of 1/n
      }
      if (m.stripTrailingZeros().scale() <= 0 && m.compareTo(java.math.BigDecimal.valueOf(MAX_MODULUS)) <= 0) {
        return intersection(List.of(range, Numbers.multiplesOf(m.intValueExact())), "multipleOf", ptr);
      }
      cannot("multipleOf", ptr, "integers: multipleOf is supported for whole numbers up to " + MAX_MODULUS);
      return range;
    }

    static final int MAX_MODULUS = 10_000;

    java.math.BigDecimal positive(ObjectNode o, String key, String ptr) {
      java.math.BigDecimal m = decimal(o, key, ptr);
      if (m.signum() <= 0) {
        throw unsupported(key, ptr, key + " must be greater than 0, found " + m);
      }
      return m;
    }

    record Bound(java.math.BigDecimal lo, boolean loExclusive, java.math.BigDecimal hi, boolean hiExclusive) {}

    Bound bounds(ObjectNode o, String ptr, boolean integer) {
      java.math.BigDecimal lo = null;
      java.math.BigDecimal hi = null;
      boolean loEx = false;
      boolean hiEx = false;
      if (o.has("minimum")) {
        lo = decimal(o, "minimum", ptr);
        loEx = o.path("exclusiveMinimum").isBoolean() && o.get("exclusiveMinimum").asBoolean();
      }
      if (o.has("maximum")) {
        hi = decimal(o, "maximum", ptr);
        hiEx = o.path("exclusiveMaximum").isBoolean() && o.get("exclusiveMaximum").asBoolean();
      }
      if (o.path("exclusiveMinimum").isNumber()) {
        java.math.BigDecimal e = o.get("exclusiveMinimum").decimalValue();
        if (lo == null || e.compareTo(lo) >= 0) {
          lo = e;
          loEx = true;
        }
      }
      if (o.path("exclusiveMaximum").isNumber()) {
        java.math.BigDecimal e = o.get("exclusiveMaximum").decimalValue();
        if (hi == null || e.compareTo(hi) <= 0) {
          hi = e;
          hiEx = true;
        }
      }
      return new Bound(lo, loEx, hi, hiEx);
    }

    java.math.BigDecimal decimal(ObjectNode o, String key, String ptr) {
      JsonNode n = o.get(key);
      if (!n.isNumber()) {
        throw unsupported(key, ptr, key + " must be a number, found " + n);
      }
      return n.decimalValue();
    }

    static BigInteger ceil(java.math.BigDecimal d, boolean exclusive) {
      BigInteger c = d.setScale(0, java.math.RoundingMode.CEILING).toBigIntegerExact();
      if (exclusive && d.compareTo(new java.math.BigDecimal(c)) == 0) {
        c = c.add(BigInteger.ONE);
      }
      return c;
    }

    static BigInteger floor(java.math.BigDecimal d, boolean exclusive) {
      BigInteger f = d.setScale(0, java.math.RoundingMode.FLOOR).toBigIntegerExact();
      if (exclusive && d.compareTo(new java.math.BigDecimal(f)) == 0) {
        f = f.subtract(BigInteger.ONE);
      }
      return f;
    }

    Re number(ObjectNode o, String ptr) {
      Bound b = bounds(o, ptr, false);
      Re exp = opt(seq(new Re.Chars(CharRanges.of('E', 'E', 'e', 'e')), opt(new Re.Chars(CharRanges.of('+', '+', '-', '-'))),
          rep(DIGIT, 1, -1)));
      Re intPart = alt(List.of(lit("0"), seq(NONZERO, rep(DIGIT, 0, -1))));
      if (b.lo == null && b.hi == null && !o.has("multipleOf")) {
        return seq(opt(lit("-")), intPart, Numbers.ANY_FRACTION, exp);
      }
      // Plain decimals (no exponent) from here on.
      Re range = b.lo == null && b.hi == null ? seq(opt(lit("-")), intPart, Numbers.ANY_FRACTION)
          : Numbers.range(b.lo, b.loExclusive, b.hi, b.hiExclusive, opt.maxDfaStates());
      if (!o.has("multipleOf")) {
        return range;
      }
      java.math.BigDecimal m = positive(o, "multipleOf", ptr).stripTrailingZeros();
      Re multiples;
      if (m.unscaledValue().equals(BigInteger.ONE) && m.scale() >= 0) {
        multiples = seq(opt(lit("-")), intPart, Numbers.fractionOfMultiple(m.scale()));
      } else if (m.scale() <= 0 && m.compareTo(java.math.BigDecimal.valueOf(MAX_MODULUS)) <= 0) {
        multiples = seq(Numbers.multiplesOf(m.intValueExact()), Numbers.fractionOfMultiple(0));
      } else {
        cannot("multipleOf", ptr, "numbers: multipleOf is supported for powers of ten (0.01, 1, ...) and whole numbers up to "
            + MAX_MODULUS);
        return range;
      }
      return intersection(List.of(range, multiples), "multipleOf", ptr);
    }

    int nonNegative(ObjectNode o, String key, String ptr) {
      JsonNode n = o.get(key);
      if (!n.canConvertToInt() || n.asInt() < 0) {
        throw unsupported(key, ptr, key + " must be a non-negative integer, found " + n);
      }
      return n.asInt();
    }

    // --- objects

    /** An object member: its value's language, and the schema that language was made from (for versions). */
    record Member(String name, Re value, JsonNode schema, boolean required) {}

    /** A dependent schema's demand that member {@code member}'s value meets {@code schema} (see {@link Presence.Meets}). */
    record ValueConstraint(String member, JsonNode schema, String ptr) {}

    /** Most value constraints on one member (its value is written in a version per subset of them). */
    static final int MAX_MEMBER_CONSTRAINTS = 3;

    Re object(ObjectNode o, String ptr, int level, Presence combined) {
      JsonNode props = o.get("properties");
      Set<String> required = new LinkedHashSet<>();
      o.path("required").forEach(r -> required.add(r.asText()));
      List<Member> members = new ArrayList<>();
      if (props != null) {
        for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          String p = ptr + "/properties/" + escapePointer(e.getKey());
          JsonNode[] schema = new JsonNode[1];
          Re v = valueOfMerge(() -> schema[0] = patternPropertiesMerged(o, e.getKey(), e.getValue(), p), p, level + 1);
          members.add(new Member(e.getKey(), v, schema[0], required.contains(e.getKey())));
        }
      }
      JsonNode additional = o.get("additionalProperties");
      boolean closed = additional != null && additional.isBoolean() && !additional.asBoolean();
      for (String r : required) {
        if (props == null || !props.has(r)) {
          members.add(new Member(r, unlistedValue(o, r, ptr, level), unlistedSchema(o, r, ptr), true));
        }
      }
      String in = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * (level + 1));
      String out = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * level);
      String colon = opt.indent() < 0 ? ":" : ": ";
      List<ValueConstraint> constraints = new ArrayList<>();
      Presence formula = Presence.and(List.of(combined, dependencies(o, ptr, constraints)));
      int minProps = o.has("minProperties") ? nonNegative(o, "minProperties", ptr) : 0;
      int maxProps = o.has("maxProperties") ? nonNegative(o, "maxProperties", ptr) : -1;
      Set<String> listed = new LinkedHashSet<>();
      members.forEach(m -> listed.add(m.name()));
      // Members the formula names but properties do not list: optional members after the listed
      // ones where additionalProperties allows them (in alphabetical order, which KeyOrder also
      // uses), else absent.
      Set<String> named = new java.util.TreeSet<>();
      formula.names(named);
      for (String n : named) {
        if (!listed.contains(n)) {
          if (closed && patternSchemaFor(o, n, ptr) == null) {
            formula = formula.assign(n, false);
            continue;
          }
          members.add(new Member(n, unlistedValue(o, n, ptr, level), unlistedSchema(o, n, ptr), false));
          listed.add(n);
        }
      }
      Re extra = maxProps == 0 ? null : extraMember(o, ptr, level, listed);
      // Each member is written in a version per subset of its value constraints (version 0: none).
      Re[][] versions = new Re[members.size()][];
      long[][] size = new long[members.size()][];
      int[][] cons = new int[members.size()][];
      for (int i = 0; i < members.size(); i++) {
        Member m = members.get(i);
        List<Integer> mine = new ArrayList<>();
        for (int k = 0; k < constraints.size(); k++) {
          if (constraints.get(k).member().equals(m.name())) {
            mine.add(k);
          }
        }
        if (mine.size() > MAX_MEMBER_CONSTRAINTS) {
          cannot(o.has("dependentSchemas") ? "dependentSchemas" : "dependencies", ptr, "more than " + MAX_MEMBER_CONSTRAINTS
              + " dependent schemas constrain the value of member \"" + m.name() + "\"");
          for (int k : mine) {
            formula = formula.assignMeets(m.name(), k, true); // lenient: the constraints are ignored
          }
          mine = List.of();
        }
        cons[i] = mine.stream().mapToInt(Integer::intValue).toArray();
        versions[i] = memberVersions(m, cons[i], constraints, in + quote(m.name()) + colon, level);
        size[i] = new long[versions[i].length];
        for (int v = 0; v < versions[i].length; v++) {
          size[i][v] = size(versions[i][v]);
        }
      }
      Layout layout = new Layout(members, versions, cons, size, minProps, maxProps, out, extra);
      Re body = layout.from(0, false, formula, 0);
      if (body == NEVER && layout.minUnreachable) {
        cannot("minProperties", ptr, "reaching minProperties needs more than one member beyond the listed ones (a generated"
            + " key may repeat, so only one extra member is certain to count)");
      }
      if (layout.cost > MAX_LAYOUT_COST) {
        String keyword = List.of("minProperties", "maxProperties", "oneOf", "anyOf", "not", "dependencies",
            "dependentRequired", "dependentSchemas").stream().filter(o::has).findFirst().orElse("required");
        cannot(keyword, ptr,
            "too many combinations of present members to write out (over " + MAX_LAYOUT_COST + " nodes)");
      }
      return seq(lit("{"), body);
    }

    /**
     * Member {@code m} (its key text {@code key} and value) in one version per subset of its value
     * constraints {@code cons}: version v meets the constraints of the bits of v ({@link #NEVER}
     * where no value meets them all).
     */
    Re[] memberVersions(Member m, int[] cons, List<ValueConstraint> constraints, String key, int level) {
      Re[] versions = new Re[1 << cons.length];
      for (int v = 0; v < versions.length; v++) {
        Re value = m.value();
        if (v > 0) {
          List<ValueConstraint> meet = new ArrayList<>();
          for (int k = 0; k < cons.length; k++) {
            if ((v >> k & 1) == 1) {
              meet.add(constraints.get(cons[k]));
            }
          }
          String cp = meet.get(0).ptr();
          value = valueOfMerge(() -> {
            JsonNode acc = m.schema();
            for (ValueConstraint c : meet) {
              acc = merge(acc, c.schema(), cp);
            }
            return acc;
          }, cp, level + 1);
        }
        versions[v] = value == NEVER ? NEVER : seq(lit(key), value);
      }
      return versions;
    }

    /** The value of member {@code name} that {@code properties} does not list (never generated if forbidden). */
    Re unlistedValue(ObjectNode o, String name, String ptr, int level) {
      JsonNode additional = o.get("additionalProperties");
      if (o.has("patternProperties")) {
        Re v = valueOfMerge(() -> patternSchemaFor(o, name, ptr), ptr + "/patternProperties", level + 1);
        if (v != null) {
          return v;
        }
      }
      if (additional != null && additional.isObject()) {
        return value(additional, ptr + "/additionalProperties", level + 1);
      }
      return additional != null && additional.isBoolean() && !additional.asBoolean() ? NEVER : any(level + 1, ANY_DEPTH - 1);
    }

    /** The schema of member {@code name} that {@code properties} does not list ({@code false} if forbidden). */
    JsonNode unlistedSchema(ObjectNode o, String name, String ptr) {
      int mark = followed.size();
      try {
        JsonNode pattern = patternSchemaFor(o, name, ptr);
        if (pattern != null) {
          return pattern;
        }
      } finally {
        followed.subList(mark, followed.size()).clear();
      }
      JsonNode additional = o.get("additionalProperties");
      return additional == null ? JsonNodeFactory.instance.booleanNode(true) : additional;
    }

    /** Most member copies (in tree nodes) that one object's {@link Layout} may write out. */
    static final long MAX_LAYOUT_COST = 2_000_000;

    /**
     * Writes out the members after {@code "{"} as a choice per member (present or absent) where
     * that choice matters to the presence formula or the member count, and as an optional member
     * where it does not; ends with {@code "}"}. Memoized on (member, wrote one, formula, count).
     *
     * <p>The result is a DAG: the members after member {@code i} are one node, in tail position of
     * both choices, so the NFA builds them once (see {@link dev.leap.fsm.internal.Nfa}). Such a
     * node is therefore wrapped in a new {@link Re.Concat} and never flattened into its parent by
     * {@link #seq}, which would copy it. Member {@code i} itself is written once per distinct
     * continuation; {@link #cost} sums those copies' sizes.
     */
    final class Layout {
      final List<Member> members;
      /** {@code versions[i][v]}: member i (key and value) meeting the constraints of subset v of {@code cons[i]}. */
      final Re[][] versions;
      /** The value constraints on member i, by number. */
      final int[][] cons;
      final long[][] size;
      final int minProps;
      final int maxProps;
      final String close;
      final int countCap;
      /** One member that no listed one names (see {@link #extraMember}), or null. */
      final Re extra;
      /** Whether some ending fell short of minProperties by more than one extra member. */
      boolean minUnreachable;
      final Map<String, Re> memo = new HashMap<>();
      /**
       * Per member i: the member (in the versions of a bitmask) followed by a continuation, by the
       * continuation (identity) and the bitmask; shared by "wrote one" and not.
       */
      final List<Map<Re, Map<Integer, Re>>> withMember = new ArrayList<>();
      long cost;

      Layout(List<Member> members, Re[][] versions, int[][] cons, long[][] size, int minProps, int maxProps, String close,
          Re extra) {
        this.members = members;
        this.versions = versions;
        this.cons = cons;
        this.extra = extra;
        this.size = size;
        this.minProps = minProps;
        this.maxProps = maxProps;
        this.close = close;
        this.countCap = maxProps >= 0 ? maxProps + 1 : minProps;
        for (int i = 0; i < members.size(); i++) {
          withMember.add(new java.util.IdentityHashMap<>());
        }
      }

      /** The members from {@code i} on and the closing brace; {@link #NEVER} if none can follow. */
      Re from(int i, boolean wrote, Presence f, int count) {
        String key = i + "|" + wrote + "|" + count + "|" + f;
        Re b = memo.get(key);
        if (b != null) {
          return b;
        }
        if (cost > MAX_LAYOUT_COST) {
          return NEVER;
        }
        if (i == members.size()) {
          b = f instanceof Presence.Const c && c.value() ? end(wrote, count) : NEVER;
        } else {
          Member m = members.get(i);
          int next = Math.min(count + 1, countCap);
          Presence fp = f.assign(m.name(), true);
          Presence fa = f.assign(m.name(), false);
          boolean canPresent = (maxProps < 0 || count < maxProps) && !fp.equals(Presence.FALSE);
          boolean canAbsent = !m.required() && !fa.equals(Presence.FALSE);
          Re absent = canAbsent ? from(i + 1, wrote, fa, count) : NEVER;
          // Present: each version leads to the residual formula of the constraints it meets.
          List<Re> conts = new ArrayList<>();
          List<Integer> masks = new ArrayList<>();
          for (int v = 0; canPresent && v < versions[i].length; v++) {
            if (versions[i][v] == NEVER) {
              continue;
            }
            Presence fv = fp;
            for (int k = 0; k < cons[i].length; k++) {
              fv = fv.assignMeets(m.name(), cons[i][k], (v >> k & 1) == 1);
            }
            Re cont = fv.equals(Presence.FALSE) ? NEVER : from(i + 1, true, fv, next);
            if (cont == NEVER) {
              continue;
            }
            int at = indexOfIdentity(conts, cont);
            if (at < 0) {
              conts.add(cont);
              masks.add(1 << v);
            } else {
              masks.set(at, masks.get(at) | 1 << v);
            }
          }
          if (versions[i].length == 1 && conts.size() == 1 && conts.get(0) == absent) {
            // The member is optional and nothing after it depends on it.
            cost += size[i][0];
            b = new Re.Concat(List.of(opt(wrote ? seq(lit(","), versions[i][0]) : versions[i][0]), absent));
          } else {
            List<Re> options = new ArrayList<>();
            for (int c = 0; c < conts.size(); c++) {
              Re cont = conts.get(c);
              int mask = masks.get(c);
              Re after = withMember.get(i).computeIfAbsent(cont, x -> new HashMap<>()).computeIfAbsent(mask, x -> {
                List<Re> texts = new ArrayList<>();
                for (int v = 0; v < versions[i].length; v++) {
                  if ((mask >> v & 1) == 1) {
                    texts.add(versions[i][v]);
                    cost += size[i][v];
                  }
                }
                return new Re.Concat(List.of(alt(texts), cont));
              });
              options.add(wrote ? new Re.Concat(List.of(lit(","), after)) : after);
            }
            options.add(absent);
            b = alt(options);
          }
        }
        memo.put(key, b);
        return b;
      }

      /**
       * The extra members (after the listed ones) and the closing brace, given whether a member was
       * written and how many (capped). A generated key may repeat an earlier extra key, so extra
       * members count only towards "at most n" and one of them towards "at least n".
       */
      Re end(boolean wrote, int count) {
        int need = minProps - count;
        int room = maxProps < 0 ? -1 : maxProps - count;
        if (extra == null || room == 0) {
          return need <= 0 ? lit((wrote ? close : "") + "}") : NEVER;
        }
        if (need > 1) {
          minUnreachable = true;
          return NEVER;
        }
        int lo = Math.max(0, need);
        Re more = new Re.Concat(List.of(lit(","), extra));
        if (wrote) {
          return seq(rep(more, lo, room), lit(close + "}"));
        }
        Re some = seq(extra, rep(more, 0, room < 0 ? -1 : room - 1), lit(close + "}"));
        return lo == 0 ? alt(List.of(lit("}"), some)) : some;
      }
    }

    static int indexOfIdentity(List<Re> list, Re x) {
      for (int i = 0; i < list.size(); i++) {
        if (list.get(i) == x) {
          return i;
        }
      }
      return -1;
    }

    /** Most patternProperties whose overlaps are written out (keys matching each subset of them). */
    static final int MAX_OVERLAPPING_PATTERNS = 4;

    /**
     * One member whose key neither {@code properties} nor the presence formula lists ({@code
     * listed}): keys in their canonical JSON spelling (so that no spelling of a listed name is
     * one), a key that matches patterns of {@code patternProperties} with the value all of them
     * allow, any other key with the {@code additionalProperties} value. Such members are generated
     * where the schema asks for them: {@code patternProperties}, an explicit {@code
     * additionalProperties} (true or a schema), or an object schema without {@code properties};
     * {@code null} where none may be generated.
     */
    Re extraMember(ObjectNode o, String ptr, int level, Set<String> listed) {
      JsonNode additional = o.get("additionalProperties");
      boolean others = additional == null ? !o.has("properties") : !(additional.isBoolean() && !additional.asBoolean());
      List<String> patterns = new ArrayList<>();
      o.path("patternProperties").fieldNames().forEachRemaining(patterns::add);
      if (patterns.isEmpty() && !others || o.has("properties") && !beyondProperties) {
        return null;
      }
      extrasBesideProperties |= o.has("properties");
      String in = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * (level + 1));
      String colon = opt.indent() < 0 ? ":" : ": ";
      Re anyKey = rep(jsonEncode(new Re.Chars(CharRanges.negate(new int[0]))), 0, -1);
      // Key languages first (only they are caught as too large here), then the values.
      List<Dfa> langs = new ArrayList<>();
      List<List<String>> which = new ArrayList<>();
      Dfa otherKeys = null;
      Dfa taken = null;
      List<Dfa> keys = new ArrayList<>();
      try {
        int max = opt.maxDfaStates();
        if (!listed.isEmpty()) {
          List<Re> names = new ArrayList<>();
          listed.forEach(n -> names.add(jsonEncode(lit(n))));
          taken = Automata.compile(alt(names), "JSON Schema", max);
        }
        Dfa canonical = Automata.compile(anyKey, "JSON Schema", max);
        for (String pat : patterns) {
          // pattern() spells characters canonically, except a lenient fallback: keep keys canonical.
          Dfa lang = Automata.compile(pattern(pat, ptr + "/patternProperties/" + escapePointer(pat)), "patternProperties", max);
          keys.add(lang == null ? null : Automata.intersect(lang, canonical, max, "patternProperties"));
        }
        // Keys matching exactly the patterns of subset S (all subsets when few, else singletons).
        int k = patterns.size();
        List<Integer> subsets = new ArrayList<>();
        if (k <= MAX_OVERLAPPING_PATTERNS) {
          for (int sub = 1; sub < (1 << k); sub++) {
            subsets.add(sub);
          }
        } else {
          for (int i = 0; i < k; i++) {
            subsets.add(1 << i);
          }
        }
        for (int sub : subsets) {
          Dfa lang = null;
          boolean first = true;
          for (int i = 0; i < k && (first || lang != null); i++) {
            if ((sub & (1 << i)) != 0) {
              lang = first ? keys.get(i) : keys.get(i) == null ? null : Automata.intersect(lang, keys.get(i), max, "patternProperties");
              first = false;
            }
          }
          for (int i = 0; i < k && lang != null; i++) {
            if ((sub & (1 << i)) == 0 && keys.get(i) != null) {
              lang = Automata.minus(lang, keys.get(i), max, "patternProperties");
            }
          }
          if (lang != null && taken != null) {
            lang = Automata.minus(lang, taken, max, "patternProperties");
          }
          if (lang != null) {
            List<String> w = new ArrayList<>();
            for (int i = 0; i < k; i++) {
              if ((sub & (1 << i)) != 0) {
                w.add(patterns.get(i));
              }
            }
            langs.add(lang);
            which.add(w);
          }
        }
        if (others) {
          otherKeys = canonical;
          for (Dfa key : keys) {
            otherKeys = otherKeys == null || key == null ? otherKeys : Automata.minus(otherKeys, key, max, "patternProperties");
          }
          if (otherKeys != null && taken != null) {
            otherKeys = Automata.minus(otherKeys, taken, max, "additionalProperties");
          }
        }
      } catch (dev.leap.fsm.AutomatonTooLargeException e) {
        cannot(patterns.isEmpty() ? "additionalProperties" : "patternProperties", ptr,
            "the key languages of the members beyond properties exceed the state limit");
        return null;
      }
      List<Re> out = new ArrayList<>();
      for (int i = 0; i < langs.size(); i++) {
        List<String> w = which.get(i);
        String p = ptr + "/patternProperties/" + escapePointer(w.get(0));
        Re v = valueOfMerge(() -> {
          JsonNode acc = null;
          for (String name : w) {
            JsonNode sch = o.get("patternProperties").get(name);
            acc = acc == null ? sch : merge(acc, sch, p);
          }
          return acc;
        }, p, level + 1);
        if (v != NEVER) {
          out.add(seq(lit(in + "\""), new Re.Automaton(langs.get(i)), lit("\"" + colon), v));
        }
      }
      if (otherKeys != null) {
        Re v = additional != null && additional.isObject() ? value(additional, ptr + "/additionalProperties", level + 1)
            : any(level + 1, ANY_DEPTH - 1);
        // With nothing to leave out, the key stays a tree (which has regex text).
        Re key = keys.isEmpty() && taken == null ? anyKey : new Re.Automaton(otherKeys);
        if (v != NEVER) {
          out.add(seq(lit(in + "\""), key, lit("\"" + colon), v));
        }
      }
      return out.isEmpty() ? null : alt(out);
    }

    /**
     * What {@code dependencies} / {@code dependentRequired} / {@code dependentSchemas} require: for
     * each member {@code p}, "p absent, or the object meets the dependent schema". A dependent
     * schema that also constrains member values ({@link #conditionOnly}) adds its value
     * constraints to {@code constraints}, referred to by {@link Presence.Meets}.
     */
    Presence dependencies(ObjectNode o, String ptr, List<ValueConstraint> constraints) {
      List<Presence> all = new ArrayList<>();
      for (String kw : List.of("dependencies", "dependentRequired", "dependentSchemas")) {
        JsonNode deps = o.get(kw);
        if (deps == null) {
          continue;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = deps.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          JsonNode d = e.getValue();
          String p = ptr + "/" + kw + "/" + escapePointer(e.getKey());
          Presence then;
          if (d.isArray()) {
            List<Presence> names = new ArrayList<>();
            d.forEach(n -> names.add(new Presence.Has(n.asText())));
            then = Presence.and(names);
          } else if (presenceOnly(d, o)) {
            then = presence(d);
          } else {
            String why = null;
            int before = constraints.size();
            then = null;
            if (conditionOnly(d, 0)) {
              try {
                then = condition(d, p, o, e.getKey(), constraints);
              } catch (JsonSchemaException x) {
                why = x.getMessage();
              }
            } else {
              why = "a dependent schema is supported when it asserts which members are present (required, anyOf, ...)"
                  + " and what their values meet (properties)";
            }
            if (then == null) {
              constraints.subList(before, constraints.size()).clear();
              if (requiredHere(o, e.getKey())) {
                cannot(kw, p, why);
                continue;
              }
              // Leaving the member out satisfies the dependency: a part of the valid objects.
              narrowed.add("#" + p + ": member \"" + e.getKey() + "\" is not generated (" + why + ")");
              then = Presence.FALSE;
            }
          }
          all.add(Presence.or(List.of(Presence.not(new Presence.Has(e.getKey())), then)));
        }
      }
      return Presence.and(all);
    }

    static boolean requiredHere(ObjectNode o, String name) {
      return containsValue(o.path("required"), JsonNodeFactory.instance.textNode(name));
    }

    /** Keywords a dependent schema may hold to be written out as a {@link #condition}. */
    static final Set<String> CONDITION_KEYWORDS = Set.of("required", "properties", "type", "anyOf", "oneOf", "allOf",
        "not", "$ref");

    /**
     * Whether {@code s} (a dependent schema, applied to the object itself) says nothing but which
     * members are present and which schemas their values meet: {@code required}, {@code
     * properties}, {@code type}, and {@code anyOf}/{@code oneOf}/{@code allOf} of such, {@code not}
     * of presence only.
     */
    boolean conditionOnly(JsonNode s, int depth) {
      if (s.isBoolean()) {
        return true;
      }
      if (!s.isObject() || depth > 8) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String k = e.getKey();
        JsonNode v = e.getValue();
        if (ANNOTATIONS.contains(k) || (!HANDLED.contains(k) && !UNSUPPORTED.contains(k))) {
          continue;
        }
        boolean ok = switch (k) {
          case "required" -> v.isArray();
          case "properties" -> v.isObject();
          case "type" -> true;
          case "not" -> presenceOnly(v);
          case "$ref" -> v.isTextual() && localTarget(v.asText(), s) != null
              && conditionOnly(localTarget(v.asText(), s).node(), depth + 1);
          case "anyOf", "oneOf", "allOf" -> {
            boolean all = v.isArray();
            for (JsonNode b : v) {
              all &= conditionOnly(b, depth + 1);
            }
            yield all;
          }
          default -> false;
        };
        if (!ok) {
          return false;
        }
      }
      return true;
    }

    /**
     * The formula of a {@link #conditionOnly} schema {@code s} for an instance of object schema
     * {@code o}. {@code properties} become "member absent, or its value meets the schema" (a new
     * constraint); {@link Presence.Meets} appears only positively, so writing a member in a
     * version that claims fewer constraints than its value meets never makes a valid object
     * invalid, and every valid object has a version choice that satisfies the formula.
     */
    Presence condition(JsonNode s, String ptr, ObjectNode o, String key, List<ValueConstraint> constraints) {
      if (s.isBoolean()) {
        return s.asBoolean() ? Presence.TRUE : Presence.FALSE;
      }
      List<Presence> all = new ArrayList<>();
      if (s.path("$ref").isTextual()) {
        all.add(condition(target(s.get("$ref").asText(), s, ptr).node(), ptr, o, key, constraints));
      }
      s.path("required").forEach(n -> all.add(new Presence.Has(n.asText())));
      if (s.has("type")) {
        JsonNode t = s.get("type");
        boolean object = t.isArray() ? containsValue(t, JsonNodeFactory.instance.textNode("object")) : t.asText().equals("object");
        all.add(object ? Presence.TRUE : Presence.FALSE);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = s.path("properties").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode c = e.getValue();
        if (c.isBoolean() && c.asBoolean() || c.isObject() && !hasAssertions((ObjectNode) c) && !c.has("$ref")) {
          continue; // met by every value
        }
        Presence has = new Presence.Has(e.getKey());
        if (Disjoint.isFalse(c)) {
          all.add(Presence.not(has));
          continue;
        }
        constraints.add(new ValueConstraint(e.getKey(), c, ptr + "/properties/" + escapePointer(e.getKey())));
        all.add(Presence.or(List.of(Presence.not(has), new Presence.Meets(e.getKey(), constraints.size() - 1))));
      }
      if (s.has("not")) {
        all.add(Presence.not(presence(s.get("not"))));
      }
      for (String k : List.of("allOf", "anyOf", "oneOf")) {
        if (!s.has(k)) {
          continue;
        }
        JsonNode branches = s.get(k);
        if (k.equals("oneOf")) {
          boolean presenceBranches = true;
          for (JsonNode b : branches) {
            presenceBranches &= presenceOnly(b, o);
          }
          if (presenceBranches) {
            List<Presence> items = new ArrayList<>();
            branches.forEach(b -> items.add(presence(b)));
            all.add(Presence.exactlyOne(items));
            continue;
          }
          if (!branchesDisjoint(branches, o, key, ptr)) {
            cannot("oneOf", ptr, "its branches constrain member values and may both hold for one object, so exactly-one"
                + " could not be enforced");
            continue;
          }
        }
        List<Presence> items = new ArrayList<>();
        for (int i = 0; i < branches.size(); i++) {
          items.add(condition(branches.get(i), ptr + "/" + k + "/" + i, o, key, constraints));
        }
        all.add(k.equals("allOf") ? Presence.and(items) : Presence.or(items));
      }
      return Presence.and(all);
    }

    /**
     * Whether no object valid against {@code o} that has member {@code key} is valid against two of
     * {@code branches} ({@link Disjoint}, each branch read as an object schema with the object's
     * {@code required} and {@code key}).
     */
    boolean branchesDisjoint(JsonNode branches, ObjectNode o, String key, String ptr) {
      int mark = followed.size();
      Disjoint proof = disjointness(ptr);
      try {
        List<JsonNode> withRequired = new ArrayList<>();
        for (JsonNode b : branches) {
          JsonNode r = resolveShallow(b, ptr);
          if (r.isObject()) {
            ObjectNode copy = ((ObjectNode) r).deepCopy();
            Set<String> names = new LinkedHashSet<>();
            r.path("required").forEach(n -> names.add(n.asText()));
            o.path("required").forEach(n -> names.add(n.asText()));
            names.add(key);
            ArrayNode req = copy.putArray("required");
            names.forEach(req::add);
            if (!copy.has("type")) {
              copy.put("type", "object");
            }
            r = copy;
          }
          withRequired.add(r);
        }
        for (int i = 0; i < withRequired.size(); i++) {
          for (int j = i + 1; j < withRequired.size(); j++) {
            if (!proof.proven(withRequired.get(i), withRequired.get(j))) {
              return false;
            }
          }
        }
        return true;
      } catch (ConstraintException e) {
        return false;
      } finally {
        followed.subList(mark, followed.size()).clear();
      }
    }

    /** Keywords a schema may hold and still say nothing but which object members are present. */
    static final Set<String> PRESENCE_KEYWORDS = Set.of("required", "anyOf", "oneOf", "allOf", "not");

    /**
     * Whether {@code s} only asserts which members are present: {@code required}, and
     * {@code anyOf}/{@code oneOf}/{@code allOf}/{@code not} of such schemas (besides annotations).
     * Such a schema holds for every instance that is not an object.
     */
    boolean presenceOnly(JsonNode s) {
      return presenceOnly(s, null);
    }

    /**
     * {@link #presenceOnly(JsonNode)}, where {@code object} (the object schema the keywords apply
     * to, or null) makes two more keywords say nothing new: {@code properties} whose member schemas
     * are the object's own ones (annotations aside), and {@code "type": "object"} when the object
     * schema is of that type only (a common way of writing {@code oneOf} over groups of required
     * members).
     */
    boolean presenceOnly(JsonNode s, ObjectNode object) {
      if (s.isBoolean()) {
        return true;
      }
      if (!s.isObject()) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String k = e.getKey();
        if (ANNOTATIONS.contains(k) || (!HANDLED.contains(k) && !UNSUPPORTED.contains(k))) {
          continue;
        }
        JsonNode v = e.getValue();
        if (object != null && k.equals("properties") && v.isObject() && repeatsProperties(v, object.path("properties"))) {
          continue;
        }
        if (object != null && k.equals("type") && v.isTextual() && v.asText().equals("object")
            && object.path("type").isTextual() && object.get("type").asText().equals("object")) {
          continue;
        }
        if (!PRESENCE_KEYWORDS.contains(k)) {
          return false;
        }
        switch (k) {
          case "required" -> {
            if (!v.isArray()) {
              return false;
            }
          }
          case "not" -> {
            if (!presenceOnly(v, object)) {
              return false;
            }
          }
          default -> {
            if (!v.isArray()) {
              return false;
            }
            for (JsonNode b : v) {
              if (!presenceOnly(b, object)) {
                return false;
              }
            }
          }
        }
      }
      return true;
    }

    /** Whether every member schema in {@code props} is the one in {@code own}, annotations aside. */
    static boolean repeatsProperties(JsonNode props, JsonNode own) {
      for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode mine = own.get(e.getKey());
        if (mine == null || !withoutAnnotations(mine).equals(withoutAnnotations(e.getValue()))) {
          return false;
        }
      }
      return true;
    }

    static JsonNode withoutAnnotations(JsonNode s) {
      if (!s.isObject()) {
        return s;
      }
      ObjectNode copy = ((ObjectNode) s).deepCopy();
      copy.remove(ANNOTATIONS);
      return copy;
    }

    /** The formula of a {@link #presenceOnly} schema, for an object instance. */
    Presence presence(JsonNode s) {
      if (s.isBoolean()) {
        return s.asBoolean() ? Presence.TRUE : Presence.FALSE;
      }
      List<Presence> all = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode v = e.getValue();
        switch (e.getKey()) {
          case "required" -> v.forEach(n -> all.add(new Presence.Has(n.asText())));
          case "not" -> all.add(Presence.not(presence(v)));
          case "anyOf", "oneOf", "allOf" -> {
            List<Presence> items = new ArrayList<>();
            v.forEach(b -> items.add(presence(b)));
            all.add(e.getKey().equals("anyOf") ? Presence.or(items)
                : e.getKey().equals("oneOf") ? Presence.exactlyOne(items) : Presence.and(items));
          }
          default -> { }
        }
      }
      return Presence.and(all);
    }

    /**
     * Roughly the NFA states of {@code re}: its nodes with a node that occurs several times counted
     * once (the NFA shares it), a bounded repetition's item once per copy, an automaton's states.
     */
    static long size(Re re) {
      return size(re, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    }

    private static long size(Re re, Set<Re> seen) {
      if (!(re instanceof Re.Chars || re instanceof Re.Empty) && !seen.add(re)) {
        return 1;
      }
      if (re instanceof Re.Concat c) {
        long n = 1;
        for (Re r : c.items()) {
          n += size(r, seen);
        }
        return n;
      }
      if (re instanceof Re.Alt a) {
        long n = 1;
        for (Re r : a.options()) {
          n += size(r, seen);
        }
        return n;
      }
      if (re instanceof Re.Repeat r) {
        return 1 + size(r.item(), seen) * Math.max(1, Math.max(r.min(), r.max()));
      }
      if (re instanceof Re.Automaton a) {
        return a.dfa().stateCount();
      }
      return 1;
    }

    // --- patternProperties

    /** The decoded-name automata of patternProperties patterns (empty: matches nothing). */
    final Map<String, Optional<Dfa>> namePatterns = new HashMap<>();

    /** Whether member name {@code name} matches {@code pattern} (searched, as JSON Schema reads it). */
    boolean nameMatches(String pattern, String name, String ptr) {
      Re decoded;
      try {
        decoded = EcmaPattern.searchLanguage(pattern);
      } catch (ConstraintException e) {
        cannot("patternProperties", ptr, "outside Leap's regex dialect: " + e.getMessage().lines().findFirst().orElse(""));
        return false;
      }
      Dfa dfa = namePatterns.computeIfAbsent(pattern, k -> Optional.ofNullable(
          Automata.compile(decoded, "patternProperties", opt.maxDfaStates()))).orElse(null);
      return dfa != null && dfa.matches(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** {@code schema} of listed member {@code name}, merged with the patternProperties it matches. */
    JsonNode patternPropertiesMerged(ObjectNode o, String name, JsonNode schema, String ptr) {
      JsonNode extra = patternSchemaFor(o, name, ptr);
      return extra == null ? schema : merge(schema, extra, ptr);
    }

    /** The patternProperties schemas that apply to member {@code name}, merged; null if none. */
    JsonNode patternSchemaFor(ObjectNode o, String name, String ptr) {
      JsonNode pp = o.get("patternProperties");
      if (pp == null) {
        return null;
      }
      JsonNode acc = null;
      for (Iterator<Map.Entry<String, JsonNode>> it = pp.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String p = ptr + "/patternProperties/" + escapePointer(e.getKey());
        if (nameMatches(e.getKey(), name, p)) {
          acc = acc == null ? e.getValue() : merge(acc, e.getValue(), p);
        }
      }
      return acc;
    }

    String quote(String s) {
      try {
        return mapper.writeValueAsString(s);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    static String escapePointer(String s) {
      return s.replace("~", "~0").replace("/", "~1");
    }

    // --- arrays

    Re array(ObjectNode o, String ptr, int level) {
      int min = o.has("minItems") ? nonNegative(o, "minItems", ptr) : 0;
      int max = o.has("maxItems") ? nonNegative(o, "maxItems", ptr) : -1;
      if (o.path("uniqueItems").asBoolean(false) && (max < 0 || max > 1)) {
        cannot("uniqueItems", ptr, "unique items are not expressible as a regular language");
      }
      if (max >= 0 && max < min) {
        return NEVER;
      }
      List<Re> prefix = new ArrayList<>();
      Re rest;
      JsonNode items = o.get("items");
      if (o.has("prefixItems") || (items != null && items.isArray())) {
        JsonNode pi = o.has("prefixItems") ? o.get("prefixItems") : items;
        String key = o.has("prefixItems") ? "prefixItems" : "items";
        for (int i = 0; i < pi.size(); i++) {
          prefix.add(value(pi.get(i), ptr + "/" + key + "/" + i, level + 1));
        }
        JsonNode after = o.has("prefixItems") ? items : o.get("additionalItems");
        rest = after == null ? any(level + 1, ANY_DEPTH - 1) : value(after, ptr + "/" + (o.has("prefixItems") ? "items" : "additionalItems"), level + 1);
      } else {
        rest = items == null ? any(level + 1, ANY_DEPTH - 1) : value(items, ptr + "/items", level + 1);
      }
      String in = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * (level + 1));
      String out = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * level);
      int k = prefix.size();
      if (min > RegexParser.MAX_REPEAT || max > RegexParser.MAX_REPEAT) {
        cannot(max > RegexParser.MAX_REPEAT ? "maxItems" : "minItems", ptr, "item counts above " + RegexParser.MAX_REPEAT);
        min = Math.min(min, RegexParser.MAX_REPEAT);
        max = -1;
      }
      // Elements after the first are preceded by a comma; element i is the prefix schema or rest.
      // tail(i): the elements from index i on, given that element i-1 was written.
      Re tail = null;
      int restMin = Math.max(0, min - k);
      int restMax = max < 0 ? -1 : Math.max(0, max - k);
      Re restItems = (max >= 0 && max <= k) ? Re.EMPTY : rep(seq(lit("," + in), rest), restMin, restMax);
      tail = restItems;
      for (int i = k - 1; i >= 1; i--) {
        if (max >= 0 && i >= max) {
          continue;
        }
        Re here = seq(lit("," + in), prefix.get(i), tail);
        tail = i < min ? here : opt(here);
      }
      Re elements;
      if (k > 0) {
        elements = (max == 0) ? null : seq(lit(in), prefix.get(0), tail);
      } else {
        elements = (max == 0) ? null : seq(lit(in), rest, rep(seq(lit("," + in), rest), Math.max(0, min - 1), max < 0 ? -1 : max - 1));
      }
      if (elements == null) {
        return lit("[]");
      }
      Re body = seq(lit("["), elements, lit(out + "]"));
      return min == 0 ? alt(List.of(lit("[]"), body)) : body;
    }

    // --- any value

    final Map<Long, Re> anyMemo = new HashMap<>();

    /** Any JSON value nested at most {@code depth} levels, as one shared (minimized) node per (level, depth). */
    Re any(int level, int depth) {
      long key = ((long) (opt.indent() < 0 ? 0 : level) << 32) | depth;
      Re re = anyMemo.get(key);
      if (re == null) {
        re = anyTree(level, depth);
        if (automata) {
          re = new Re.Automaton(Automata.compile(re, "JSON Schema", opt.maxDfaStates()));
        }
        anyMemo.put(key, re);
      }
      return re;
    }

    private Re anyTree(int level, int depth) {
      List<Re> opts = new ArrayList<>(List.of(lit("null"), lit("true"), lit("false"),
          number(JsonNodeFactory.instance.objectNode(), ""), seq(lit("\""), rep(anyStringChar(), 0, -1), lit("\""))));
      if (depth > 0) {
        String in = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * (level + 1));
        String out = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * level);
        String colon = opt.indent() < 0 ? ":" : ": ";
        Re inner = any(level + 1, depth - 1);
        Re key = seq(lit("\""), rep(anyStringChar(), 0, -1), lit("\""));
        Re member = seq(lit(in), key, lit(colon), inner);
        opts.add(alt(List.of(lit("[]"), seq(lit("[" + in), inner, rep(seq(lit("," + in), inner), 0, -1), lit(out + "]")))));
        opts.add(alt(List.of(lit("{}"), seq(lit("{"), member, rep(seq(lit(","), member), 0, -1), lit(out + "}")))));
      }
      return alt(opts);
    }

    // --- combinators

    Re alternatives(ObjectNode o, String ptr, int level) {
      String key = o.has("oneOf") ? "oneOf" : "anyOf";
      if (o.has("oneOf") && o.has("anyOf")) {
        cannot("anyOf", ptr, "anyOf beside oneOf");
      }
      ObjectNode siblings = o.deepCopy();
      siblings.remove(key);
      JsonNode arr = o.get(key);
      JsonNode kinds = key.equals("oneOf") && arr.size() > 1 ? oneOfKinds(siblings, arr, ptr) : null;
      List<Re> branches = new ArrayList<>();
      for (int i = 0; i < arr.size(); i++) {
        JsonNode b = arr.get(i);
        String p = ptr + "/" + key + "/" + i;
        if (hasAssertions(siblings) || kinds != null) {
          branches.add(valueOfMerge(() -> {
            JsonNode merged = hasAssertions(siblings) ? merge(siblings, b, p) : b;
            return kinds == null ? merged : merge(merged, kinds, p);
          }, p, level));
        } else {
          branches.add(value(b, p, level));
        }
      }
      return alt(branches);
    }

    /**
     * For oneOf: null if no value can be valid against two branches (then exactly-one is
     * alternation), else a schema {@code {"type": [...]}} of the kinds of value on which the
     * branches are proven disjoint, to merge into every branch (the other kinds are not generated,
     * and that is noted). Fails (naming oneOf) if there is no such kind.
     */
    JsonNode oneOfKinds(ObjectNode siblings, JsonNode arr, String ptr) {
      int mark = followed.size();
      try {
        List<JsonNode> schemas = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
          schemas.add(hasAssertions(siblings) ? merge(siblings, arr.get(i), ptr + "/oneOf/" + i) : arr.get(i));
        }
        Disjoint proof = disjointness(ptr);
        Set<Disjoint.Kind> allowed = EnumSet.noneOf(Disjoint.Kind.class);
        for (JsonNode sch : schemas) {
          JsonNode r = proof.resolved(sch);
          allowed.addAll(r.isObject() ? Disjoint.kinds(r) : r.asBoolean() ? EnumSet.allOf(Disjoint.Kind.class) : Set.of());
        }
        Set<Disjoint.Kind> ok = EnumSet.copyOf(allowed);
        for (int i = 0; i < schemas.size(); i++) {
          for (int j = i + 1; j < schemas.size(); j++) {
            ok.retainAll(proof.provenKinds(schemas.get(i), schemas.get(j)));
          }
        }
        if (allowed.contains(Disjoint.Kind.OBJECT) && !ok.contains(Disjoint.Kind.OBJECT)) {
          // Objects Leap generates for a branch have only its listed members: it is enough that
          // no such object is valid against another branch (branch i read as closed).
          boolean each = true;
          for (int i = 0; i < schemas.size() && each; i++) {
            JsonNode closed = asGenerated(proof.resolved(schemas.get(i)));
            for (int j = 0; j < schemas.size() && each; j++) {
              each = i == j || proof.provenKinds(closed, schemas.get(j)).contains(Disjoint.Kind.OBJECT);
            }
          }
          if (each) {
            ok.add(Disjoint.Kind.OBJECT);
          }
        }
        if (ok.equals(allowed)) {
          return null;
        }
        List<String> types = new ArrayList<>();
        for (Disjoint.Kind k : ok) {
          switch (k) {
            case NULL -> types.add("null");
            case BOOLEAN -> types.add("boolean");
            case OBJECT -> types.add("object");
            case ARRAY -> types.add("array");
            case STRING -> types.add("string");
            case WHOLE -> types.add(ok.contains(Disjoint.Kind.FRACTION) ? "number" : "integer");
            default -> { } // numbers that are not whole alone have no type of their own
          }
        }
        if (types.isEmpty()) {
          cannot("oneOf", ptr, "its branches may both hold for one value (Leap proves oneOf branches disjoint, kind of"
              + " value by kind, by type, const/enum, numeric bounds, string lengths and patterns, or a member one requires"
              + " and the other forbids or requires with a disjoint value), so exactly-one could not be enforced");
          return null;
        }
        Set<Disjoint.Kind> dropped = EnumSet.copyOf(allowed);
        dropped.removeAll(ok);
        narrowed.add((ptr.isEmpty() ? "#" : "#" + ptr) + "/oneOf: values of kind " + dropped.toString().toLowerCase(java.util.Locale.ROOT)
            + " are not generated (more than one branch may hold for them)");
        ObjectNode t = JsonNodeFactory.instance.objectNode();
        ArrayNode list = t.putArray("type");
        types.forEach(list::add);
        return t;
      } finally {
        followed.subList(mark, followed.size()).clear();
      }
    }

    /**
     * A schema valid for (at least) every object Leap generates for {@code s}: with {@code
     * properties} and no explicit {@code additionalProperties} or {@code patternProperties}, Leap
     * writes only the listed members (and those {@code required} names), so {@code s} closed with
     * {@code additionalProperties: false} after listing the required ones; else (also where presence
     * keywords may name further members) {@code s} itself.
     */
    static JsonNode asGenerated(JsonNode s) {
      if (!s.isObject() || !s.has("properties") || s.has("additionalProperties") || s.has("patternProperties")) {
        return s;
      }
      for (String k : List.of("dependencies", "dependentRequired", "dependentSchemas", "anyOf", "oneOf", "allOf", "not", "$ref")) {
        if (s.has(k)) {
          return s; // they may name further members that Leap then generates
        }
      }
      ObjectNode closed = ((ObjectNode) s).deepCopy();
      ObjectNode props = ((ObjectNode) closed.get("properties")).deepCopy();
      s.path("required").forEach(r -> {
        if (!props.has(r.asText())) {
          props.set(r.asText(), JsonNodeFactory.instance.booleanNode(true));
        }
      });
      closed.set("properties", props);
      closed.put("additionalProperties", false);
      return closed;
    }

    /** The disjointness prover, resolving references and merging allOf as this converter does. */
    Disjoint disjointness(String ptr) {
      return new Disjoint(x -> {
        try {
          return resolveShallow(x, ptr);
        } catch (ConstraintException e) {
          return JsonNodeFactory.instance.booleanNode(true); // a merge Leap cannot do proves nothing
        }
      });
    }

    boolean hasAssertions(ObjectNode o) {
      for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!ANNOTATIONS.contains(k) && (HANDLED.contains(k) || UNSUPPORTED.contains(k))) {
          return true;
        }
      }
      return false;
    }

    ObjectNode mergeAllOf(ObjectNode o, String ptr) {
      ObjectNode base = o.deepCopy();
      base.remove("allOf");
      JsonNode all = o.get("allOf");
      JsonNode acc = base;
      for (int i = 0; i < all.size(); i++) {
        acc = merge(acc, all.get(i), ptr + "/allOf/" + i);
      }
      if (!acc.isObject()) {
        throw unsupported("allOf", ptr, "allOf of boolean schemas");
      }
      return (ObjectNode) acc;
    }

    /** Merges two schemas that must both hold, where that is simple; otherwise fails naming allOf. */
    JsonNode merge(JsonNode a, JsonNode b, String ptr) {
      a = resolveShallow(a, ptr);
      b = resolveShallow(b, ptr);
      if (a.isBoolean()) {
        return a.asBoolean() ? b : a;
      }
      if (b.isBoolean()) {
        return b.asBoolean() ? a : b;
      }
      for (JsonNode[] pair : new JsonNode[][] {{a, b}, {b, a}}) {
        boolean tuple = pair[0].has("prefixItems") || pair[0].path("items").isArray();
        boolean list = pair[1].has("items") && !pair[1].path("items").isArray() && !pair[1].has("prefixItems");
        if (tuple && list) {
          // items then applies to every element on one side and only past the tuple on the other.
          throw unsupported("allOf", ptr, "prefixItems on one side and items on the other do not merge simply");
        }
      }
      ObjectNode out = ((ObjectNode) a).deepCopy();
      for (Iterator<Map.Entry<String, JsonNode>> it = b.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String k = e.getKey();
        JsonNode v = e.getValue();
        JsonNode have = out.get(k);
        if (have == null || have.equals(v) || ANNOTATIONS.contains(k)) {
          if (have == null) {
            out.set(k, v);
          }
          continue;
        }
        switch (k) {
          case "properties" -> {
            ObjectNode props = ((ObjectNode) have).deepCopy();
            for (Iterator<Map.Entry<String, JsonNode>> pi = v.fields(); pi.hasNext(); ) {
              Map.Entry<String, JsonNode> pe = pi.next();
              JsonNode prev = props.get(pe.getKey());
              props.set(pe.getKey(), prev == null ? pe.getValue() : merge(prev, pe.getValue(), ptr + "/properties/" + pe.getKey()));
            }
            out.set(k, props);
          }
          case "required" -> {
            Set<String> req = new LinkedHashSet<>();
            have.forEach(x -> req.add(x.asText()));
            v.forEach(x -> req.add(x.asText()));
            ArrayNode arr = out.putArray("required");
            req.forEach(arr::add);
          }
          case "type" -> {
            Set<String> ta = new LinkedHashSet<>();
            if (have.isArray()) {
              have.forEach(x -> ta.add(x.asText()));
            } else {
              ta.add(have.asText());
            }
            Set<String> tb = new LinkedHashSet<>();
            if (v.isArray()) {
              v.forEach(x -> tb.add(x.asText()));
            } else {
              tb.add(v.asText());
            }
            if (ta.contains("number") && tb.contains("integer")) {
              ta.add("integer");
            }
            if (tb.contains("number") && ta.contains("integer")) {
              tb.add("integer");
            }
            ta.retainAll(tb);
            ArrayNode arr = out.putArray("type");
            ta.forEach(arr::add);
          }
          case "minimum", "minLength", "minItems", "exclusiveMinimum" -> {
            if (have.isNumber() && v.isNumber()) {
              out.set(k, have.decimalValue().compareTo(v.decimalValue()) >= 0 ? have : v);
            } else {
              throw unsupported("allOf", ptr, "conflicting " + k);
            }
          }
          case "maximum", "maxLength", "maxItems", "exclusiveMaximum" -> {
            if (have.isNumber() && v.isNumber()) {
              out.set(k, have.decimalValue().compareTo(v.decimalValue()) <= 0 ? have : v);
            } else {
              throw unsupported("allOf", ptr, "conflicting " + k);
            }
          }
          case "additionalProperties" -> {
            if (have.isBoolean() && !have.asBoolean() || v.isBoolean() && !v.asBoolean()) {
              out.put(k, false);
            } else {
              out.set(k, merge(have, v, ptr + "/additionalProperties"));
            }
          }
          case "items" -> out.set(k, merge(have, v, ptr + "/items"));
          case "enum", "const" -> {
            // Values in both (a value equal in JSON but written differently is dropped: a subset).
            List<JsonNode> mine = new ArrayList<>();
            if (k.equals("enum")) {
              have.forEach(mine::add);
            } else {
              mine.add(have);
            }
            ArrayNode both = JsonNodeFactory.instance.arrayNode();
            for (JsonNode x : mine) {
              boolean inOther = k.equals("enum") ? containsValue(v, x) : x.equals(v);
              if (inOther) {
                both.add(x);
              }
            }
            out.remove("const");
            out.set("enum", both);
          }
          default -> {
            if (!HANDLED.contains(k) && !UNSUPPORTED.contains(k)) {
              continue; // unknown keywords assert nothing
            }
            throw unsupported("allOf", ptr, "the schemas disagree on '" + k + "' and do not merge simply");
          }
        }
      }
      if (!a.has("patternProperties") && !b.has("patternProperties")) {
        // A member that one side lists and the other does not is an additional property of the
        // other side: its schema also meets that side's additionalProperties (false: forbidden).
        ObjectNode props = out.has("properties") ? ((ObjectNode) out.get("properties")).deepCopy()
            : JsonNodeFactory.instance.objectNode();
        List<String> names = new ArrayList<>();
        props.fieldNames().forEachRemaining(names::add);
        for (String name : names) {
          for (JsonNode side : new JsonNode[] {a, b}) {
            if (!side.path("properties").has(name) && side.has("additionalProperties")) {
              props.set(name, merge(props.get(name), side.get("additionalProperties"), ptr + "/properties/" + escapePointer(name)));
            }
          }
        }
        if (!names.isEmpty()) {
          out.set("properties", props);
        }
        return out;
      }
      // With patterns, which members are additional depends on the patterns too: a member that one
      // side lists and the other side forbids is left out (a part of the valid objects).
      Set<String> allowed = null;
      for (JsonNode side : new JsonNode[] {a, b}) {
        JsonNode ap = side.get("additionalProperties");
        if (ap == null || (ap.isBoolean() && ap.asBoolean())) {
          continue;
        }
        Set<String> names = new LinkedHashSet<>();
        side.path("properties").fieldNames().forEachRemaining(names::add);
        if (!ap.isBoolean()) {
          JsonNode other = side == a ? b : a;
          for (Iterator<String> it = other.path("properties").fieldNames(); it.hasNext(); ) {
            if (!names.contains(it.next())) {
              throw unsupported("allOf", ptr, "additionalProperties as a schema beside properties from another branch");
            }
          }
          continue;
        }
        if (allowed == null) {
          allowed = names;
        } else {
          allowed.retainAll(names);
        }
      }
      if (allowed != null) {
        ObjectNode props = out.has("properties") ? ((ObjectNode) out.get("properties")).deepCopy()
            : JsonNodeFactory.instance.objectNode();
        Set<String> keep = allowed;
        props.retain(keep);
        out.set("properties", props);
        out.put("additionalProperties", false);
      }
      return out;
    }

    static boolean containsValue(JsonNode array, JsonNode x) {
      for (JsonNode y : array) {
        if (y.equals(x)) {
          return true;
        }
      }
      return false;
    }

    /** Follows a top-level $ref (for merging); recursion is left to {@link #ref}. */
    JsonNode resolveShallow(JsonNode s, String ptr) {
      int guard = 0;
      while (s.isObject() && s.has("$ref") && guard++ < 8) {
        SchemaIndex.Target t = target(s.get("$ref").asText(), s, ptr);
        followed.add(t.key());
        JsonNode target = t.node();
        ObjectNode rest = ((ObjectNode) s).deepCopy();
        rest.remove("$ref");
        if (rest.isEmpty()) {
          s = target;
        } else {
          JsonNode copy = target.isObject() ? ((ObjectNode) target).deepCopy() : target;
          s = merge(copy, rest, ptr);
        }
      }
      if (s.isObject() && s.has("allOf")) {
        s = mergeAllOf((ObjectNode) s, ptr);
      }
      return s;
    }

    /**
     * The value of a schema that merging produced ({@code null} if the merge gives none). A merge
     * inlines the targets of the references it follows, so they count as expansions of those
     * references, as in {@link #ref}: recursion through {@code allOf} is unrolled to {@link
     * JsonSchemaOptions#maxRecursion} like any other.
     */
    Re valueOfMerge(java.util.function.Supplier<JsonNode> merge, String ptr, int level) {
      int mark = followed.size();
      JsonNode merged;
      List<String> refs;
      try {
        merged = merge.get();
      } finally {
        List<String> tail = followed.subList(mark, followed.size());
        refs = new ArrayList<>(new LinkedHashSet<>(tail));
        tail.clear();
      }
      if (merged == null) {
        return null;
      }
      for (String r : refs) {
        if (refDepth.getOrDefault(r, 0) >= opt.maxRecursion()) {
          return NEVER; // as in ref(): deeper values cannot be generated
        }
      }
      refs.forEach(r -> refDepth.merge(r, 1, Integer::sum));
      try {
        return value(merged, ptr, level);
      } finally {
        refs.forEach(r -> refDepth.merge(r, -1, Integer::sum));
      }
    }

    Re ref(ObjectNode o, String ptr, int level) {
      SchemaIndex.Target t = target(o.get("$ref").asText(), o, ptr);
      String key = t.key();
      int depth = refDepth.getOrDefault(key, 0);
      if (depth >= opt.maxRecursion()) {
        return NEVER; // recursion unrolled as far as allowed: deeper values cannot be generated
      }
      JsonNode target = t.node();
      ObjectNode rest = o.deepCopy();
      rest.remove("$ref");
      refDepth.put(key, depth + 1);
      try {
        return hasAssertions(rest) ? valueOfMerge(() -> merge(target, rest, ptr), ptr, level) : value(target, ptr, level);
      } finally {
        refDepth.put(key, depth);
      }
    }

    /** The target of {@code ref}, written in node {@code at}, and its canonical name. */
    SchemaIndex.Target target(String ref, JsonNode at, String ptr) {
      SchemaIndex.Target t;
      try {
        t = index.resolve(ref, at);
      } catch (IllegalArgumentException e) {
        throw unsupported("$ref", ptr, e.getMessage());
      }
      if (t == null) {
        throw unsupported("$ref", ptr, "reference " + ref + " does not resolve within the schema document (Leap"
            + " resolves $id, $anchor and JSON pointers in the document and fetches nothing)");
      }
      return t;
    }

    JsonNode resolve(String ref, JsonNode at, String ptr) {
      return target(ref, at, ptr).node();
    }
  }
}
