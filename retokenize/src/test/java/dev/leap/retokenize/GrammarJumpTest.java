package dev.leap.retokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.grammar.GrammarMatcher;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The jump retokenizer over a grammar matcher (a {@link ByteAutomaton} whose states are interned
 * stack configurations): forced bytes that cross the end of a recursive rule are planned like a
 * DFA's jump edges, and the invariants hold (committed bytes, the state after the jump equals the
 * walk of the committed bytes, appended tokens allowed by the matcher's masks).
 */
class GrammarJumpTest {
  private static final String GRAMMAR =
      String.join(
          "\n",
          "root   ::= \"{\\\"name\\\":\\\"\" name \"\\\",\\\"arguments\\\":\" value \",\\\"id\\\":\" [0-9]+ \"}\"",
          "name   ::= \"get_weather\" | \"search_web\"",
          "object ::= \"{\" ( member ( \",\" member )* )? \"}\"",
          "member ::= string \":\" value",
          "value  ::= object | array | string | [0-9]+ | \"true\" | \"false\" | \"null\"",
          "array  ::= \"[\" ( value ( \",\" value )* )? \"]\"",
          "string ::= \"\\\"\" [a-zA-Z ]* \"\\\"\"");

  private static final List<String> TEXTS =
      List.of(
          "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"days\":[1,2,{\"x\":true}]},\"id\":7}",
          "{\"name\":\"search_web\",\"arguments\":{},\"id\":12}",
          "{\"name\":\"search_web\",\"arguments\":{\"q\":\"the weather\",\"deep\":{\"a\":{\"b\":[null]}}},\"id\":3}");

  /**
   * Outputs so far that end inside the recursive value where the rest of it and the caller's text
   * are forced.
   */
  private static final List<String> CROSSING =
      List.of(
          "{\"name\":\"search_web\",\"arguments\":[1]",
          "{\"name\":\"get_weather\",\"arguments\":{\"a\":{}}",
          "{\"name\":\"get_weather\",\"arguments\":tr",
          "{\"name\":\"get_weather\",\"arguments\":\"x\"");

  @Test
  void plansJumpsAcrossRuleEnds() {
    Tokenizer tok = Tokenizer.gpt2();
    Grammar g = Grammar.parse(GRAMMAR);
    assertTrue(g.regular().isEmpty(), g.describe());
    CompiledGrammar cg = CompiledGrammar.compile(g, tok);
    int planned = 0;
    int acrossReturns = 0;
    List<String> all = new java.util.ArrayList<>(TEXTS);
    all.addAll(CROSSING);
    for (String text : all) {
      GrammarMatcher m = cg.newMatcher();
      JumpRetokenizer retok = new JumpRetokenizer(tok, m, true);
      int[] canon = tok.encode(text);
      int[] states = new int[canon.length + 1];
      states[0] = m.initialState();
      for (int i = 0; i <= canon.length; i++) {
        if (i > 0) {
          states[i] = m.walk(states[i - 1], tok.tokenBytes(canon[i - 1]));
          assertTrue(states[i] != ByteAutomaton.DEAD, text);
        }
        byte[] jump = m.forcedBytes(states[i]);
        if (jump.length < 2) {
          continue;
        }
        String forced = new String(jump, StandardCharsets.UTF_8);
        JumpPlan plan = retok.plan(canon, i, states, jump);
        if (plan == null) {
          continue;
        }
        planned++;
        // After the recursive value ended (the CROSSING outputs), the caller's text is forced.
        if (CROSSING.contains(text) && i == canon.length) {
          acrossReturns++;
          assertTrue(forced.endsWith(",\"id\":"), forced);
        }
        int[] committed = Arrays.copyOf(canon, plan.keep() + plan.append().length);
        System.arraycopy(plan.append(), 0, committed, plan.keep(), plan.append().length);
        byte[] before = tok.bytes(canon, 0, i);
        byte[] expect = Arrays.copyOf(before, before.length + plan.jumpedBytes());
        System.arraycopy(jump, 0, expect, before.length, plan.jumpedBytes());
        assertArrayEquals(
            expect, tok.bytes(committed, 0, committed.length), text + ": committed bytes");
        assertEquals(
            m.walk(m.initialState(), expect), plan.stateAfter(), text + ": state after the jump");
        int s = states[plan.keep()];
        for (int t : plan.append()) {
          assertTrue(
              (m.allowed(s)[t >>> 6] & (1L << t)) != 0,
              text + ": appended token " + t + " allowed");
          s = m.nextState(s, t);
        }
        assertEquals(plan.stateAfter(), s, text);
      }
    }
    assertTrue(planned >= 6, "jumps planned: " + planned);
    assertTrue(acrossReturns >= 3, "jumps across the end of the recursive rule: " + acrossReturns);
  }
}
