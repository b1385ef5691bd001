package dev.leap.fsm.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * JSON Schema to a byte-level automaton: the schema becomes a regex syntax tree ({@link Re}), then
 * the regex pipeline of {@link CompressedFsm} (DFA, minimization, jump edges).
 *
 * <p>What the generated text looks like: compact JSON by default (no whitespace), or a fixed
 * indent ({@link JsonSchemaOptions#indent}): a newline and the indent before every member and
 * element, {@code ": "} between key and value. Never unbounded whitespace. Object members appear in
 * the order of {@code properties}; optional ones may be absent; members not in {@code properties}
 * are never generated (as if {@code additionalProperties} were {@code false}, whatever the schema
 * says: the outputs stay valid). An object schema without {@code properties} allows members with any
 * string key and any value nested up to {@link #ANY_DEPTH} levels. Numbers and integers are written
 * in JSON's syntax ({@code -?(0|[1-9][0-9]*)}, with fraction and exponent for numbers); integer
 * bounds are exact digit ranges. Strings use JSON escapes; {@code minLength}/{@code maxLength}
 * count code points (an escape is one character). {@code pattern} is searched, not anchored,
 * unless it starts with {@code ^} / ends with {@code $}; characters it allows that JSON must escape
 * are written with their canonical escape.
 *
 * <p>Supported: {@code type} (and lists of types), {@code properties}, {@code required},
 * {@code additionalProperties} (see above), {@code items} (schema, or array in drafts 4-7),
 * {@code prefixItems}, {@code additionalItems}, {@code minItems}/{@code maxItems}, {@code enum},
 * {@code const}, {@code minLength}/{@code maxLength}, {@code pattern} (Leap's regex dialect; with a
 * length only when the pattern is one repeated class), {@code minimum}/{@code maximum} and the
 * exclusive forms for integers (number bounds only {@code minimum: 0}), {@code anyOf},
 * {@code oneOf} (only when its branches are provably disjoint: otherwise the exclusivity could not
 * be honoured), {@code allOf} when it merges simply, local {@code $ref} with {@code $defs} /
 * {@code definitions} (recursion unrolled {@link JsonSchemaOptions#maxRecursion} times), boolean
 * schemas, and {@code format} {@code date}, {@code time}, {@code date-time}, {@code uuid},
 * {@code email}, {@code uri} (approximations: a subset of each format's strings). Annotations and
 * unknown keywords are ignored (they assert nothing). Everything else is a
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
      "uniqueItems", "multipleOf", "minProperties", "maxProperties");
  private static final Set<String> UNSUPPORTED = Set.of("patternProperties", "propertyNames", "dependentRequired",
      "dependentSchemas", "dependencies", "unevaluatedProperties", "unevaluatedItems", "contains", "minContains",
      "maxContains", "not", "if", "then", "else", "$dynamicRef", "$recursiveRef");

  /** Compiles {@code schemaJson} to a compressed FSM. */
  public static CompressedFsm compile(String schemaJson, JsonSchemaOptions options) {
    Result r = convert(schemaJson, options);
    return CompressedFsm.fromTree(r.tree(), "JSON Schema", options.maxDfaStates());
  }

  /**
   * The regex text for {@code schemaJson} (in Leap's dialect).
   *
   * @throws ConstraintException if the text would exceed {@link JsonSchemaOptions#maxRegexLength()}
   *     (shared sub-schemas are written out once per use)
   */
  public static String toRegex(String schemaJson, JsonSchemaOptions options) {
    return ReText.print(convert(schemaJson, options).tree(), options.maxRegexLength());
  }

  public static Result convert(String schemaJson, JsonSchemaOptions options) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(schemaJson);
    } catch (JsonProcessingException e) {
      throw new ConstraintException("the JSON Schema is not valid JSON: " + e.getOriginalMessage());
    }
    if (root == null) {
      throw new ConstraintException("the JSON Schema is empty");
    }
    Converter c = new Converter(root, options);
    Re tree = c.value(root, "", 0);
    return new Result(tree, List.copyOf(c.ignored));
  }

  // ---------------------------------------------------------------------------------------------

  static final Re NEVER = new Re.Chars(new int[0]);

  /** Shortest and longest string of the bounded formats (a length within them adds nothing). */
  static final Map<String, int[]> FORMAT_LENGTHS = Map.of(
      "date", new int[] {10, 10}, "time", new int[] {9, 24}, "date-time", new int[] {20, 35},
      "uuid", new int[] {36, 36}, "ipv4", new int[] {7, 15});

  private static final class Converter {
    final JsonNode root;
    final JsonSchemaOptions opt;
    final List<String> ignored = new ArrayList<>();
    final Map<String, Integer> refDepth = new HashMap<>();
    final ObjectMapper mapper = new ObjectMapper();

    Converter(JsonNode root, JsonSchemaOptions opt) {
      this.root = root;
      this.opt = opt;
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

    Re value(JsonNode s, String ptr, int level) {
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
        return value(mergeAllOf(o, ptr), ptr, level);
      }
      for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (UNSUPPORTED.contains(k)) {
          cannot(k, ptr, "not expressible as a regular language here");
        }
      }
      if (o.has("anyOf") || o.has("oneOf")) {
        return alternatives(o, ptr, level);
      }
      if (o.has("const") || o.has("enum")) {
        List<JsonNode> vals = new ArrayList<>();
        if (o.has("const")) {
          vals.add(o.get("const"));
        } else {
          o.get("enum").forEach(vals::add);
        }
        ObjectNode rest = o.deepCopy();
        rest.remove("const");
        rest.remove("enum");
        if (hasAssertions(rest)) {
          // The values must also satisfy the other keywords: keep those the rest accepts.
          Dfa restDfa;
          try {
            restDfa = CompressedFsm.fromTree(value(rest, ptr, level), "enum siblings", 20_000).dfa();
          } catch (dev.leap.fsm.EmptyLanguageException e) {
            return NEVER;
          } catch (ConstraintException e) {
            cannot("enum", ptr, "the keywords beside enum/const are too large to check its values against");
            restDfa = null;
          }
          List<JsonNode> kept = new ArrayList<>();
          for (JsonNode v : vals) {
            if (restDfa == null || restDfa.matches(serialize(v, level).getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
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
        opts.add(ofType(t, o, ptr, level));
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
          return object(o, ptr, level);
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
      if (max > RegexParser.MAX_REPEAT || min > RegexParser.MAX_REPEAT) {
        cannot("maxLength", ptr, "lengths above " + RegexParser.MAX_REPEAT + " are not supported");
        max = -1;
        min = Math.min(min, RegexParser.MAX_REPEAT);
      }
      if (max >= 0 && max < min) {
        return NEVER;
      }
      Re content;
      if (o.has("format")) {
        String f = o.get("format").asText();
        content = format(f, ptr);
        int[] span = FORMAT_LENGTHS.get(f);
        boolean lengthRedundant = span != null && min <= span[0] && (max < 0 || max >= span[1]);
        if (o.has("pattern") || ((o.has("minLength") || o.has("maxLength")) && !lengthRedundant)) {
          cannot("format", ptr, "format together with pattern or a length");
        }
      } else if (o.has("pattern")) {
        content = pattern(o.get("pattern").asText(), min, max, ptr, o.has("minLength") || o.has("maxLength"));
      } else {
        content = rep(anyStringChar(), min, max);
      }
      return seq(lit("\""), content, lit("\""));
    }

    Re format(String f, String ptr) {
      // Exact calendar dates (days per month, February 29 only in leap years); time without leap
      // seconds; email, uri: subsets of the valid strings (dot-atom addresses, host-based URLs).
      String leapYear = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)";
      String date = "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
          + "|02-(?:0[1-9]|1[0-9]|2[0-8]))|" + leapYear + "-02-29)";
      String time = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
      String atom = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+";
      String label = "[a-zA-Z0-9]+(?:-+[a-zA-Z0-9]+)*";
      String pchar = "(?:[a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
      String regex;
      switch (f) {
        case "date" -> regex = date;
        case "time" -> regex = time;
        case "date-time" -> regex = date + "T" + time;
        case "uuid" -> regex = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
        case "email" -> regex = atom + "(?:\\." + atom + ")*@" + label + "(?:\\." + label + ")*\\.[a-zA-Z]{2,24}";
        case "uri", "uri-reference", "iri", "iri-reference" -> regex = "[a-zA-Z][a-zA-Z0-9+.-]*://" + label
            + "(?:\\." + label + ")*(?::[0-9]{1,5})?(?:/" + pchar + "*)*(?:\\?(?:" + pchar + "|[/?])*)?";
        case "hostname", "idn-hostname" -> {
          String bounded = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
          regex = bounded + "(?:\\." + bounded + "){0,3}";
        }
        case "ipv4" -> {
          String octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
          regex = octet + "\\." + octet + "\\." + octet + "\\." + octet;
        }
        default -> {
          cannot("format", ptr, "format \"" + f + "\" is not supported (date, time, date-time, uuid, email, uri,"
              + " uri-reference, hostname, ipv4)");
          return rep(anyStringChar(), 0, -1);
        }
      }
      return RegexParser.parse(regex);
    }

    Re pattern(String p, int minLen, int maxLen, String ptr, boolean hasLength) {
      boolean anchoredStart = p.startsWith("^");
      boolean anchoredEnd = p.endsWith("$") && !p.endsWith("\\$");
      String inner = p.substring(anchoredStart ? 1 : 0, p.length() - (anchoredEnd ? 1 : 0));
      Re re;
      for (String neg : new String[] {"\\D", "\\W", "\\S"}) {
        if (inner.contains(neg) && !inner.contains("\\" + neg)) {
          cannot("pattern", ptr, neg + " means Unicode classes in ECMA and Python patterns; Leap's are ASCII, so its"
              + " complement would accept too much");
          return rep(anyStringChar(), minLen, maxLen);
        }
      }
      try {
        re = RegexParser.parse(inner);
      } catch (ConstraintException e) {
        cannot("pattern", ptr, "outside Leap's regex dialect: " + e.getMessage().lines().findFirst().orElse(""));
        return rep(anyStringChar(), minLen, maxLen);
      }
      if (hasLength) {
        // Only a pattern that is one repeated class combines with a length exactly.
        if (anchoredStart && anchoredEnd && re instanceof Re.Repeat r && r.item() instanceof Re.Chars) {
          int lo = Math.max(r.min(), minLen);
          int hi = r.max() < 0 ? maxLen : maxLen < 0 ? r.max() : Math.min(r.max(), maxLen);
          if (hi >= 0 && hi < lo) {
            return NEVER;
          }
          return jsonEncode(new Re.Repeat(r.item(), lo, hi));
        }
        if (anchoredStart && anchoredEnd && re instanceof Re.Chars && minLen <= 1 && (maxLen < 0 || maxLen >= 1)) {
          return jsonEncode(re);
        }
        cannot("pattern", ptr, "pattern together with minLength/maxLength (only a single repeated class combines exactly)");
      }
      Re anyChars = rep(jsonEncode(new Re.Chars(CharRanges.negate(new int[0]))), 0, -1);
      return seq(anchoredStart ? Re.EMPTY : anyChars, jsonEncode(re), anchoredEnd ? Re.EMPTY : anyChars);
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

    static final Re DIGIT = new Re.Chars(new int[] {'0', '9'});
    static final Re NONZERO = new Re.Chars(new int[] {'1', '9'});

    Re integer(ObjectNode o, String ptr) {
      if (o.has("multipleOf") && !(o.get("multipleOf").isNumber() && o.get("multipleOf").asDouble() == 1)) {
        cannot("multipleOf", ptr, "only multipleOf 1 is expressible for integers");
      }
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
      return IntegerRange.of(lo, hi);
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
      if (o.has("multipleOf")) {
        cannot("multipleOf", ptr, "multipleOf is not expressible for numbers");
      }
      Bound b = bounds(o, ptr, false);
      Re frac = opt(seq(lit("."), rep(DIGIT, 1, -1)));
      Re exp = opt(seq(new Re.Chars(CharRanges.of('E', 'E', 'e', 'e')), opt(new Re.Chars(CharRanges.of('+', '+', '-', '-'))),
          rep(DIGIT, 1, -1)));
      Re intPart = alt(List.of(lit("0"), seq(NONZERO, rep(DIGIT, 0, -1))));
      if (b.lo == null && b.hi == null) {
        return seq(opt(lit("-")), intPart, frac, exp);
      }
      boolean integral = (b.lo == null || b.lo.stripTrailingZeros().scale() <= 0)
          && (b.hi == null || b.hi.stripTrailingZeros().scale() <= 0);
      if (!integral) {
        cannot(b.lo != null ? "minimum" : "maximum", ptr, "number bounds are exact only at integers");
        return seq(opt(lit("-")), intPart, frac, exp);
      }
      BigInteger lo = b.lo == null ? null : b.lo.toBigIntegerExact();
      BigInteger hi = b.hi == null ? null : b.hi.toBigIntegerExact();
      // Plain decimals (no exponent) in the range: the non-negative side, then the negative side
      // as magnitudes with the bounds mirrored.
      List<Re> parts = new ArrayList<>();
      if (hi == null || hi.signum() > 0 || (hi.signum() == 0 && !b.hiExclusive)) {
        BigInteger l = lo == null || lo.signum() < 0 ? BigInteger.ZERO : lo;
        boolean lEx = lo != null && lo.signum() >= 0 && b.loExclusive;
        parts.add(magnitudes(l, lEx, hi, b.hiExclusive));
      }
      if (lo == null || lo.signum() < 0) {
        BigInteger ml = hi == null || hi.signum() > 0 ? BigInteger.ZERO : hi.negate();
        boolean mlEx = hi == null || hi.signum() > 0 || b.hiExclusive || hi.signum() == 0;
        Re neg = magnitudes(ml, mlEx, lo == null ? null : lo.negate(), b.loExclusive);
        parts.add(seq(lit("-"), neg));
      }
      return alt(parts);
    }

    /** Non-negative plain decimals {@code I(.F)?} between {@code l} and {@code u} (null: unbounded). */
    static Re magnitudes(BigInteger l, boolean lEx, BigInteger u, boolean uEx) {
      Re any = opt(seq(lit("."), rep(DIGIT, 1, -1)));
      Re zeros = opt(seq(lit("."), rep(lit("0"), 1, -1)));
      Re nonzero = seq(lit("."), rep(DIGIT, 0, -1), new Re.Chars(new int[] {'1', '9'}), rep(DIGIT, 0, -1));
      List<Re> parts = new ArrayList<>();
      if (u != null && u.compareTo(l) < 0) {
        return NEVER;
      }
      if (u != null && u.equals(l)) {
        if (!lEx && !uEx) {
          parts.add(seq(IntegerRange.of(l, l), zeros));
        }
        return alt(parts);
      }
      // I == l
      parts.add(seq(IntegerRange.of(l, l), lEx ? nonzero : any));
      // l < I < u
      BigInteger from = l.add(BigInteger.ONE);
      BigInteger to = u == null ? null : u.subtract(BigInteger.ONE);
      if (to == null || from.compareTo(to) <= 0) {
        parts.add(seq(IntegerRange.of(from, to), any));
      }
      // I == u
      if (u != null && !uEx) {
        parts.add(seq(IntegerRange.of(u, u), zeros));
      }
      return alt(parts);
    }

    int nonNegative(ObjectNode o, String key, String ptr) {
      JsonNode n = o.get(key);
      if (!n.canConvertToInt() || n.asInt() < 0) {
        throw unsupported(key, ptr, key + " must be a non-negative integer, found " + n);
      }
      return n.asInt();
    }

    // --- objects

    record Member(String name, Re value, boolean required) {}

    Re object(ObjectNode o, String ptr, int level) {
      if (o.has("minProperties") || o.has("maxProperties")) {
        cannot(o.has("minProperties") ? "minProperties" : "maxProperties", ptr, "property counts are not supported");
      }
      JsonNode props = o.get("properties");
      Set<String> required = new LinkedHashSet<>();
      o.path("required").forEach(r -> required.add(r.asText()));
      List<Member> members = new ArrayList<>();
      if (props != null) {
        for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          String p = ptr + "/properties/" + escapePointer(e.getKey());
          Re v = value(e.getValue(), p, level + 1);
          members.add(new Member(e.getKey(), v, required.contains(e.getKey())));
        }
      }
      JsonNode additional = o.get("additionalProperties");
      for (String r : required) {
        if (props == null || !props.has(r)) {
          Re v = additional != null && additional.isObject() ? value(additional, ptr + "/additionalProperties", level + 1)
              : additional != null && additional.isBoolean() && !additional.asBoolean() ? NEVER : any(level + 1, ANY_DEPTH - 1);
          members.add(new Member(r, v, true));
        }
      }
      String in = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * (level + 1));
      String out = opt.indent() < 0 ? "" : "\n" + " ".repeat(opt.indent() * level);
      String colon = opt.indent() < 0 ? ":" : ": ";
      if (members.isEmpty()) {
        if (props == null && (additional == null || !(additional.isBoolean() && !additional.asBoolean()))) {
          // No properties listed: any members (string keys, values per additionalProperties or any value).
          Re v = additional != null && additional.isObject() ? value(additional, ptr + "/additionalProperties", level + 1)
              : any(level + 1, ANY_DEPTH - 1);
          Re member = seq(lit(in), string(JsonNodeFactory.instance.objectNode(), ptr), lit(colon), v);
          return alt(List.of(lit("{}"), seq(lit("{"), member, rep(seq(lit(","), member), 0, -1), lit(out + "}"))));
        }
        return lit("{}");
      }
      Re[] p = new Re[members.size()];
      for (int i = 0; i < p.length; i++) {
        p[i] = seq(lit(in + quote(members.get(i).name()) + colon), members.get(i).value());
      }
      // rest[i]: members i.. after at least one member was written (each preceded by a comma).
      Re[] rest = new Re[p.length + 1];
      rest[p.length] = Re.EMPTY;
      for (int i = p.length - 1; i >= 0; i--) {
        Re m = seq(lit(","), p[i]);
        rest[i] = seq(members.get(i).required() ? m : opt(m), rest[i + 1]);
      }
      // The first member written is j: all before it are optional and absent.
      List<Re> firsts = new ArrayList<>();
      for (int j = 0; j < p.length; j++) {
        firsts.add(seq(p[j], rest[j + 1]));
        if (members.get(j).required()) {
          break;
        }
      }
      Re body = seq(lit("{"), alt(firsts), lit(out + "}"));
      boolean anyRequired = members.stream().anyMatch(Member::required);
      return anyRequired ? body : alt(List.of(lit("{}"), body));
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

    Re any(int level, int depth) {
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
      List<Re> branches = new ArrayList<>();
      JsonNode arr = o.get(key);
      for (int i = 0; i < arr.size(); i++) {
        JsonNode b = arr.get(i);
        String p = ptr + "/" + key + "/" + i;
        JsonNode merged = hasAssertions(siblings) ? merge(siblings, b, p) : b;
        branches.add(value(merged, p, level));
      }
      if (key.equals("oneOf") && branches.size() > 1) {
        checkDisjoint(branches, ptr);
      }
      return alt(branches);
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

    void checkDisjoint(List<Re> branches, String ptr) {
      List<Dfa> dfas = new ArrayList<>();
      for (Re b : branches) {
        try {
          dfas.add(CompressedFsm.fromTree(b, "oneOf branch", 2_000).dfa());
        } catch (dev.leap.fsm.EmptyLanguageException e) {
          dfas.add(null);
        } catch (ConstraintException e) {
          cannot("oneOf", ptr, "its branches are too large to prove them disjoint");
          return;
        }
      }
      for (int i = 0; i < dfas.size(); i++) {
        for (int j = i + 1; j < dfas.size(); j++) {
          if (dfas.get(i) != null && dfas.get(j) != null && intersects(dfas.get(i), dfas.get(j))) {
            cannot("oneOf", ptr, "branches " + i + " and " + j + " overlap, so exactly-one could not be enforced");
            return;
          }
        }
      }
    }

    static boolean intersects(Dfa a, Dfa b) {
      java.util.ArrayDeque<long[]> queue = new java.util.ArrayDeque<>();
      Set<Long> seen = new java.util.HashSet<>();
      queue.add(new long[] {a.initialState(), b.initialState()});
      seen.add(0L);
      while (!queue.isEmpty()) {
        long[] s = queue.poll();
        int x = (int) s[0];
        int y = (int) s[1];
        if (a.isAccepting(x) && b.isAccepting(y)) {
          return true;
        }
        for (int c = 0; c < 256; c++) {
          int nx = a.step(x, c);
          int ny = b.step(y, c);
          if (nx != Dfa.DEAD && ny != Dfa.DEAD && seen.add(((long) nx << 32) | ny)) {
            queue.add(new long[] {nx, ny});
          }
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
          default -> {
            if (!HANDLED.contains(k) && !UNSUPPORTED.contains(k)) {
              continue; // unknown keywords assert nothing
            }
            throw unsupported("allOf", ptr, "the schemas disagree on '" + k + "' and do not merge simply");
          }
        }
      }
      // additionalProperties speaks only of its own schema's properties: a member that one side
      // lists and the other side forbids is forbidden in the merge.
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

    /** Follows a top-level $ref (for merging); recursion is left to {@link #ref}. */
    JsonNode resolveShallow(JsonNode s, String ptr) {
      int guard = 0;
      while (s.isObject() && s.has("$ref") && guard++ < 8) {
        JsonNode target = resolve(s.get("$ref").asText(), ptr);
        ObjectNode rest = ((ObjectNode) s).deepCopy();
        rest.remove("$ref");
        if (rest.isEmpty()) {
          s = target;
        } else {
          JsonNode t = target.isObject() ? ((ObjectNode) target).deepCopy() : target;
          s = merge(t, rest, ptr);
        }
      }
      if (s.isObject() && s.has("allOf")) {
        s = mergeAllOf((ObjectNode) s, ptr);
      }
      return s;
    }

    Re ref(ObjectNode o, String ptr, int level) {
      String ref = o.get("$ref").asText();
      int depth = refDepth.getOrDefault(ref, 0);
      if (depth >= opt.maxRecursion()) {
        return NEVER; // recursion unrolled as far as allowed: deeper values cannot be generated
      }
      JsonNode target = resolve(ref, ptr);
      ObjectNode rest = o.deepCopy();
      rest.remove("$ref");
      JsonNode schema = hasAssertions(rest) ? merge(target, rest, ptr) : target;
      refDepth.put(ref, depth + 1);
      try {
        return value(schema, ptr, level);
      } finally {
        refDepth.put(ref, depth);
      }
    }

    JsonNode resolve(String ref, String ptr) {
      if (!ref.startsWith("#")) {
        throw unsupported("$ref", ptr, "only local references (#...) are supported, found " + ref);
      }
      String pointer = ref.substring(1);
      if (!pointer.isEmpty() && !pointer.startsWith("/")) {
        throw unsupported("$ref", ptr, "anchor references (" + ref + ") are not supported, only JSON pointers");
      }
      pointer = java.net.URLDecoder.decode(pointer.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
      JsonNode n = pointer.isEmpty() ? root : root.at(pointer);
      if (n == null || n.isMissingNode()) {
        throw unsupported("$ref", ptr, "reference " + ref + " does not resolve");
      }
      return n;
    }
  }

  // --- tree helpers

  static Re lit(String s) {
    if (s.isEmpty()) {
      return Re.EMPTY;
    }
    List<Re> items = new ArrayList<>();
    s.codePoints().forEach(cp -> items.add(new Re.Chars(new int[] {cp, cp})));
    return items.size() == 1 ? items.get(0) : new Re.Concat(items);
  }

  static Re seq(Re... items) {
    List<Re> list = new ArrayList<>();
    for (Re r : items) {
      if (r instanceof Re.Empty) {
        continue;
      }
      if (r instanceof Re.Concat c) {
        list.addAll(c.items());
      } else {
        list.add(r);
      }
    }
    return list.isEmpty() ? Re.EMPTY : list.size() == 1 ? list.get(0) : new Re.Concat(list);
  }

  static Re alt(List<Re> options) {
    List<Re> live = new ArrayList<>();
    for (Re r : options) {
      if (!(r instanceof Re.Chars c && c.ranges().length == 0)) {
        live.add(r);
      }
    }
    if (live.isEmpty()) {
      return NEVER;
    }
    return live.size() == 1 ? live.get(0) : new Re.Alt(live);
  }

  static Re rep(Re r, int min, int max) {
    return new Re.Repeat(r, min, max);
  }

  static Re opt(Re r) {
    return new Re.Repeat(r, 0, 1);
  }
}
