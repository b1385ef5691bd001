package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ConstraintException;
import dev.leap.testkit.RandomRegex;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The subset construction's shortcut (a class whose NFA targets equal the previous class's takes
 * its DFA state without a closure) against its naive twin, which computes every class's closure
 * from the class's first byte; and the minimizer's row-major grouping of identical columns against
 * grouping whole columns. Both must give exactly the same tables, not only the same languages.
 */
class DeterminizerTest {

  /** Naive twin: every class's targets and closure computed from scratch, sets as sorted sets. */
  static Determinizer.RawDfa naive(Nfa nfa, int[] classOf, int classes) {
    int[] firstByte = new int[classes];
    Arrays.fill(firstByte, -1);
    for (int b = 0; b < 256; b++) {
      if (firstByte[classOf[b]] < 0) {
        firstByte[classOf[b]] = b;
      }
    }
    Map<List<Integer>, Integer> ids = new HashMap<>();
    List<List<Integer>> sets = new ArrayList<>();
    List<Integer> start = closure(nfa, List.of(nfa.start));
    ids.put(start, 0);
    sets.add(start);
    List<Integer> table = new ArrayList<>();
    for (int d = 0; d < sets.size(); d++) {
      for (int c = 0; c < classes; c++) {
        int b = firstByte[c];
        List<Integer> targets = new ArrayList<>();
        for (int s : sets.get(d)) {
          for (int e = nfa.firstEdge(s); e >= 0; e = nfa.nextEdge(e)) {
            if (nfa.edgeLo(e) <= b && b <= nfa.edgeHi(e)) {
              targets.add(nfa.edgeTo(e));
            }
          }
        }
        if (targets.isEmpty()) {
          table.add(-1);
          continue;
        }
        List<Integer> set = closure(nfa, targets);
        Integer id = ids.get(set);
        if (id == null) {
          id = sets.size();
          ids.put(set, id);
          sets.add(set);
        }
        table.add(id);
      }
    }
    boolean[] accepting = new boolean[sets.size()];
    for (int i = 0; i < accepting.length; i++) {
      accepting[i] = sets.get(i).contains(nfa.accept);
    }
    return new Determinizer.RawDfa(
        sets.size(),
        classes,
        classOf,
        table.stream().mapToInt(Integer::intValue).toArray(),
        accepting);
  }

  /** The epsilon closure, kept to states with byte edges and the accepting state, sorted. */
  private static List<Integer> closure(Nfa nfa, List<Integer> seeds) {
    TreeSet<Integer> seen = new TreeSet<>(seeds);
    ArrayDeque<Integer> todo = new ArrayDeque<>(seeds);
    while (!todo.isEmpty()) {
      int s = todo.pop();
      for (int e = nfa.firstEps(s); e >= 0; e = nfa.nextEps(e)) {
        if (seen.add(nfa.epsTo(e))) {
          todo.push(nfa.epsTo(e));
        }
      }
    }
    List<Integer> out = new ArrayList<>();
    for (int s : seen) {
      if (nfa.firstEdge(s) >= 0 || s == nfa.accept) {
        out.add(s);
      }
    }
    return out;
  }

  @Test
  void skippedClosuresGiveTheTableOfComputingEveryClosure() {
    RandomRegex gen = new RandomRegex(2727L);
    SplittableRandom r = new SplittableRandom(2728L);
    int compared = 0;
    for (int round = 0; round < 400; round++) {
      String regex = gen.next(3);
      // Wide classes and literals beside them, as JSON strings and keys are.
      if (r.nextBoolean()) {
        regex = "(\"[^\"\\\\]*\"|" + regex + ")(,[a-z]+:[^\\x00-\\x1f]{0,3})*";
      }
      Nfa nfa;
      Determinizer.RawDfa fast;
      try {
        nfa = Nfa.build(RegexParser.parse(regex), regex);
        fast = Determinizer.determinize(nfa, 5_000, regex);
      } catch (ConstraintException e) {
        continue;
      }
      Determinizer.RawDfa twin = naive(nfa, fast.classOf(), fast.classes());
      assertEquals(twin.states(), fast.states(), regex);
      assertArrayEquals(twin.table(), fast.table(), regex);
      assertArrayEquals(twin.accepting(), fast.accepting(), regex);
      compared++;
    }
    assertTrue(compared > 300, "compared " + compared);
  }

  @Test
  void rowMajorColumnGroupingEqualsWholeColumns() {
    SplittableRandom r = new SplittableRandom(2729L);
    for (int round = 0; round < 500; round++) {
      int states = 1 + r.nextInt(200);
      int k = 1 + r.nextInt(40);
      int values = 1 + r.nextInt(4);
      // Columns copied from a few distinct ones, so that many are equal.
      int[][] distinct = new int[1 + r.nextInt(k)][states];
      for (int[] col : distinct) {
        for (int s = 0; s < states; s++) {
          col[s] = r.nextInt(values) - 1;
        }
      }
      int[] table = new int[states * k];
      for (int c = 0; c < k; c++) {
        int[] col = distinct[r.nextInt(distinct.length)];
        for (int s = 0; s < states; s++) {
          table[s * k + c] = col[s];
        }
      }
      assertArrayEquals(
          Minimizer.columnClassesExact(states, k, table),
          Minimizer.columnClasses(states, k, table),
          "round " + round);
    }
  }
}
