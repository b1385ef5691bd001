package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.RandomRegex;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Minimizer#minimize} against its twin {@link DenseMinimizer} (the same refinement on the
 * dense table, without merging equal columns first): equal tables, state by state and byte by byte,
 * and equal classes, on the raw DFAs of random regexes and on random raw tables (mostly undefined,
 * with states that cannot reach acceptance, an empty language, and columns copied from others now
 * and then).
 */
class MinimizerTest {

  static void assertSameDfa(Dfa expected, Dfa actual, String what) {
    if (expected == null || actual == null) {
      assertTrue(expected == null && actual == null, what + ": one language is empty");
      return;
    }
    assertEquals(expected.stateCount(), actual.stateCount(), what);
    assertEquals(expected.classCount(), actual.classCount(), what);
    assertEquals(expected.initialState(), actual.initialState(), what);
    for (int b = 0; b < 256; b++) {
      assertEquals(expected.classOf(b), actual.classOf(b), what + " class of byte " + b);
    }
    for (int s = 0; s < expected.stateCount(); s++) {
      assertEquals(expected.isAccepting(s), actual.isAccepting(s), what + " state " + s);
      for (int b = 0; b < 256; b++) {
        assertEquals(expected.step(s, b), actual.step(s, b), what + " state " + s + " byte " + b);
      }
    }
  }

  @Test
  void rawDfasOfRandomRegexesMinimizeAsOnTheDenseTable() {
    long seed = 2730L;
    RandomRegex gen = new RandomRegex(seed);
    int compared = 0;
    for (int round = 0; round < 400; round++) {
      Determinizer.Runs runs;
      try {
        runs = Determinizer.runs(Nfa.build(RegexParser.parse(gen.next(3)), "test"), 20_000, "test");
      } catch (ConstraintException e) {
        continue;
      }
      Dfa twin = DenseMinimizer.minimize(runs.dense());
      String what = "round " + round + " (seed " + seed + ")";
      assertSameDfa(twin, Minimizer.minimize(runs), what + ", from the runs");
      assertSameDfa(twin, Minimizer.minimize(runs.dense()), what + ", from the table");
      compared++;
    }
    assertTrue(compared > 300, "compared " + compared);
  }

  /**
   * {@link Minimizer#equalColumns} against comparing whole columns, and its exact check against
   * hashes that collide.
   */
  @Test
  void equalColumnsAreTheEqualColumns() {
    long seed = 2736L;
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 500; round++) {
      int n = 1 + r.nextInt(40);
      int k = 1 + r.nextInt(30);
      int[] table = new int[n * k];
      int[][] distinct = new int[1 + r.nextInt(k)][n];
      for (int[] col : distinct) {
        for (int s = 0; s < n; s++) {
          col[s] = r.nextInt(3) == 0 ? r.nextInt(n) : -1;
        }
      }
      for (int c = 0; c < k; c++) {
        int[] col = distinct[r.nextInt(distinct.length)];
        for (int s = 0; s < n; s++) {
          table[s * k + c] = col[s];
        }
      }
      int[] classOf = new int[256];
      for (int b = 0; b < 256; b++) {
        classOf[b] = b % k;
      }
      Determinizer.Runs runs =
          Determinizer.Runs.of(new Determinizer.RawDfa(n, k, classOf, table, new boolean[n]));
      int[] sameAs = Minimizer.equalColumns(runs);
      int[] exact = Minimizer.columnClassesExact(n, k, table);
      // With hashes of two bits, columns that differ collide: the check finds it and nothing is
      // merged, or every merge is of equal columns.
      int[] weak = Minimizer.equalColumns(runs, 3L);
      for (int c = 0; c < k; c++) {
        assertEquals(
            exact[c], exact[weak[c]], "round " + round + " (seed " + seed + ") weak, class " + c);
      }
      for (int c = 0; c < k; c++) {
        int first = c;
        for (int d = 0; d < c; d++) {
          if (exact[d] == exact[c]) {
            first = d;
            break;
          }
        }
        assertEquals(first, sameAs[c], "round " + round + " (seed " + seed + ") class " + c);
      }
    }
  }

  @Test
  void randomRawTablesMinimizeAsOnTheDenseTable() {
    long seed = 2731L;
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 500; round++) {
      int n = 1 + r.nextInt(60);
      int k = 1 + r.nextInt(12);
      int[] classOf = new int[256];
      for (int b = 0; b < 256; b++) {
        classOf[b] = b < k ? b : r.nextInt(k);
      }
      double defined = r.nextDouble();
      int[] table = new int[n * k];
      for (int i = 0; i < table.length; i++) {
        table[i] = r.nextDouble() < defined ? r.nextInt(n) : -1;
      }
      // Now and then columns copied from others (classes no state tells apart), or equal but for
      // one entry.
      if (r.nextBoolean()) {
        for (int c = 1; c < k; c++) {
          if (r.nextInt(3) > 0) {
            int from = r.nextInt(c);
            for (int s = 0; s < n; s++) {
              table[s * k + c] = table[s * k + from];
            }
            if (r.nextInt(4) == 0) {
              int s = r.nextInt(n);
              table[s * k + c] = table[s * k + c] < 0 ? r.nextInt(n) : -1;
            }
          }
        }
      }
      boolean[] accepting = new boolean[n];
      double acceptRate = r.nextDouble() * 0.3;
      for (int s = 0; s < n; s++) {
        accepting[s] = r.nextDouble() < acceptRate;
      }
      Determinizer.RawDfa raw = new Determinizer.RawDfa(n, k, classOf, table, accepting);
      assertSameDfa(
          DenseMinimizer.minimize(raw),
          Minimizer.minimize(raw),
          "round " + round + " (seed " + seed + ")");
    }
  }
}
