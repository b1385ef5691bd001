package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.SmallVocabulary;
import dev.leap.vocab.Utf8;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Forced bytes: across rule ends where the stack decides, and equal to a byte-by-byte probe of the
 * twin.
 */
class GrammarForcedTest {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String forced(GrammarMatcher m, String prefix) {
    int s = m.walk(m.initialState(), bytes(prefix));
    assertTrue(s != ByteAutomaton.DEAD, prefix);
    return new String(m.forcedBytes(s), StandardCharsets.UTF_8);
  }

  @Test
  void forcedTextRunsPastTheEndOfARecursiveValueIntoTheCaller() {
    // value is recursive (called through the stack); root holds the fixed keys.
    String gbnf =
        "root ::= \"{\\\"a\\\":\" value \",\\\"b\\\":\" value \"}\"\n" + JsonGrammars.VALUE_RULES;
    Grammar g = Grammar.parse(gbnf);
    assertTrue(g.regular().isEmpty());
    GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
    assertEquals("{\"a\":", forced(m, ""));
    // After a complete array the value rule has ended: the caller's ,"b": is forced.
    assertEquals(",\"b\":", forced(m, "{\"a\":[1,{\"x\":[]}]"));
    assertEquals(",\"b\":", forced(m, "{\"a\":true"));
    assertEquals("}", forced(m, "{\"a\":null,\"b\":\"s\""));
    // A number may go on: nothing forced.
    assertEquals("", forced(m, "{\"a\":12"));
    // Inside the recursion: after "tr", "ue" then the return into root.
    assertEquals("ue,\"b\":", forced(m, "{\"a\":tr"));
    assertEquals("ull}", forced(m, "{\"a\":1,\"b\":n"));
    // Nested: the inner value ends, the inner object may go on (, or }): nothing.
    assertEquals("", forced(m, "{\"a\":{\"k\":true"));
    // At the end: accepting, nothing forced.
    assertEquals("", forced(m, "{\"a\":1,\"b\":2}"));
  }

  @Test
  void toolCallForcesTheClosingTagAfterTheArguments() {
    GrammarMatcher m =
        CompiledGrammar.compile(Grammar.parse(Examples.text("tool-call")), SmallVocabulary.create())
            .newMatcher();
    assertEquals("<tool_call>\n{\"name\":\"", forced(m, ""));
    assertEquals("eather\",\"arguments\":{", forced(m, "<tool_call>\n{\"name\":\"get_w"));
    assertEquals(
        "}\n</tool_call>",
        forced(m, "<tool_call>\n{\"name\":\"search_web\",\"arguments\":{\"q\":[1,{}]}"));
  }

  /**
   * The twin's forced bytes: while not accepting and exactly one byte keeps the chart alive; cut as
   * the matcher cuts.
   */
  static byte[] twinForced(EarleyTwin twin, EarleyTwin.Chart chart) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EarleyTwin.Chart c = chart;
    while (!c.accepts() && out.size() < 64) {
      EarleyTwin.Chart only = null;
      int onlyByte = -1;
      int count = 0;
      for (int b = 0; b < 256 && count < 2; b++) {
        EarleyTwin.Chart next = twin.walk(c, new byte[] {(byte) b});
        if (next != null) {
          count++;
          only = next;
          onlyByte = b;
        }
      }
      if (count != 1) {
        break;
      }
      out.write(onlyByte);
      c = only;
    }
    byte[] f = out.toByteArray();
    // Inside a UTF-8 sequence at the end (not accepting, only continuation bytes can follow): cut
    // back.
    boolean inside = !c.accepts();
    boolean any = false;
    for (int b = 0; b < 256 && inside; b++) {
      if (twin.walk(c, new byte[] {(byte) b}) != null) {
        any = true;
        inside = Utf8.isContinuation(b);
      }
    }
    if (f.length > 0 && inside && any) {
      f = java.util.Arrays.copyOf(f, Utf8.lastCodePointStart(f));
    }
    return f;
  }

  @Test
  void forcedBytesEqualTheTwinsOnRandomGrammars() {
    SplittableRandom rnd = new SplittableRandom(4242);
    int grammars = 0;
    int states = 0;
    int nonEmpty = 0;
    while (grammars < 60) {
      String gbnf = RandomGrammars.grammar(rnd);
      Grammar g;
      try {
        g = Grammar.parse(gbnf, 2_000);
      } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
        continue;
      }
      grammars++;
      EarleyTwin twin = EarleyTwin.of(gbnf);
      GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
      List<GbnfParser.Rule> rules = GbnfParser.parse(gbnf);
      for (int k = 0; k < 8; k++) {
        byte[] s = RandomGrammars.sentence(rules, rnd, 200);
        if (s == null) {
          continue;
        }
        byte[] p = java.util.Arrays.copyOf(s, rnd.nextInt(s.length + 1));
        try {
          int st = m.walk(m.initialState(), p);
          byte[] f = m.forcedBytes(st);
          if (f.length >= 64) {
            continue;
          }
          assertArrayEquals(
              twinForced(twin, twin.walk(twin.begin(), p)),
              f,
              "grammar\n" + gbnf + "after " + new String(p, StandardCharsets.UTF_8));
          states++;
          nonEmpty += f.length > 0 ? 1 : 0;
        } catch (GrammarLimitException e) {
          // ambiguous random grammar
        }
      }
    }
    assertTrue(states > 300, "states compared: " + states);
    assertTrue(nonEmpty > 30, "states with forced bytes: " + nonEmpty);
  }
}
