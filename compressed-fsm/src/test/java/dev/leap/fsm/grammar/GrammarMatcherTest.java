package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.SmallVocabulary;
import dev.leap.vocab.Vocabulary;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The matcher as the runtime drives it: interned states, rollback by re-walking, EOS, dead states.
 */
class GrammarMatcherTest {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void statesAreInternedSoEarlierStatesCanBeWalkedAgain() {
    GrammarMatcher m =
        CompiledGrammar.compile(Grammar.json(), SmallVocabulary.create()).newMatcher();
    int a = m.walk(m.initialState(), bytes("[{\"k\":[1,"));
    int b = m.walk(m.walk(m.initialState(), bytes("[{\"k\":")), bytes("[1,"));
    assertEquals(a, b, "the same text reaches the same int state, however it was split");
    int count = m.stateCount();
    assertEquals(a, m.walk(m.initialState(), bytes("[{\"k\":[1,")));
    assertEquals(count, m.stateCount(), "walking again interns nothing new");
    // Rolling back is cutting the list of states: an earlier state walks on as before.
    int mid = m.walk(m.initialState(), bytes("[{\"k\":"));
    assertEquals(m.walk(mid, bytes("true}]")), m.walk(m.initialState(), bytes("[{\"k\":true}]")));
    assertTrue(m.isAccepting(m.walk(mid, bytes("true}]"))));
  }

  @Test
  void eosOnlyWhereTheTextMayEnd() {
    Vocabulary v = SmallVocabulary.create();
    int eos = v.eosIds()[0];
    GrammarMatcher m = CompiledGrammar.compile(Grammar.json(), v).newMatcher();
    int open = m.walk(m.initialState(), bytes("[1"));
    int done = m.walk(m.initialState(), bytes("[1]"));
    assertFalse((m.allowed(open)[eos >>> 6] & (1L << eos)) != 0);
    assertTrue((m.allowed(done)[eos >>> 6] & (1L << eos)) != 0);
    assertEquals(ByteAutomaton.DEAD, m.nextState(done, eos), "EOS has no next state");
    assertFalse(m.hasTransitions(done), "nothing may follow a complete top-level value");
    assertEquals(1, m.allowedCount(done), "only EOS");
  }

  @Test
  void deadStates() {
    GrammarMatcher m =
        CompiledGrammar.compile(Grammar.json(), SmallVocabulary.create()).newMatcher();
    assertEquals(ByteAutomaton.DEAD, m.walk(m.initialState(), bytes("[1]]")));
    assertEquals(ByteAutomaton.DEAD, m.walk(ByteAutomaton.DEAD, bytes("x")));
    assertFalse(m.isAccepting(ByteAutomaton.DEAD));
    assertFalse(m.hasTransitions(ByteAutomaton.DEAD));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> m.allowed(ByteAutomaton.DEAD));
    assertTrue(e.getMessage().contains("not a live state"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> m.forcedBytes(12345));
  }

  @Test
  void nextStateIsTheWalkOfTheTokensBytesAndDeadWhenNotAllowed() {
    Vocabulary v = SmallVocabulary.create();
    GrammarMatcher m = CompiledGrammar.compile(Grammar.json(), v).newMatcher();
    int s = m.walk(m.initialState(), bytes("{\"a\":"));
    long[] mask = m.allowed(s);
    for (int id = 0; id < v.size(); id++) {
      byte[] b = v.tokenBytes(id);
      int next = m.nextState(s, id);
      boolean allowed = (mask[id >>> 6] & (1L << id)) != 0;
      if (b == null) {
        assertEquals(ByteAutomaton.DEAD, next);
        continue;
      }
      assertEquals(allowed, next != ByteAutomaton.DEAD, "token " + id);
      assertEquals(m.walk(s, b), next);
    }
    assertArrayEquals(mask, m.allowed(s), "cached");
  }
}
