package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.SmallVocabulary;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The four documented grammars ({@code docs/grammars/}) and the built-in JSON grammars: texts they
 * must accept and reject, the same answers from the twin, and free-form JSON against the JSON
 * Schema compiler's language for the schema {@code true}, its any value (which nests at most {@link
 * JsonSchema#ANY_DEPTH} levels; the grammar has no bound).
 */
class GrammarExamplesTest {

  private static final Map<String, List<String>> GOOD =
      Map.of(
          "arithmetic", List.of("1", "1+2", "12.5 * (3 - -4)", "((((7))))", "-(-(1))/2", "3.25"),
          "json",
              List.of(
                  "{}",
                  "[]",
                  "0",
                  "-1.5e+10",
                  "\"\\u00e9\\n\"",
                  "{\"a\":[1,{\"b\":null}],\"c\":\"é\"}",
                  "[[[[[]]]]]"),
          "sql-select",
              List.of(
                  "SELECT * FROM t",
                  "SELECT a, b AS c FROM t WHERE a = 1 AND (b < 'x''y' OR c IS NULL);",
                  "SELECT COUNT(*) FROM t x INNER JOIN u y ON x.id = y.id WHERE x.k IN (SELECT k FROM v WHERE NOT k = 3)"
                      + " GROUP BY x.k ORDER BY x.k DESC LIMIT 5"),
          "tool-call",
              List.of(
                  "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>",
                  "<tool_call>\n{\"name\":\"send_email\",\"arguments\":{}}\n</tool_call>\n<tool_call>\n{\"name\":\"search_web\","
                      + "\"arguments\":{\"q\":[1,true,{\"x\":-0.5}]}}\n</tool_call>"));

  private static final Map<String, List<String>> BAD =
      Map.of(
          "arithmetic", List.of("", "1+", "(1", "1  + 2", "01.", "1)"),
          "json", List.of("", "{", "[1,]", "01", "{\"a\" :1}", "{ }", "\"\\x\"", "[1] "),
          "sql-select",
              List.of(
                  "SELECT FROM t",
                  "SELECT * FROM t WHERE x",
                  "select * from t",
                  "SELECT * FROM t LIMIT x"),
          "tool-call",
              List.of(
                  "<tool_call>\n{\"name\":\"rm_rf\",\"arguments\":{}}\n</tool_call>",
                  "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":[]}\n</tool_call>"));

  @Test
  void examplesAcceptAndRejectAsDocumented() {
    for (String name : Examples.NAMES) {
      String gbnf = Examples.text(name);
      Grammar g = Grammar.parse(gbnf);
      assertTrue(g.regular().isEmpty(), name + " is recursive");
      assertTrue(g.describe().contains("compiled, recursive"), g.describe());
      GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
      EarleyTwin twin = EarleyTwin.of(gbnf);
      for (String t : GOOD.get(name)) {
        byte[] b = t.getBytes(StandardCharsets.UTF_8);
        assertTrue(m.isAccepting(m.walk(m.initialState(), b)), name + " accepts " + t);
        assertTrue(twin.matches(b), "twin: " + name + " accepts " + t);
        GrammarDifferentialTest.compare(m, twin, b, name + " " + t);
      }
      for (String t : BAD.get(name)) {
        byte[] b = t.getBytes(StandardCharsets.UTF_8);
        int s = m.walk(m.initialState(), b);
        assertTrue(s == ByteAutomaton.DEAD || !m.isAccepting(s), name + " rejects " + t);
        assertTrue(!twin.matches(b), "twin: " + name + " rejects " + t);
        GrammarDifferentialTest.compare(m, twin, b, name + " " + t);
      }
    }
  }

  @Test
  void docsJsonGrammarIsTheBuiltIn() {
    assertEquals(
        JsonGrammars.JSON_TEXT.strip(),
        Examples.text("json")
            .lines()
            .filter(l -> !l.startsWith("#"))
            .reduce((a, b) -> a + "\n" + b)
            .orElse("")
            .strip());
  }

  /** Nesting depth of a JSON text (brackets outside strings). */
  private static int depth(byte[] text) {
    int d = 0;
    int max = 0;
    boolean inString = false;
    for (int i = 0; i < text.length; i++) {
      byte c = text[i];
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '{' || c == '[') {
        max = Math.max(max, ++d);
      } else if (c == '}' || c == ']') {
        d--;
      }
    }
    return max;
  }

  @Test
  void freeFormJsonIsTheSchemaCompilersAnyValueWithoutTheDepthBound() {
    // The schema "true" is the converter's any value (AnyValues); "{}" and {"type":"object"} differ
    // only in
    // writing top-level keys in their one canonical spelling (members beyond properties).
    CompressedFsm any = JsonSchema.compile("true", JsonSchemaOptions.defaults());
    check(Grammar.json(), any, false, JsonGrammars.JSON_TEXT);
    check(Grammar.jsonObject(), any, true, JsonGrammars.JSON_OBJECT_TEXT);
  }

  private void check(Grammar g, CompressedFsm schema, boolean objectOnly, String gbnf) {
    GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
    List<GbnfParser.Rule> rules = GbnfParser.parse(gbnf);
    SplittableRandom rnd = new SplittableRandom(99);
    int agreed = 0;
    int deeper = 0;
    for (int i = 0; i < 3000; i++) {
      byte[] t = RandomGrammars.sentence(rules, rnd, 400);
      if (t == null) {
        continue;
      }
      if (i % 2 == 1) {
        t = RandomGrammars.mutate(t, rnd);
      }
      int s = m.walk(m.initialState(), t);
      boolean grammar = s != ByteAutomaton.DEAD && m.isAccepting(s);
      boolean dfa = schema.dfa().matches(t) && (!objectOnly || (t.length > 0 && t[0] == '{'));
      if (depth(t) <= JsonSchema.ANY_DEPTH) {
        assertEquals(dfa, grammar, new String(t, StandardCharsets.UTF_8));
        agreed++;
      } else {
        assertTrue(!dfa, "the schema compiler bounds the depth");
        deeper += grammar ? 1 : 0;
      }
    }
    assertTrue(agreed > 1000, "compared: " + agreed);
    assertTrue(deeper > 10, "deeper texts the grammar accepts: " + deeper);
  }
}
