package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.RandomRegex;
import org.junit.jupiter.api.Test;

/**
 * A minimized automaton compiled again is the same table: the JSON Schema converter uses a
 * document's embedded automaton as its DFA instead of determinizing and minimizing it again ({@code
 * Converter.compileDocument}). The twin is compiling it again; random regexes, tables compared
 * state by state and byte by byte.
 */
class MinimalAgainTest {

  @Test
  void compilingAMinimizedAutomatonAgainGivesTheSameTable() {
    long seed = 2729L;
    RandomRegex gen = new RandomRegex(seed);
    int compared = 0;
    for (int round = 0; round < 400; round++) {
      Dfa d;
      try {
        d = Automata.compile(RegexParser.parse(gen.next(3)), "test", 20_000);
      } catch (ConstraintException e) {
        continue;
      }
      if (d == null) {
        continue;
      }
      Dfa again = Automata.compileNonEmpty(new Re.Automaton(d), "test", 20_000);
      assertEquals(d.stateCount(), again.stateCount(), "round " + round + " (seed " + seed + ")");
      assertEquals(d.initialState(), again.initialState());
      for (int s = 0; s < d.stateCount(); s++) {
        assertEquals(d.isAccepting(s), again.isAccepting(s), "round " + round + " state " + s);
        for (int b = 0; b < 256; b++) {
          assertEquals(d.step(s, b), again.step(s, b), "round " + round + " state " + s);
        }
      }
      compared++;
    }
    assertTrue(compared > 300, "compared " + compared);
  }
}
