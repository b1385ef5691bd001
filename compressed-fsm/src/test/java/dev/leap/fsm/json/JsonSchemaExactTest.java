package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.EmptyLanguageException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The exact constructions of the JSON Schema compiler against naive twins written from the
 * specification's wording: number ranges and multiples against {@link BigDecimal}, member presence
 * formulas against evaluating the keywords on each set of present members, string keywords together
 * against {@link java.util.regex} and a code point count; members beyond {@code properties},
 * dependent schemas, {@code allOf} merges and {@code oneOf} against a validator written from the
 * specification (all seeded).
 */
class JsonSchemaExactTest {

  static Dfa dfaOrNull(String schema) {
    try {
      return JsonSchema.compile(schema, JsonSchemaOptions.defaults()).dfa();
    } catch (EmptyLanguageException e) {
      return null;
    }
  }

  static boolean accepts(Dfa dfa, String text) {
    return dfa != null && dfa.matches(text.getBytes(StandardCharsets.UTF_8));
  }

  static String decimal(SplittableRandom r, int maxInt, int maxScale) {
    BigDecimal v = BigDecimal.valueOf(r.nextLong(-maxInt * 100L, maxInt * 100L + 1), 2);
    return v.setScale(r.nextInt(maxScale + 1), java.math.RoundingMode.DOWN).toPlainString();
  }

  @Test
  void numberRangesAndMultiplesAgreeWithBigDecimal() {
    SplittableRandom r = new SplittableRandom(7001L);
    String[] multiples = {null, null, "0.01", "0.1", "1", "2", "3", "5"};
    int accepted = 0;
    for (int round = 0; round < 150; round++) {
      String type = r.nextInt(4) == 0 ? "integer" : "number";
      StringBuilder schema = new StringBuilder("{\"type\":\"" + type + "\"");
      BigDecimal lo = null;
      BigDecimal hi = null;
      boolean loEx = r.nextBoolean();
      boolean hiEx = r.nextBoolean();
      if (r.nextInt(4) > 0) {
        lo = new BigDecimal(decimal(r, 30, 2));
        schema.append(loEx ? ",\"exclusiveMinimum\":" : ",\"minimum\":").append(lo.toPlainString());
      }
      if (r.nextInt(4) > 0) {
        hi = new BigDecimal(decimal(r, 30, 2));
        schema.append(hiEx ? ",\"exclusiveMaximum\":" : ",\"maximum\":").append(hi.toPlainString());
      }
      String m = multiples[r.nextInt(multiples.length)];
      if (m != null) {
        schema.append(",\"multipleOf\":").append(m);
      }
      schema.append('}');
      Dfa dfa = dfaOrNull(schema.toString());
      for (int i = 0; i < 150; i++) {
        String text = decimal(r, 40, 3);
        BigDecimal x = new BigDecimal(text);
        boolean valid =
            (lo == null || (loEx ? x.compareTo(lo) > 0 : x.compareTo(lo) >= 0))
                && (hi == null || (hiEx ? x.compareTo(hi) < 0 : x.compareTo(hi) <= 0))
                && (m == null || x.remainder(new BigDecimal(m)).signum() == 0)
                && (type.equals("number") || x.stripTrailingZeros().scale() <= 0);
        // Integers are written without a fraction; "-0" and "-0.00" are left out of the language.
        boolean writable =
            !(type.equals("integer") && text.contains("."))
                && !(text.startsWith("-") && x.signum() == 0);
        boolean got = accepts(dfa, text);
        assertTrue(!got || valid, schema + " accepted " + text);
        assertEquals(valid && writable, got, schema + " on " + text);
        accepted += got ? 1 : 0;
      }
      assertFalse(
          accepts(dfa, "1e400") && hi != null, schema + ": exponents are not written with bounds");
    }
    assertTrue(accepted > 2_000, accepted + " accepted");
  }

  @Test
  void presenceFormulasAgreeWithEvaluatingTheKeywords() {
    SplittableRandom r = new SplittableRandom(7002L);
    String[] names = {"a", "b", "c", "d", "e"};
    int checked = 0;
    int validSeen = 0;
    for (int round = 0; round < 200; round++) {
      StringBuilder schema = new StringBuilder("{\"type\":\"object\",\"properties\":{");
      for (int i = 0; i < names.length; i++) {
        schema
            .append(i > 0 ? "," : "")
            .append('"')
            .append(names[i])
            .append("\":{\"type\":\"integer\"}");
      }
      schema.append('}');
      List<java.util.function.Predicate<Set<String>>> rules = new ArrayList<>();
      int constraints = 1 + r.nextInt(3);
      for (int k = 0; k < constraints; k++) {
        List<Set<String>> groups = new ArrayList<>();
        for (int g = 0, n = 2 + r.nextInt(2); g < n; g++) {
          Set<String> grp = new LinkedHashSet<>();
          for (int j = 0, s = 1 + r.nextInt(2); j < s; j++) {
            grp.add(names[r.nextInt(names.length)]);
          }
          groups.add(grp);
        }
        String groupJson =
            groups.stream()
                .map(g -> "{\"required\":" + quoteAll(g) + "}")
                .reduce((x, y) -> x + "," + y)
                .orElseThrow();
        switch (r.nextInt(7)) {
          case 0 -> {
            schema.append(",\"required\":").append(quoteAll(groups.get(0)));
            rules.add(p -> p.containsAll(groups.get(0)));
          }
          case 1 -> {
            schema.append(",\"oneOf\":[").append(groupJson).append(']');
            rules.add(p -> groups.stream().filter(p::containsAll).count() == 1);
          }
          case 2 -> {
            schema.append(",\"anyOf\":[").append(groupJson).append(']');
            rules.add(p -> groups.stream().anyMatch(p::containsAll));
          }
          case 3 -> {
            schema.append(",\"not\":{\"required\":").append(quoteAll(groups.get(0))).append('}');
            rules.add(p -> !p.containsAll(groups.get(0)));
          }
          case 4 -> {
            String key = names[r.nextInt(names.length)];
            schema
                .append(",\"dependencies\":{\"")
                .append(key)
                .append("\":")
                .append(quoteAll(groups.get(1)))
                .append('}');
            rules.add(p -> !p.contains(key) || p.containsAll(groups.get(1)));
          }
          case 5 -> {
            int min = r.nextInt(4);
            schema.append(",\"minProperties\":").append(min);
            rules.add(p -> p.size() >= min);
          }
          default -> {
            int max = r.nextInt(4);
            schema.append(",\"maxProperties\":").append(max);
            rules.add(p -> p.size() <= max);
          }
        }
      }
      schema.append('}');
      String s =
          schema
              .toString()
              .replaceAll(
                  ",\"(required|oneOf|anyOf|not|dependencies|minProperties|maxProperties)\":"
                      + "(\\[[^\\]]*\\]|\\{[^}]*\\}|[0-9]+)(?=.*,\"\\1\")",
                  "");
      if (!s.equals(schema.toString())) {
        continue; // a keyword drawn twice: JSON would keep one of them
      }
      Dfa dfa = dfaOrNull(s);
      for (int mask = 0; mask < 1 << names.length; mask++) {
        Set<String> present = new LinkedHashSet<>();
        StringBuilder inst = new StringBuilder("{");
        for (int i = 0; i < names.length; i++) {
          if ((mask & (1 << i)) != 0) {
            inst.append(present.isEmpty() ? "" : ",")
                .append('"')
                .append(names[i])
                .append("\":")
                .append(i);
            present.add(names[i]);
          }
        }
        inst.append('}');
        boolean valid = rules.stream().allMatch(rule -> rule.test(present));
        assertEquals(valid, accepts(dfa, inst.toString()), s + " on " + inst);
        checked++;
        validSeen += valid ? 1 : 0;
      }
    }
    assertTrue(
        checked > 3_000 && validSeen > 500 && checked - validSeen > 500,
        checked + " checked, " + validSeen + " valid");
  }

  static String quoteAll(Set<String> names) {
    return names.stream()
        .map(n -> "\"" + n + "\"")
        .reduce((x, y) -> x + "," + y)
        .map(x -> "[" + x + "]")
        .orElse("[]");
  }

  @Test
  void patternWithLengthsAgreesWithJavaRegexAndCodePointCount() {
    SplittableRandom r = new SplittableRandom(7003L);
    String[] patterns = {"^[a-z]+$", "[0-9]", "^ab", "c$", "^(ab|cd)*$", "x|y"};
    String alphabet = "abcdxy09 é";
    for (int round = 0; round < 60; round++) {
      String p = patterns[r.nextInt(patterns.length)];
      int min = r.nextInt(4);
      int max = min + r.nextInt(5);
      String schema =
          "{\"type\":\"string\",\"pattern\":\""
              + p
              + "\",\"minLength\":"
              + min
              + ",\"maxLength\":"
              + max
              + "}";
      Dfa dfa = dfaOrNull(schema);
      Pattern java = Pattern.compile(p);
      for (int i = 0; i < 200; i++) {
        StringBuilder sb = new StringBuilder();
        for (int j = 0, n = r.nextInt(9); j < n; j++) {
          sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        String s = sb.toString();
        int len = s.codePointCount(0, s.length());
        boolean valid = java.matcher(s).find() && len >= min && len <= max;
        assertEquals(valid, accepts(dfa, "\"" + s + "\""), schema + " on \"" + s + "\"");
      }
    }
  }

  @Test
  void formatsAcceptTheirStringsAndUnknownFormatsAssertNothing() {
    CompressedFsm date =
        JsonSchema.compile(
            "{\"type\":\"string\",\"format\":\"date\"}", JsonSchemaOptions.defaults());
    SplittableRandom r = new SplittableRandom(7004L);
    for (int i = 0; i < 3_000; i++) {
      String s = String.format("%04d-%02d-%02d", r.nextInt(10_000), r.nextInt(14), r.nextInt(33));
      boolean valid;
      try {
        java.time.LocalDate.parse(
            s,
            java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd")
                .withResolverStyle(java.time.format.ResolverStyle.STRICT));
        valid = true;
      } catch (java.time.format.DateTimeParseException e) {
        valid = false;
      }
      assertEquals(valid, accepts(date.dfa(), "\"" + s + "\""), s);
    }
    Dfa ipv6 = dfaOrNull("{\"type\":\"string\",\"format\":\"ipv6\"}");
    for (String ok :
        new String[] {"::1", "::", "2001:db8::8a2e:370:7334", "fe80:0:0:0:0:0:0:1", "1::"}) {
      assertTrue(accepts(ipv6, "\"" + ok + "\""), ok);
    }
    for (String bad : new String[] {":::", "1:2:3:4:5:6:7:8:9", "12345::", "1::2::3", "g::1"}) {
      assertFalse(accepts(ipv6, "\"" + bad + "\""), bad);
    }
    Dfa duration = dfaOrNull("{\"type\":\"string\",\"format\":\"duration\"}");
    assertTrue(
        accepts(duration, "\"P3Y6M4DT12H30M5S\"")
            && accepts(duration, "\"PT1M\"")
            && accepts(duration, "\"P2W\""));
    assertFalse(
        accepts(duration, "\"P\"") || accepts(duration, "\"PT\"") || accepts(duration, "\"P1H\""));
    Dfa pointer = dfaOrNull("{\"type\":\"string\",\"format\":\"json-pointer\"}");
    assertTrue(accepts(pointer, "\"/a~1b/0\"") && accepts(pointer, "\"\""));
    assertFalse(accepts(pointer, "\"a\"") || accepts(pointer, "\"/~2\""));
    Dfa custom = dfaOrNull("{\"type\":\"string\",\"format\":\"my-own-format\",\"maxLength\":3}");
    assertTrue(accepts(custom, "\"abc\"") && !accepts(custom, "\"abcd\""));
    Dfa dateWithPattern =
        dfaOrNull("{\"type\":\"string\",\"format\":\"date\",\"pattern\":\"^2024-\"}");
    assertTrue(accepts(dateWithPattern, "\"2024-02-29\""));
    assertFalse(
        accepts(dateWithPattern, "\"2023-02-28\"") || accepts(dateWithPattern, "\"2024-02-30\""));
  }

  @Test
  void patternPropertiesApplyToListedMembersAndNameTheKeysOfUnlistedOnes() {
    Dfa listed =
        dfaOrNull(
            "{\"type\":\"object\",\"properties\":{\"x_a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
                + "\"patternProperties\":{\"^x_\":{\"minimum\":10}}}");
    assertTrue(accepts(listed, "{\"x_a\":10,\"b\":1}"));
    assertFalse(
        accepts(listed, "{\"x_a\":9,\"b\":1}"), "x_a matches ^x_, so minimum 10 applies too");
    Dfa keys =
        dfaOrNull(
            "{\"type\":\"object\",\"patternProperties\":{\"^[a-z]+$\":{\"type\":\"integer\"},"
                + "\"^[0-9]+$\":{\"type\":\"string\"}},\"additionalProperties\":false}");
    assertTrue(accepts(keys, "{\"ab\":1,\"12\":\"x\"}") && accepts(keys, "{}"));
    assertFalse(
        accepts(keys, "{\"ab\":\"x\"}")
            || accepts(keys, "{\"12\":1}")
            || accepts(keys, "{\"A\":1}"));
  }

  /**
   * The value schemas of {@link #membersBeyondPropertiesAgreeWithEvaluatingTheKeywords}, with their
   * naive twins.
   */
  static final String[] VALUE_SCHEMAS = {
    "{\"type\":\"integer\"}", "{\"minimum\":10}", "{\"type\":\"string\"}", "true"
  };

  static boolean valueValid(int schema, Object v) {
    return switch (schema) {
      case 0 -> v instanceof Integer;
      case 1 -> !(v instanceof Integer i) || i >= 10; // minimum applies to numbers only
      case 2 -> v instanceof String;
      default -> true;
    };
  }

  @Test
  void membersBeyondPropertiesAgreeWithEvaluatingTheKeywords() {
    SplittableRandom r = new SplittableRandom(7005L);
    String[] patterns = {"^x", "y$", "^xy"};
    String[] keys = {"a", "b", "x1", "1y", "xy", "xyy", "zz", "q\"", "ab"};
    Object[] values = {5, 50, "s"};
    int checked = 0;
    int accepted = 0;
    for (int round = 0; round < 300; round++) {
      // properties: a and/or b (or none), each with a value schema
      java.util.LinkedHashMap<String, Integer> props = new java.util.LinkedHashMap<>();
      boolean hasProps = r.nextInt(4) > 0;
      if (hasProps) {
        for (String k : new String[] {"a", "b"}) {
          if (r.nextBoolean()) {
            props.put(k, r.nextInt(VALUE_SCHEMAS.length));
          }
        }
      }
      java.util.LinkedHashMap<String, Integer> pats = new java.util.LinkedHashMap<>();
      for (String p : patterns) {
        if (r.nextInt(3) == 0) {
          pats.put(p, r.nextInt(VALUE_SCHEMAS.length));
        }
      }
      int additional = r.nextInt(4); // 0 absent, 1 true, 2 false, 3 a schema
      int additionalSchema = r.nextInt(VALUE_SCHEMAS.length);
      StringBuilder schema = new StringBuilder("{\"type\":\"object\"");
      if (hasProps) {
        schema.append(",\"properties\":{");
        props.forEach(
            (k, v) ->
                schema
                    .append(schema.charAt(schema.length() - 1) == '{' ? "" : ",")
                    .append('"')
                    .append(k)
                    .append("\":")
                    .append(VALUE_SCHEMAS[v]));
        schema.append('}');
      }
      if (!pats.isEmpty()) {
        schema.append(",\"patternProperties\":{");
        pats.forEach(
            (k, v) ->
                schema
                    .append(schema.charAt(schema.length() - 1) == '{' ? "" : ",")
                    .append('"')
                    .append(k)
                    .append("\":")
                    .append(VALUE_SCHEMAS[v]));
        schema.append('}');
      }
      if (additional > 0) {
        schema
            .append(",\"additionalProperties\":")
            .append(
                additional == 1
                    ? "true"
                    : additional == 2 ? "false" : VALUE_SCHEMAS[additionalSchema]);
      }
      schema.append('}');
      Dfa dfa = dfaOrNull(schema.toString());
      for (int i = 0; i < 40; i++) {
        // Distinct keys: listed ones first in properties order, the others after them in any order.
        List<String> chosen = new ArrayList<>();
        for (String k : keys) {
          if (r.nextInt(4) == 0) {
            chosen.add(k);
          }
        }
        List<String> order = new ArrayList<>();
        props.keySet().stream().filter(chosen::contains).forEach(order::add);
        List<String> rest =
            new ArrayList<>(chosen.stream().filter(k -> !props.containsKey(k)).toList());
        java.util.Collections.shuffle(rest, new java.util.Random(r.nextLong()));
        order.addAll(rest);
        boolean valid = true;
        boolean generable = true;
        StringBuilder inst = new StringBuilder("{");
        for (String k : order) {
          Object v = values[r.nextInt(values.length)];
          inst.append(inst.length() > 1 ? "," : "")
              .append('"')
              .append(k.replace("\"", "\\\""))
              .append("\":")
              .append(v instanceof String ? "\"" + v + "\"" : v.toString());
          boolean matched = false;
          for (java.util.Map.Entry<String, Integer> p : pats.entrySet()) {
            if (Pattern.compile(p.getKey()).matcher(k).find()) {
              matched = true;
              valid &= valueValid(p.getValue(), v);
            }
          }
          if (props.containsKey(k)) {
            valid &= valueValid(props.get(k), v);
          } else if (!matched) {
            valid &= additional != 2 && (additional != 3 || valueValid(additionalSchema, v));
            generable &=
                additional != 0
                    || !hasProps; // Leap's rule: no unasked-for members beside properties
          }
        }
        inst.append('}');
        boolean got = accepts(dfa, inst.toString());
        assertTrue(!got || valid, schema + " accepted the invalid " + inst);
        assertEquals(valid && generable, got, schema + " on " + inst);
        checked++;
        accepted += got ? 1 : 0;
      }
    }
    assertTrue(
        checked > 10_000 && accepted > 2_000, checked + " checked, " + accepted + " accepted");
  }

  /** {@code n} random JSON values of {@link DisjointTest#value}. */
  static List<JsonNode> randomValues(SplittableRandom r, int n) {
    List<JsonNode> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add(DisjointTest.value(r, 0));
    }
    return values;
  }

  /**
   * How many of {@code values} (keys in schema order) {@code schema} accepts, asserting that each
   * accepted one is {@code valid}; -1 if the schema does not compile.
   */
  static int acceptedValues(
      ObjectNode schema,
      List<JsonNode> values,
      ObjectMapper m,
      java.util.function.Predicate<JsonNode> valid)
      throws Exception {
    Dfa dfa;
    try {
      dfa = dfaOrNull(schema.toString());
    } catch (dev.leap.fsm.ConstraintException e) {
      return -1;
    }
    int accepted = 0;
    for (JsonNode v : values) {
      String text = m.writeValueAsString(KeyOrder.schemaOrder(v, schema));
      if (accepts(dfa, text)) {
        accepted++;
        assertTrue(valid.test(v), schema + " accepted " + text);
      }
    }
    return accepted;
  }

  /**
   * allOf merges, read back through the validator of {@link DisjointTest}: what Leap accepts is
   * valid against both.
   */
  @Test
  void allOfMergesAcceptOnlyValuesValidAgainstEveryBranch() throws Exception {
    SplittableRandom r = new SplittableRandom(7006L);
    ObjectMapper m = new ObjectMapper();
    List<JsonNode> values = randomValues(r, 300);
    int compiled = 0;
    int accepted = 0;
    for (int round = 0; round < 600; round++) {
      JsonNode a = DisjointTest.schema(r, 0);
      JsonNode b = DisjointTest.schema(r, 0);
      ObjectNode all = JsonNodeFactory.instance.objectNode();
      all.putArray("allOf").add(a).add(b);
      int n =
          acceptedValues(all, values, m, v -> DisjointTest.valid(a, v) && DisjointTest.valid(b, v));
      compiled += n < 0 ? 0 : 1; // n < 0: a merge Leap does not do
      accepted += Math.max(n, 0);
    }
    assertTrue(
        compiled > 300 && accepted > 2_000, compiled + " compiled, " + accepted + " accepted");
  }

  /**
   * A random dependent schema over members a..d with integer values (conditions on presence and
   * values).
   */
  static String dependentSchema(SplittableRandom r, String[] names, int depth) {
    List<String> parts = new ArrayList<>();
    if (r.nextInt(3) == 0) {
      parts.add("\"required\":[\"" + names[r.nextInt(names.length)] + "\"]");
    }
    if (r.nextInt(3) > 0) {
      StringBuilder props = new StringBuilder("\"properties\":{");
      int n = 1 + r.nextInt(2);
      Set<String> used = new LinkedHashSet<>();
      for (int i = 0; i < n; i++) {
        String q = names[r.nextInt(names.length)];
        if (!used.add(q)) {
          continue;
        }
        String c =
            switch (r.nextInt(4)) {
              case 0 -> "{\"minimum\":5}";
              case 1 -> "{\"maximum\":3}";
              case 2 -> "{\"const\":" + (r.nextBoolean() ? 1 : 7) + "}";
              default -> "false";
            };
        props.append(used.size() > 1 ? "," : "").append('"').append(q).append("\":").append(c);
      }
      parts.add(props.append('}').toString());
    }
    if (depth == 0 && r.nextInt(3) == 0) {
      String k = new String[] {"anyOf", "oneOf", "allOf"}[r.nextInt(3)];
      if (k.equals("oneOf") && r.nextBoolean()) {
        // A discriminated union: a required member with different constants.
        String q = names[r.nextInt(names.length)];
        parts.add(
            "\"oneOf\":[{\"required\":[\""
                + q
                + "\"],\"properties\":{\""
                + q
                + "\":{\"const\":1}}},"
                + "{\"required\":[\""
                + q
                + "\"],\"properties\":{\""
                + q
                + "\":{\"const\":7},\""
                + names[r.nextInt(names.length)]
                + "\":{\"minimum\":5}}}]");
      } else {
        parts.add(
            "\""
                + k
                + "\":[{"
                + dependentSchema(r, names, 1)
                + "},{"
                + dependentSchema(r, names, 1)
                + "}]");
      }
    }
    return String.join(",", parts);
  }

  /** The naive twin of a dependent schema (the test's keywords only), on an object of integers. */
  static boolean meets(JsonNode d, JsonNode obj) {
    if (!DisjointTest.valid(d, obj)) {
      return false; // required, properties
    }
    for (String k : new String[] {"anyOf", "oneOf", "allOf"}) {
      if (d.has(k)) {
        int n = 0;
        for (JsonNode b : d.get(k)) {
          n += meets(b, obj) ? 1 : 0;
        }
        boolean ok = k.equals("anyOf") ? n > 0 : k.equals("oneOf") ? n == 1 : n == d.get(k).size();
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  @Test
  void dependentSchemasOnValuesAgreeWithEvaluatingTheKeywords() throws Exception {
    SplittableRandom r = new SplittableRandom(7007L);
    ObjectMapper m = new ObjectMapper();
    String[] names = {"a", "b", "c", "d"};
    int[] pool = {1, 4, 7};
    int compiled = 0;
    int narrowed = 0;
    int checked = 0;
    int valid = 0;
    for (int round = 0; round < 250; round++) {
      StringBuilder schema =
          new StringBuilder(
              "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
                  + "\"b\":{\"type\":\"integer\"},\"c\":{\"type\":\"integer\"},\"d\":{\"type\":\"integer\"}}");
      schema.append(",\"dependentSchemas\":{");
      Set<String> keys = new LinkedHashSet<>();
      for (int i = 0, n = 1 + r.nextInt(2); i < n; i++) {
        String p = names[r.nextInt(names.length)];
        if (keys.add(p)) {
          schema
              .append(keys.size() > 1 ? "," : "")
              .append('"')
              .append(p)
              .append("\":{")
              .append(dependentSchema(r, names, 0))
              .append('}');
        }
      }
      schema.append("}}");
      JsonNode node = m.readTree(schema.toString());
      JsonSchema.Compiled c =
          JsonSchema.compileDetailed(schema.toString(), JsonSchemaOptions.defaults());
      Dfa dfa = c.fsm().dfa();
      // A oneOf Leap cannot prove exactly-one for leaves its dependency's member out (narrowed):
      // then only soundness holds, else the languages agree exactly.
      boolean exact = c.narrowed().isEmpty();
      narrowed += exact ? 0 : 1;
      compiled++;
      for (int mask = 0; mask < 1 << names.length; mask++) {
        int present = Integer.bitCount(mask);
        for (int assign = 0; assign < Math.pow(pool.length, present); assign++) {
          ObjectNode obj = m.createObjectNode();
          for (int i = 0, a = assign; i < names.length; i++) {
            if ((mask >> i & 1) == 1) {
              obj.put(names[i], pool[a % pool.length]);
              a /= pool.length;
            }
          }
          boolean ok = true;
          for (String p : keys) {
            ok &= !obj.has(p) || meets(node.get("dependentSchemas").get(p), obj);
          }
          boolean got = accepts(dfa, m.writeValueAsString(obj));
          assertTrue(!got || ok, schema + " accepted the invalid " + obj);
          if (exact) {
            assertEquals(ok, got, schema + " on " + obj);
          }
          checked++;
          valid += ok ? 1 : 0;
        }
      }
    }
    assertTrue(
        compiled - narrowed > 150
            && narrowed > 0
            && checked > 20_000
            && valid > 5_000
            && checked - valid > 5_000,
        compiled
            + " compiled ("
            + narrowed
            + " narrowed), "
            + checked
            + " checked, "
            + valid
            + " valid");
  }

  /**
   * An object schema over members a, b, c: properties, required, additionalProperties absent, true,
   * false or a schema.
   */
  static JsonNode objectBranch(SplittableRandom r, ObjectMapper m) {
    ObjectNode s = m.createObjectNode();
    s.put("type", "object");
    ObjectNode props = s.putObject("properties");
    ArrayNode req = s.putArray("required");
    for (String n : DisjointTest.NAMES) {
      if (r.nextBoolean()) {
        props.set(n, m.createObjectNode().put("type", r.nextBoolean() ? "integer" : "string"));
        if (r.nextBoolean()) {
          req.add(n);
        }
      }
    }
    switch (r.nextInt(4)) {
      case 0 -> s.put("additionalProperties", true);
      case 1 -> s.put("additionalProperties", false);
      case 2 -> s.set("additionalProperties", m.createObjectNode().put("type", "integer"));
      default -> {}
    }
    return s;
  }

  /**
   * oneOf, read back through the validator of {@link DisjointTest}: what Leap accepts is valid
   * against exactly one branch.
   */
  @Test
  void oneOfAcceptsOnlyValuesValidAgainstExactlyOneBranch() throws Exception {
    SplittableRandom r = new SplittableRandom(7008L);
    ObjectMapper m = new ObjectMapper();
    List<JsonNode> values = randomValues(r, 300);
    int compiled = 0;
    int accepted = 0;
    for (int round = 0; round < 1_500; round++) {
      ObjectNode schema = JsonNodeFactory.instance.objectNode();
      if (r.nextBoolean()) {
        schema.put("type", "object");
      }
      ArrayNode branches = schema.putArray("oneOf");
      for (int b = 2 + r.nextInt(2); b > 0; b--) {
        branches.add(r.nextBoolean() ? DisjointTest.schema(r, 0) : objectBranch(r, m));
      }
      int n =
          acceptedValues(
              schema,
              values,
              m,
              v -> {
                int holds = 0;
                for (JsonNode b : branches) {
                  holds +=
                      DisjointTest.valid(b, v) && (!schema.has("type") || v.isObject()) ? 1 : 0;
                }
                return holds == 1;
              });
      compiled += n < 0 ? 0 : 1; // n < 0: not provably exactly-one
      accepted += Math.max(n, 0);
    }
    assertTrue(
        compiled > 300 && accepted > 1_000, compiled + " compiled, " + accepted + " accepted");
  }
}
