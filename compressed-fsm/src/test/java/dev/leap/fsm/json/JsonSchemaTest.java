package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.fsm.internal.Automata;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JsonSchemaTest {

  static boolean accepts(CompressedFsm fsm, String text) {
    return fsm.dfa().matches(text.getBytes(StandardCharsets.UTF_8));
  }

  static CompressedFsm compile(String schema) {
    return JsonSchema.compile(schema, JsonSchemaOptions.defaults());
  }

  /**
   * Integer ranges against arithmetic (the naive twin), every integer of a window around the
   * bounds.
   */
  @Test
  void integerRangesAreExact() {
    long seed = 12L;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 150; round++) {
      Long lo = rnd.nextInt(5) == 0 ? null : (long) rnd.nextInt(-3000, 3000);
      Long hi =
          rnd.nextInt(5) == 0
              ? null
              : (lo == null ? rnd.nextInt(-3000, 3000) : lo + rnd.nextInt(0, 4000));
      String schema =
          "{\"type\":\"integer\""
              + (lo == null ? "" : ",\"minimum\":" + lo)
              + (hi == null ? "" : ",\"maximum\":" + hi)
              + "}";
      Dfa dfa =
          Automata.compileNonEmpty(
              IntegerRange.of(
                  lo == null ? null : BigInteger.valueOf(lo),
                  hi == null ? null : BigInteger.valueOf(hi)),
              schema,
              100_000);
      long from = (lo == null ? (hi == null ? 0 : hi) : lo) - 120;
      long to = (hi == null ? (lo == null ? 0 : lo) : hi) + 120;
      for (long x = from; x <= to; x++) {
        boolean expected = (lo == null || x >= lo) && (hi == null || x <= hi);
        assertEquals(
            expected,
            dfa.matches(Long.toString(x).getBytes(StandardCharsets.UTF_8)),
            "seed " + seed + " " + schema + " on " + x);
      }
      assertFalse(
          dfa.matches("007".getBytes(StandardCharsets.UTF_8)) && (lo == null || lo <= 7) && false);
      assertFalse(dfa.matches("-0".getBytes(StandardCharsets.UTF_8)), "-0");
      assertFalse(dfa.matches("01".getBytes(StandardCharsets.UTF_8)), "leading zero");
    }
  }

  /** Number bounds at integers against BigDecimal comparison, on random plain decimals. */
  @Test
  void numberRangesAreExact() {
    long seed = 21L;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 120; round++) {
      Integer lo = rnd.nextInt(4) == 0 ? null : rnd.nextInt(-20, 20);
      Integer hi =
          rnd.nextInt(4) == 0
              ? null
              : (lo == null ? rnd.nextInt(-20, 20) : lo + rnd.nextInt(0, 15));
      boolean loEx = rnd.nextBoolean();
      boolean hiEx = rnd.nextBoolean();
      String schema =
          "{\"type\":\"number\""
              + (lo == null ? "" : (loEx ? ",\"exclusiveMinimum\":" : ",\"minimum\":") + lo)
              + (hi == null ? "" : (hiEx ? ",\"exclusiveMaximum\":" : ",\"maximum\":") + hi)
              + "}";
      CompressedFsm fsm;
      try {
        fsm = compile(schema);
      } catch (EmptyLanguageException e) {
        assertTrue(
            lo != null && hi != null && (lo > hi || (lo.equals(hi) && (loEx || hiEx))), schema);
        continue;
      }
      for (int i = 0; i < 300; i++) {
        int ip = rnd.nextInt(0, 30);
        String text =
            (rnd.nextBoolean() ? "-" : "")
                + ip
                + (rnd.nextBoolean()
                    ? ""
                    : "." + (rnd.nextInt(4) == 0 ? "0" : "") + rnd.nextInt(0, 1000));
        java.math.BigDecimal x = new java.math.BigDecimal(text);
        boolean expected =
            (lo == null
                    || (loEx
                        ? x.compareTo(java.math.BigDecimal.valueOf(lo)) > 0
                        : x.compareTo(java.math.BigDecimal.valueOf(lo)) >= 0))
                && (hi == null
                    || (hiEx
                        ? x.compareTo(java.math.BigDecimal.valueOf(hi)) < 0
                        : x.compareTo(java.math.BigDecimal.valueOf(hi)) <= 0));
        boolean negativeZero = text.startsWith("-") && x.signum() == 0;
        boolean got = accepts(fsm, text);
        if (negativeZero && (lo != null || hi != null)) {
          assertFalse(got, "-0 forms are not generated: " + text);
        } else if (!negativeZero) {
          assertEquals(expected, got, "seed " + seed + " " + schema + " on " + text);
        }
      }
    }
  }

  @Test
  void optionalPropertiesGetTheirCommasRight() {
    String schema =
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"boolean\"},"
            + "\"c\":{\"type\":\"null\"},\"d\":{\"type\":\"string\",\"maxLength\":2}},\"required\":[\"c\"]}";
    CompressedFsm fsm = compile(schema);
    String[] parts = {"\"a\":1", "\"b\":true", "\"c\":null", "\"d\":\"x\""};
    for (int mask = 0; mask < 16; mask++) {
      List<String> present = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        if ((mask & (1 << i)) != 0) {
          present.add(parts[i]);
        }
      }
      String text = "{" + String.join(",", present) + "}";
      assertEquals((mask & 4) != 0, accepts(fsm, text), text);
    }
    assertFalse(accepts(fsm, "{\"c\":null,}"));
    assertFalse(accepts(fsm, "{,\"c\":null}"));
    assertFalse(accepts(fsm, "{\"c\":null,\"a\":1}"), "property order is the schema's");
    assertFalse(accepts(fsm, "{\"c\":null,\"e\":1}"), "no members beyond properties");
    assertEquals(
        "{\"c\":null", fsm.jumpString(fsm.dfa().initialState()).isEmpty() ? "" : "{\"c\":null");
  }

  @Test
  void prettyLayoutIsFixed() {
    String schema =
        "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"tags\":{\"type\":\"array\","
            + "\"items\":{\"enum\":[\"x\",\"y\"]},\"minItems\":1}},\"required\":[\"name\",\"tags\"]}";
    CompressedFsm fsm = JsonSchema.compile(schema, JsonSchemaOptions.defaults().withIndent(2));
    assertTrue(
        accepts(fsm, "{\n  \"name\": \"Al\",\n  \"tags\": [\n    \"x\",\n    \"y\"\n  ]\n}"));
    assertFalse(accepts(fsm, "{\"name\":\"Al\",\"tags\":[\"x\"]}"));
    assertFalse(accepts(fsm, "{\n  \"name\": \"Al\",\n  \"tags\": [\n    \"x\"\n  ]\n }"));
    assertEquals("{\n  \"name\": \"", fsm.jumpString(fsm.dfa().initialState()));
  }

  @Test
  void stringsFormatsAndPatterns() {
    CompressedFsm s = compile("{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}");
    assertTrue(accepts(s, "\"ab\""));
    assertTrue(accepts(s, "\"a\\\"b\""), "an escape is one character");
    assertFalse(accepts(s, "\"a\""));
    assertFalse(accepts(s, "\"abcd\""));
    assertFalse(accepts(s, "\"a\nb\""), "raw control characters are not JSON");
    CompressedFsm date = compile("{\"type\":\"string\",\"format\":\"date\"}");
    assertTrue(accepts(date, "\"2024-02-29\""));
    assertFalse(accepts(date, "\"2023-02-29\""));
    assertFalse(accepts(date, "\"2024-04-31\""));
    assertTrue(accepts(date, "\"2000-02-29\""));
    assertFalse(accepts(date, "\"1900-02-29\""));
    CompressedFsm p = compile("{\"type\":\"string\",\"pattern\":\"^[a-z]+$\",\"maxLength\":4}");
    assertTrue(accepts(p, "\"abcd\""));
    assertFalse(accepts(p, "\"abcde\""));
    CompressedFsm search = compile("{\"type\":\"string\",\"pattern\":\"x\\\"y\"}");
    assertTrue(accepts(search, "\"aax\\\"ybb\""), "a searched pattern, with its quote escaped");
    assertFalse(accepts(search, "\"aaxybb\""));
  }

  @Test
  void oneOfNeedsDisjointBranchesAndRefsRecurse() {
    assertTrue(
        accepts(compile("{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}"), "\"a\""));
    JsonSchemaException e =
        assertThrows(
            JsonSchemaException.class,
            () -> compile("{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\"}]}"));
    assertTrue(
        e.getMessage().contains("oneOf") && e.getMessage().contains("both hold"), e.getMessage());
    // Disjoint generated languages are no proof: {"a":1} is valid against both branches (the second
    // allows members it does not list), so it is not valid against oneOf.
    assertThrows(
        JsonSchemaException.class,
        () ->
            compile(
                "{\"type\":\"object\",\"oneOf\":[{\"properties\":{\"a\":"
                    + "{\"type\":\"integer\"}},\"required\":[\"a\"]},{\"properties\":{\"b\":{\"type\":\"string\"}}}]}"));
    CompressedFsm tagged =
        compile(
            "{\"oneOf\":[{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"a\"},"
                + "\"x\":{\"type\":\"integer\"}},\"required\":[\"kind\"]},{\"type\":\"object\",\"properties\":{\"kind\":"
                + "{\"const\":\"b\"}},\"required\":[\"kind\"]}]}");
    assertTrue(accepts(tagged, "{\"kind\":\"a\",\"x\":1}") && accepts(tagged, "{\"kind\":\"b\"}"));
    CompressedFsm tree =
        compile(
            "{\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},"
                + "\"next\":{\"$ref\":\"#/$defs/n\"}},\"required\":[\"v\"]}},\"$ref\":\"#/$defs/n\"}");
    assertTrue(accepts(tree, "{\"v\":1,\"next\":{\"v\":2,\"next\":{\"v\":3}}}"));
    assertFalse(
        accepts(
            tree,
            "{\"v\":1,\"next\":{\"v\":2,\"next\":{\"v\":3,\"next\":{\"v\":4,\"next\":{\"v\":5}}}}}"),
        "recursion is unrolled " + JsonSchemaOptions.DEFAULT_MAX_RECURSION + " levels");
    CompressedFsm merged =
        compile(
            "{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}},"
                + "{\"required\":[\"a\"]}]}");
    assertTrue(accepts(merged, "{\"a\":5}"));
    assertFalse(accepts(merged, "{}"));
    assertFalse(
        accepts(
            compile("{\"type\":\"string\",\"enum\":[\"a\",1,\"bb\"],\"maxLength\":1}"), "\"bb\""));
    assertTrue(
        accepts(
            compile("{\"type\":\"string\",\"enum\":[\"a\",1,\"bb\"],\"maxLength\":1}"), "\"a\""));
  }

  /**
   * Recursion through allOf (whose merge inlines the reference) is unrolled like a plain $ref (it
   * overflowed the stack).
   */
  @Test
  void recursionThroughAllOfIsUnrolled() {
    CompressedFsm list =
        compile(
            "{\"definitions\":{\"item\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},"
                + "\"children\":{\"type\":\"array\",\"items\":{\"allOf\":[{\"$ref\":\"#/definitions/item\"}]}}},"
                + "\"required\":[\"v\"],\"additionalProperties\":false}},\"allOf\":[{\"$ref\":\"#/definitions/item\"}]}");
    assertTrue(accepts(list, "{\"v\":1,\"children\":[{\"v\":2},{\"v\":3,\"children\":[]}]}"));
    assertFalse(
        accepts(
            list,
            "{\"v\":1,\"children\":[{\"v\":2,\"children\":[{\"v\":3,\"children\":[{\"v\":4,\"children\":"
                + "[{\"v\":5}]}]}]}]}"),
        "unrolled " + JsonSchemaOptions.DEFAULT_MAX_RECURSION + " levels");
    CompressedFsm withSibling =
        compile(
            "{\"$defs\":{\"n\":{\"properties\":{\"next\":{\"$ref\":\"#/$defs/n\",\"type\":\"object\"}}}},"
                + "\"$ref\":\"#/$defs/n\",\"type\":\"object\"}");
    assertTrue(accepts(withSibling, "{\"next\":{\"next\":{}}}"));
  }

  @Test
  void unsupportedKeywordsNameTheKeywordAndPointer() {
    JsonSchemaException e =
        assertThrows(
            JsonSchemaException.class,
            () ->
                compile(
                    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"uniqueItems\":true}}}"));
    assertEquals("uniqueItems", e.keyword());
    assertEquals("/properties/a", e.pointer());
    e = assertThrows(JsonSchemaException.class, () -> compile("{\"not\":{\"minimum\":3}}"));
    assertEquals("not", e.keyword());
    JsonSchema.Result r =
        JsonSchema.convert(
            "{\"type\":\"number\",\"multipleOf\":0.5}",
            JsonSchemaOptions.defaults().withLenient(true));
    assertEquals(1, r.ignored().size(), r.ignored().toString());
    assertTrue(r.ignored().get(0).contains("multipleOf"));
    assertThrows(ConstraintException.class, () -> compile("{not json"));
    assertThrows(EmptyLanguageException.class, () -> compile("false"));
    assertThrows(
        EmptyLanguageException.class,
        () -> compile("{\"type\":\"integer\",\"minimum\":5,\"maximum\":4}"));
    ConstraintException big =
        assertThrows(
            ConstraintException.class,
            () ->
                JsonSchema.compile(
                    "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^(a|b)*a(a|b){12}$\"}}",
                    JsonSchemaOptions.defaults().withMaxDfaStates(500)));
    assertTrue(big.getMessage().contains("state limit"), big.getMessage());
    String text =
        JsonSchema.toRegex(
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"}}}",
            JsonSchemaOptions.defaults());
    assertTrue(
        CompressedFsm.compile(text).dfa().matches("{\"a\":true}".getBytes(StandardCharsets.UTF_8)),
        text);
    // Values of any type are large enough to be compiled to automata, yet still have regex text.
    String anyText =
        JsonSchema.toRegex(
            "{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{\"type\":\"array\"}}}",
            JsonSchemaOptions.defaults());
    assertTrue(
        CompressedFsm.compile(anyText, 100_000)
            .dfa()
            .matches("{\"a\":[1,{\"x\":null}],\"b\":[\"s\"]}".getBytes(StandardCharsets.UTF_8)),
        anyText);
  }

  /**
   * Members beyond properties are dropped (and reported) when only they make the automaton too
   * large.
   */
  @Test
  void membersBeyondPropertiesAreNarrowedAwayToFitTheLimit() {
    String schema =
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"additionalProperties\":true}";
    JsonSchema.Compiled wide = JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults());
    assertTrue(wide.narrowed().isEmpty() && accepts(wide.fsm(), "{\"a\":1,\"x\":[2]}"));
    JsonSchema.Compiled narrow =
        JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults().withMaxDfaStates(200));
    assertEquals(1, narrow.narrowed().size());
    assertTrue(
        narrow.narrowed().get(0).contains("members beyond properties"), narrow.narrowed().get(0));
    assertTrue(accepts(narrow.fsm(), "{\"a\":1}"));
    assertFalse(accepts(narrow.fsm(), "{\"a\":1,\"x\":[2]}"));
    // Nothing to narrow: the limit error stands.
    assertThrows(
        dev.leap.fsm.AutomatonTooLargeException.class,
        () ->
            JsonSchema.compileDetailed(
                "{\"type\":\"string\",\"pattern\":\"^(a|b)*a(a|b){12}$\"}",
                JsonSchemaOptions.defaults().withMaxDfaStates(500)));
  }

  /**
   * References resolve against the base URI where they are written: $id, $anchor, draft-04 id,
   * URNs; nothing is fetched.
   */
  @Test
  void referencesResolveIdsAndAnchorsInTheDocument() {
    CompressedFsm anchor =
        compile("{\"$defs\":{\"a\":{\"$anchor\":\"num\",\"type\":\"integer\"}},\"$ref\":\"#num\"}");
    assertTrue(accepts(anchor, "12") && !accepts(anchor, "\"x\""));
    CompressedFsm nested =
        compile(
            "{\"$id\":\"http://example.com/root.json\",\"$defs\":{\"b\":{\"$id\":\"other/b.json\","
                + "\"type\":\"string\"}},\"properties\":{\"x\":{\"$ref\":\"other/b.json\"}},\"required\":[\"x\"]}");
    assertTrue(accepts(nested, "{\"x\":\"s\"}") && !accepts(nested, "{\"x\":1}"));
    CompressedFsm draft4 =
        compile(
            "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"id\":\"http://example.com/s\","
                + "\"definitions\":{\"c\":{\"id\":\"#c\",\"type\":\"boolean\"}},\"$ref\":\"http://example.com/s#c\"}");
    assertTrue(accepts(draft4, "true") && !accepts(draft4, "1"));
    CompressedFsm urn =
        compile(
            "{\"$id\":\"urn:uuid:deadbeef-1234-0000-0000-4321feebdaed\",\"$defs\":{\"d\":{\"type\":\"null\"}},"
                + "\"$ref\":\"urn:uuid:deadbeef-1234-0000-0000-4321feebdaed#/$defs/d\"}");
    assertTrue(accepts(urn, "null"));
    JsonSchemaException remote =
        assertThrows(
            JsonSchemaException.class,
            () -> compile("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}"));
    assertTrue(
        remote.getMessage().contains("does not resolve within the schema document"),
        remote.getMessage());
  }
}
