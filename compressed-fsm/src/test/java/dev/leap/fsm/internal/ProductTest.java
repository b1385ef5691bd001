package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.RandomRegex;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Automata#intersect} and {@link Automata#minus} against their naive twin (running both
 * operands side by side), and {@link Re.Automaton} embedded back into a tree.
 */
class ProductTest {

  @Test
  void productsAgreeWithRunningBothAutomata() {
    RandomRegex gen = new RandomRegex(4242L);
    int checked = 0;
    int inBoth = 0;
    for (int round = 0; round < 300; round++) {
      Dfa a;
      Dfa b;
      try {
        a = CompressedFsm.compile(gen.next(3), 5_000).dfa();
        b = CompressedFsm.compile(gen.next(3), 5_000).dfa();
      } catch (dev.leap.fsm.ConstraintException e) {
        continue;
      }
      Dfa and = Automata.intersect(a, b, 100_000, "test");
      Dfa minus = Automata.minus(a, b, 100_000, "test");
      // The product, embedded as a tree node, compiles back to the same language.
      Dfa embedded =
          and == null
              ? null
              : Automata.compile(
                  new Re.Concat(List.of(new Re.Automaton(and), Re.EMPTY)), "test", 100_000);
      for (int i = 0; i < 40; i++) {
        String s =
            switch (i % 4) {
              case 0 -> gen.sampleMatch(walk(a), 24);
              case 1 -> gen.sampleMatch(walk(b), 24);
              case 2 -> {
                String m = gen.sampleMatch(walk(a), 24);
                yield m == null ? null : gen.mutate(m);
              }
              default -> gen.sampleRandom(8);
            };
        if (s == null) {
          continue;
        }
        byte[] x = s.getBytes(StandardCharsets.UTF_8);
        boolean inA = a.matches(x);
        boolean inB = b.matches(x);
        assertEquals(inA && inB, and != null && and.matches(x), "intersection on " + s);
        assertEquals(inA && !inB, minus != null && minus.matches(x), "difference on " + s);
        assertEquals(
            inA && inB, embedded != null && embedded.matches(x), "embedded intersection on " + s);
        checked++;
        inBoth += inA && inB ? 1 : 0;
      }
    }
    assertTrue(checked > 5_000 && inBoth > 500, checked + " strings, " + inBoth + " in both");
  }

  /** The DFA as testkit's random walk sees it. */
  static RandomRegex.Automaton walk(Dfa dfa) {
    return RandomRegex.automaton(dfa.initialState(), dfa::isAccepting, dfa::step);
  }
}
