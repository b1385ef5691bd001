package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Disjoint} against its naive twin: a validator for the keywords the proofs read, written
 * from the specification. Whenever a proof is claimed for two random schemas, no random value may
 * be valid against both.
 */
class DisjointTest {
  static final JsonNodeFactory F = JsonNodeFactory.instance;
  static final String[] TYPES = {
    "null", "boolean", "object", "array", "string", "integer", "number"
  };
  static final String[] NAMES = {"a", "b", "c"};
  static final String[] STRINGS = {"x", "y", "", "ab", "a1", "12", "b", " ", "\u00a0", "xyb"};

  /** Patterns, with {@code \s} meaning Unicode spaces as in ECMA 262 (Leap's own is ASCII). */
  static final String[] PATTERNS = {"^a", "b$", "^[0-9]+$", "^\\s$", "x", "^[a-z]+$", "^.$"};

  static JsonNode value(SplittableRandom r, int depth) {
    switch (r.nextInt(depth > 1 ? 6 : 8)) {
      case 0:
        return F.nullNode();
      case 1:
        return F.booleanNode(r.nextBoolean());
      case 2:
        return F.numberNode(r.nextInt(-3, 4));
      case 3:
        return F.numberNode(new BigDecimal(r.nextInt(-30, 31)).movePointLeft(1));
      case 4:
      case 5:
        return F.textNode(STRINGS[r.nextInt(STRINGS.length)]);
      case 6:
        {
          ArrayNode a = F.arrayNode();
          for (int i = r.nextInt(3); i > 0; i--) {
            a.add(value(r, depth + 1));
          }
          return a;
        }
      default:
        {
          ObjectNode o = F.objectNode();
          for (String n : NAMES) {
            if (r.nextInt(3) > 0) {
              o.set(n, value(r, depth + 1));
            }
          }
          return o;
        }
    }
  }

  static JsonNode schema(SplittableRandom r, int depth) {
    int pick = r.nextInt(20);
    if (pick == 0) {
      return F.booleanNode(r.nextInt(4) > 0);
    }
    ObjectNode s = F.objectNode();
    if (pick == 1) {
      s.set("not", F.objectNode());
      return s;
    }
    if (r.nextBoolean()) {
      if (r.nextInt(3) == 0) {
        ArrayNode t = s.putArray("type");
        t.add(TYPES[r.nextInt(TYPES.length)]).add(TYPES[r.nextInt(TYPES.length)]);
      } else {
        s.put("type", TYPES[r.nextInt(TYPES.length)]);
      }
    }
    if (r.nextInt(3) == 0) {
      if (r.nextBoolean()) {
        s.set("const", value(r, 1));
      } else {
        ArrayNode e = s.putArray("enum");
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
          e.add(value(r, 1));
        }
      }
    }
    if (r.nextInt(3) == 0) {
      s.put(r.nextBoolean() ? "minimum" : "exclusiveMinimum", r.nextInt(-3, 4));
    }
    if (r.nextInt(4) == 0) {
      s.put(r.nextBoolean() ? "minLength" : "maxLength", r.nextInt(0, 3));
    }
    if (r.nextInt(3) == 0) {
      s.put("pattern", PATTERNS[r.nextInt(PATTERNS.length)]);
    }
    if (r.nextInt(3) == 0) {
      s.put(r.nextBoolean() ? "maximum" : "exclusiveMaximum", r.nextInt(-3, 4));
    }
    if (depth < 2 && r.nextBoolean()) {
      ObjectNode props = s.putObject("properties");
      for (String n : NAMES) {
        if (r.nextBoolean()) {
          props.set(n, schema(r, depth + 1));
        }
      }
      ArrayNode req = s.putArray("required");
      for (String n : NAMES) {
        if (r.nextInt(3) == 0) {
          req.add(n);
        }
      }
      if (r.nextInt(3) == 0) {
        s.set(
            "additionalProperties", r.nextBoolean() ? F.booleanNode(false) : schema(r, depth + 1));
      }
    }
    return s;
  }

  /** The naive twin: validation by the specification's wording, for the keywords used here. */
  static boolean valid(JsonNode s, JsonNode v) {
    if (s.isBoolean()) {
      return s.asBoolean();
    }
    if (s.has("not") && valid(s.get("not"), v)) {
      return false;
    }
    if (s.has("type")) {
      boolean any = false;
      for (JsonNode t : s.get("type").isArray() ? s.get("type") : List.of(s.get("type"))) {
        any |= hasType(t.asText(), v);
      }
      if (!any) {
        return false;
      }
    }
    if (s.has("const") && !Disjoint.sameValue(s.get("const"), v)) {
      return false;
    }
    if (s.has("enum")) {
      boolean in = false;
      for (JsonNode e : s.get("enum")) {
        in |= Disjoint.sameValue(e, v);
      }
      if (!in) {
        return false;
      }
    }
    if (v.isNumber()) {
      BigDecimal x = v.decimalValue();
      if (s.has("minimum") && x.compareTo(s.get("minimum").decimalValue()) < 0
          || s.has("exclusiveMinimum") && x.compareTo(s.get("exclusiveMinimum").decimalValue()) <= 0
          || s.has("maximum") && x.compareTo(s.get("maximum").decimalValue()) > 0
          || s.has("exclusiveMaximum")
              && x.compareTo(s.get("exclusiveMaximum").decimalValue()) >= 0) {
        return false;
      }
    }
    if (v.isTextual()) {
      String t = v.asText();
      int len = t.codePointCount(0, t.length());
      if (s.has("minLength") && len < s.get("minLength").asInt()
          || s.has("maxLength") && len > s.get("maxLength").asInt()) {
        return false;
      }
      if (s.has("pattern")) {
        String ecma =
            s.get("pattern")
                .asText()
                .replace(
                    "\\s",
                    "[\\s\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029"
                        + "\\u202f\\u205f\\u3000\\ufeff]")
                .replace(".", "[^\\n\\r\\u2028\\u2029]");
        if (!java.util.regex.Pattern.compile(ecma).matcher(t).find()) {
          return false;
        }
      }
    }
    if (v.isObject()) {
      for (JsonNode r : s.path("required")) {
        if (!v.has(r.asText())) {
          return false;
        }
      }
      for (java.util.Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        JsonNode p = s.path("properties").get(k);
        if (p != null) {
          if (!valid(p, v.get(k))) {
            return false;
          }
        } else if (s.has("additionalProperties")
            && !valid(s.get("additionalProperties"), v.get(k))) {
          return false;
        }
      }
    }
    return true;
  }

  static boolean hasType(String t, JsonNode v) {
    return switch (t) {
      case "null" -> v.isNull();
      case "boolean" -> v.isBoolean();
      case "object" -> v.isObject();
      case "array" -> v.isArray();
      case "string" -> v.isTextual();
      case "integer" -> v.isNumber() && v.decimalValue().stripTrailingZeros().scale() <= 0;
      default -> v.isNumber();
    };
  }

  @Test
  void proofsHoldForEveryValue() {
    SplittableRandom r = new SplittableRandom(5150L);
    Disjoint proof = new Disjoint(s -> s);
    List<JsonNode> values = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      values.add(value(r, 0));
    }
    int proven = 0;
    int overlapping = 0;
    for (int round = 0; round < 6_000; round++) {
      JsonNode a = schema(r, 0);
      JsonNode b = schema(r, 0);
      boolean claim = proof.proven(a, b);
      boolean both = false;
      for (JsonNode v : values) {
        if (valid(a, v) && valid(b, v)) {
          both = true;
          assertFalse(claim, "claimed disjoint, but " + v + " is valid against " + a + " and " + b);
        }
      }
      proven += claim ? 1 : 0;
      overlapping += both ? 1 : 0;
    }
    assertTrue(
        proven > 1_500 && overlapping > 1_500,
        proven + " proofs, " + overlapping + " overlapping pairs");
  }

  @Test
  void discriminatorsAndForbiddenMembersAreProofs() throws Exception {
    ObjectMapper m = new ObjectMapper();
    Disjoint proof = new Disjoint(s -> s);
    assertTrue(
        proof.proven(
            m.readTree(
                "{\"type\":\"object\",\"properties\":{\"k\":{\"const\":\"a\"}},\"required\":[\"k\"]}"),
            m.readTree(
                "{\"type\":\"object\",\"properties\":{\"k\":{\"enum\":[\"b\",\"c\"]}},\"required\":[\"k\"]}")));
    assertTrue(
        proof.proven(
            m.readTree("{\"type\":\"object\",\"required\":[\"r\"]}"),
            m.readTree("{\"type\":\"object\",\"properties\":{\"r\":{\"not\":{}}}}")));
    assertTrue(
        proof.proven(
            m.readTree("{\"type\":\"integer\",\"maximum\":3}"),
            m.readTree("{\"type\":\"number\",\"exclusiveMinimum\":3}")));
    assertFalse(
        proof.proven(
            m.readTree("{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":[\"a\"]}"),
            m.readTree("{\"type\":\"object\",\"properties\":{\"b\":{}}}")),
        "{\"a\":1} is valid against both");
    assertFalse(
        proof.proven(m.readTree("{\"const\":1}"), m.readTree("{\"enum\":[1.0]}")),
        "1 and 1.0 are the same number");
    assertTrue(
        proof.proven(
            m.readTree("{\"type\":\"string\",\"maxLength\":0}"),
            m.readTree("{\"type\":\"string\",\"minLength\":1}")));
    assertTrue(
        proof.proven(
            m.readTree("{\"type\":\"string\",\"pattern\":\"^[^:]+$\"}"),
            m.readTree("{\"type\":\"string\",\"pattern\":\"^[^:]+:[^:]+:[0-9]+$\"}")));
    assertFalse(
        proof.proven(
            m.readTree("{\"type\":\"string\",\"pattern\":\"^\\\\s$\"}"),
            m.readTree("{\"type\":\"string\",\"const\":\"\\u00a0\"}")),
        "ECMA's \\s matches a no-break space");
  }
}
