package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import dev.leap.fsm.internal.Trees;
import dev.leap.testkit.RandomRegex;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link AutomatonCache} against compiling every tree ({@link Automata#compile}, its twin): the
 * same tables for random trees, one compile for the same DAG built twice from new objects (also
 * around automata compiled twice), two for DAGs that share differently (their NFAs differ), and a
 * limit reached remembered with its exception.
 */
class AutomatonCacheTest {

  static void assertSameTable(Dfa expected, Dfa actual, String what) {
    assertEquals(expected == null, actual == null, what);
    if (expected == null) {
      return;
    }
    assertEquals(expected.stateCount(), actual.stateCount(), what);
    for (int s = 0; s < expected.stateCount(); s++) {
      assertEquals(expected.isAccepting(s), actual.isAccepting(s), what);
      for (int b = 0; b < 256; b++) {
        assertEquals(expected.step(s, b), actual.step(s, b), what);
      }
    }
  }

  /** A DAG over {@code leaf}: {@code (x | y x) z x}, where x, y and z are built here. */
  static Re dag(String a, String b, boolean shareX) {
    Re x = Trees.seq(Trees.lit(a), Trees.rep(Trees.lit(b), 0, -1));
    Re x2 = shareX ? x : Trees.seq(Trees.lit(a), Trees.rep(Trees.lit(b), 0, -1));
    Re y = Trees.lit(b + a);
    return new Re.Concat(
        List.of(Trees.alt(List.of(x, new Re.Concat(List.of(y, x2)))), Trees.lit("z"), x));
  }

  @Test
  void cachedCompilesEqualCompilingEveryTree() {
    long seed = 2732L;
    RandomRegex gen = new RandomRegex(seed);
    AutomatonCache cache = new AutomatonCache();
    for (int round = 0; round < 300; round++) {
      Re re = RegexParser.parse(gen.next(3));
      Dfa direct;
      try {
        direct = Automata.compile(re, "test", 20_000);
      } catch (ConstraintException e) {
        continue;
      }
      assertSameTable(direct, cache.compile(re, "test", 20_000), "round " + round);
      // The same tree again: answered from the cache.
      assertSameTable(direct, cache.compile(re, "test", 20_000), "round " + round + " again");
    }
    assertTrue(cache.reused >= cache.compiled, "reused " + cache.reused);
  }

  @Test
  void equalDagsCompileOnceAndDifferentSharingTwice() {
    AutomatonCache cache = new AutomatonCache();
    Dfa first = cache.compile(dag("ab", "c", true), "test", 1_000);
    Dfa again = cache.compile(dag("ab", "c", true), "test", 1_000);
    assertSame(first, again);
    assertEquals(1, cache.compiled);
    Dfa unshared = cache.compile(dag("ab", "c", false), "test", 1_000);
    assertEquals(2, cache.compiled);
    assertSameTable(first, unshared, "the same language");
    cache.compile(dag("ab", "d", true), "test", 1_000);
    assertEquals(3, cache.compiled);
  }

  /**
   * Embedded automata are keyed by content: a tree around an automaton compiled again (a new object
   * with the same canonical table) is the tree compiled before; a different automaton is not.
   */
  @Test
  void automataWithEqualTablesAreOneKey() {
    AutomatonCache cache = new AutomatonCache();
    Re inner = dag("ab", "c", true);
    Dfa a1 = Automata.compile(inner, "test", 1_000);
    Dfa a2 = Automata.compile(dag("ab", "c", true), "test", 1_000);
    Dfa other = Automata.compile(dag("ab", "d", true), "test", 1_000);
    Dfa first = cache.compile(around(a1), "test", 1_000);
    Dfa again = cache.compile(around(a2), "test", 1_000);
    assertSame(first, again);
    assertEquals(1, cache.compiled);
    assertSameTable(Automata.compile(around(a2), "test", 1_000), again, "the direct compile");
    Dfa different = cache.compile(around(other), "test", 1_000);
    assertEquals(2, cache.compiled);
    assertSameTable(Automata.compile(around(other), "test", 1_000), different, "another automaton");
  }

  /** {@code x a x*} for the automaton {@code a}: two nodes of it, one shared. */
  private static Re around(Dfa a) {
    Re.Automaton node = new Re.Automaton(a);
    return new Re.Concat(
        List.of(
            Trees.lit("x"), node, Trees.rep(new Re.Concat(List.of(node, Trees.lit("x"))), 0, -1)));
  }

  @Test
  void aLimitReachedIsRemembered() {
    AutomatonCache cache = new AutomatonCache();
    Re big = Trees.rep(Trees.alt(List.of(Trees.lit("ab"), Trees.lit("cd"))), 0, 40);
    AutomatonTooLargeException e =
        assertThrows(AutomatonTooLargeException.class, () -> cache.compile(big, "test", 10));
    AutomatonTooLargeException again =
        assertThrows(AutomatonTooLargeException.class, () -> cache.compile(big, "test", 10));
    assertSame(e, again);
    assertEquals(1, cache.compiled);
    assertTrue(cache.compile(big, "test", 1_000) != null);
    assertEquals(2, cache.compiled);
  }
}
