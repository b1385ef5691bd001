package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.Dfa;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The wrong answers that the peers' test suites found (issue 18), each against a twin written from
 * the specification where one fits: host names against RFC 1123 and RFC 5891's rule on {@code --},
 * escapes against RFC 8259's grammar, a {@code $ref} inside an embedded resource, a {@code oneOf}
 * whose branches differ by kind.
 */
class PeerFindingsTest {

  static Dfa compile(String schema) {
    return JsonSchema.compile(schema, JsonSchemaOptions.defaults()).dfa();
  }

  static boolean accepts(Dfa dfa, String json) {
    return dfa.matches(json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * RFC 1123 label (1-63 letters, digits, inner hyphens) and not RFC 5891's reserved {@code ??--}.
   */
  static boolean labelTwin(String l) {
    if (l.isEmpty() || l.length() > 63 || l.startsWith("-") || l.endsWith("-")) {
      return false;
    }
    for (char c : l.toCharArray()) {
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
        return false;
      }
    }
    return !(l.length() >= 4 && l.charAt(2) == '-' && l.charAt(3) == '-');
  }

  @Test
  void hostNamesWithPunycodeOrReservedLabelsAreNotAccepted() {
    for (String format : new String[] {"hostname", "idn-hostname"}) {
      Dfa dfa = compile("{\"type\":\"string\",\"format\":\"" + format + "\"}");
      for (String bad :
          new String[] {
            "xn--X", "XN--aa---o47jg78q", "xn--4gbwdl.xn--wgbh1", "ab--c", "www.xn--a.com"
          }) {
        assertFalse(accepts(dfa, "\"" + bad + "\""), format + ": " + bad);
      }
      for (String ok :
          new String[] {"a--b.com", "www.example.com", "1host", "a", "ab", "a-b", "abc-", "abcd"}) {
        assertEquals(labelTwinHost(ok), accepts(dfa, "\"" + ok + "\""), format + ": " + ok);
      }
      SplittableRandom r = new SplittableRandom(1801L);
      String alphabet = "ax9-";
      int accepted = 0;
      for (int i = 0; i < 4_000; i++) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(8) == 0 ? 60 + r.nextInt(6) : 1 + r.nextInt(7);
        for (int j = 0; j < n; j++) {
          sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        String label = sb.toString();
        boolean ok = labelTwin(label);
        accepted += ok ? 1 : 0;
        assertEquals(ok, accepts(dfa, "\"" + label + "\""), format + ": " + label);
        assertEquals(ok, accepts(dfa, "\"example." + label + "\""), format + ": example." + label);
      }
      assertTrue(accepted > 500, "too few valid labels drawn: " + accepted);
      String a63 = "a".repeat(63);
      String longest = a63 + "." + a63 + "." + a63 + "." + "a".repeat(61);
      assertTrue(accepts(dfa, "\"" + longest + "\""), format + ": 253 characters");
      assertFalse(
          accepts(dfa, "\"" + longest + "a\""),
          format + ": 254 characters (the Test Suite's idn-hostname case)");
    }
  }

  private static boolean labelTwinHost(String host) {
    for (String l : host.split("\\.", -1)) {
      if (!labelTwin(l)) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aReferenceInsideAnEmbeddedResourceResolvesAgainstItsId() {
    String schema =
        "{\"$id\":\"http://example.com/a.json\",\"properties\":{\"foo\":{\"$id\":\"b.json\","
            + "\"$defs\":{\"inner\":{\"type\":\"object\"}},\"$ref\":\"#/$defs/inner\"}},\"$ref\":\"b.json\"}";
    Dfa dfa = compile(schema);
    assertTrue(accepts(dfa, "{}") && accepts(dfa, "{\"foo\":{}}"));
    assertFalse(
        accepts(dfa, "{\"foo\":1}") || accepts(dfa, "1") || accepts(dfa, "\"x\""),
        "foo and the root are objects");
    // The same reference reached through an allOf merge, and a sibling resource whose #/$defs
    // differs.
    Dfa merged =
        compile(
            "{\"$id\":\"http://example.com/a.json\",\"$defs\":{\"inner\":{\"type\":\"string\"}},"
                + "\"allOf\":[{\"properties\":{\"foo\":{\"$id\":\"b.json\",\"$defs\":{\"inner\":{\"type\":\"integer\"}},"
                + "\"$ref\":\"#/$defs/inner\"}}},{\"required\":[\"foo\"]}]}");
    assertTrue(accepts(merged, "{\"foo\":1}"));
    assertFalse(
        accepts(merged, "{\"foo\":\"x\"}"),
        "#/$defs/inner is b.json's (integer), not a.json's (string)");
  }

  /**
   * {@code decoded} as JSON string content, each escape JSON requires with its hex letters in a
   * random case.
   */
  static String spell(String decoded, SplittableRandom r) {
    StringBuilder sb = new StringBuilder();
    for (char c : decoded.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        case '\r' -> sb.append("\\r");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20) {
            String hex = String.format("\\u%04x", (int) c);
            sb.append(
                r.nextBoolean()
                    ? hex
                    : hex.toUpperCase(java.util.Locale.ROOT).replace("\\U", "\\u"));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.toString();
  }

  @Test
  void escapesAreAcceptedWithHexLettersInEitherCaseWhereverAStringIsMatched() {
    String alphabet = "a\u000b\u001f\u001a\u0001\n\"";
    SplittableRandom r = new SplittableRandom(1803L);
    Dfa pattern = compile("{\"type\":\"string\",\"pattern\":\"^[a\\\\x00-\\\\x1f]{0,3}$\"}");
    Dfa dot = compile("{\"pattern\":\"^.$\"}");
    String[] listed = {"\u001f", "a\u000b", "\u000e\u000f", "\""};
    Dfa enumDfa =
        compile(
            "{\"enum\":[\""
                + spell(listed[0], r)
                + "\",\""
                + spell(listed[1], r)
                + "\",\""
                + spell(listed[2], r)
                + "\",\""
                + spell(listed[3], r)
                + "\"]}");
    Dfa constDfa = compile("{\"const\":[\"" + spell(listed[2], r) + "\"]}");
    Dfa keys =
        compile(
            "{\"type\":\"object\",\"properties\":{\""
                + spell(listed[1], r)
                + "\":{\"type\":\"integer\"}},"
                + "\"required\":[\""
                + spell(listed[1], r)
                + "\"]}");
    Dfa extraKeys =
        compile(
            "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"integer\"}},"
                + "\"additionalProperties\":{\"type\":\"integer\"}}");
    int checked = 0;
    for (int i = 0; i < 3_000; i++) {
      StringBuilder d = new StringBuilder();
      for (int k = 0, n = r.nextInt(5); k < n; k++) {
        d.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      String decoded = i < listed.length ? listed[i] : d.toString();
      String json = "\"" + spell(decoded, r) + "\"";
      boolean inPattern =
          decoded.length() <= 3 && decoded.chars().allMatch(c -> c == 'a' || c < 0x20);
      assertEquals(inPattern, accepts(pattern, json), "pattern on " + json);
      assertEquals(
          decoded.length() == 1 && decoded.charAt(0) != '\n', accepts(dot, json), "^.$ on " + json);
      assertEquals(
          java.util.Arrays.asList(listed).contains(decoded),
          accepts(enumDfa, json),
          "enum on " + json);
      assertEquals(
          decoded.equals(listed[2]), accepts(constDfa, "[" + json + "]"), "const on " + json);
      assertEquals(
          decoded.equals(listed[1]), accepts(keys, "{" + json + ":1}"), "listed key " + json);
      assertEquals(
          !decoded.equals("k"),
          accepts(extraKeys, "{" + json + ":1}"),
          "key beyond properties " + json);
      checked++;
    }
    assertEquals(3_000, checked);
  }

  @Test
  void oneOfBranchesOfDifferentKindsThroughAnyOfAreDisjoint() {
    Dfa dfa = compile("{\"oneOf\":[{\"type\":\"string\"},{\"anyOf\":[{\"enum\":[3,6,15,30]}]}]}");
    assertTrue(
        accepts(dfa, "\"abc\"")
            && accepts(dfa, "\"3\"")
            && accepts(dfa, "3")
            && accepts(dfa, "30"));
    assertFalse(accepts(dfa, "4") || accepts(dfa, "null"));
    JsonSchema.Compiled c =
        JsonSchema.compileDetailed(
            "{\"oneOf\":[{\"type\":\"string\"},{\"anyOf\":[{\"enum\":[3,6]}]}]}",
            JsonSchemaOptions.defaults());
    assertEquals(
        java.util.List.of(), c.narrowed(), "nothing left out: the branches differ by kind");
    // Not a proof: an anyOf branch that allows strings too.
    JsonSchema.Compiled overlap =
        JsonSchema.compileDetailed(
            "{\"oneOf\":[{\"type\":\"string\"},{\"anyOf\":[{\"enum\":[3]},{\"minLength\":2}]}]}",
            JsonSchemaOptions.defaults());
    assertFalse(
        accepts(overlap.fsm().dfa(), "\"ab\""),
        "\"ab\" is valid against both branches, so invalid");
  }
}
