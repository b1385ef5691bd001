package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.AutomatonTooLargeException;
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
 * The subset construction's shortcuts (a class whose NFA targets equal the previous class's takes
 * its DFA state without a closure; a single target's closure looked up once per NFA state; subsets
 * found by content in a pool) against its naive twin, which computes every class's closure from the
 * class's first byte; and the minimizer's row-major grouping of identical columns against grouping
 * whole columns. Both must give exactly the same tables, not only the same languages, and the
 * construction must stop at the same state count against a limit.
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

  /**
   * Trees as the JSON Schema compiler writes them: minimal automata embedded in alternations,
   * concatenations and repetitions of themselves and of regexes, so that most classes of most
   * subsets have one NFA target (the case the single-target look-up serves).
   */
  @Test
  void embeddedAutomataGiveTheTableOfComputingEveryClosure() {
    RandomRegex gen = new RandomRegex(2732L);
    SplittableRandom r = new SplittableRandom(2733L);
    int compared = 0;
    for (int round = 0; round < 300; round++) {
      Re tree;
      String what;
      try {
        String a = gen.next(3);
        String b = gen.next(2);
        Re.Automaton da =
            new Re.Automaton(Automata.compileNonEmpty(RegexParser.parse(a), a, 5_000));
        Re.Automaton db =
            new Re.Automaton(Automata.compileNonEmpty(RegexParser.parse(b), b, 5_000));
        Re parsed = RegexParser.parse(gen.next(2));
        what = a + " / " + b;
        tree =
            switch (r.nextInt(4)) {
              case 0 -> new Re.Alt(List.of(da, db, new Re.Concat(List.of(da, db))));
              case 1 ->
                  new Re.Concat(List.of(da, new Re.Repeat(new Re.Concat(List.of(db, da)), 0, -1)));
              case 2 -> new Re.Repeat(new Re.Alt(List.of(da, parsed)), 1, 1 + r.nextInt(4));
              default -> new Re.Concat(List.of(parsed, da, new Re.Alt(List.of(db, parsed)), da));
            };
      } catch (ConstraintException e) {
        continue;
      }
      Nfa nfa = Nfa.build(tree, what);
      Determinizer.RawDfa fast;
      try {
        fast = Determinizer.determinize(nfa, 20_000, what);
      } catch (ConstraintException e) {
        continue;
      }
      Determinizer.RawDfa twin = naive(nfa, fast.classOf(), fast.classes());
      assertEquals(twin.states(), fast.states(), what);
      assertArrayEquals(twin.table(), fast.table(), what);
      assertArrayEquals(twin.accepting(), fast.accepting(), what);
      compared++;
    }
    assertTrue(compared > 200, "compared " + compared);
  }

  /**
   * The construction stops at the state count the twin reaches: one state short of the twin's count
   * fails, reporting that count plus one; the twin's count passes.
   */
  @Test
  void stopsAtTheTwinsStateCount() {
    RandomRegex gen = new RandomRegex(2734L);
    int compared = 0;
    for (int round = 0; round < 300; round++) {
      String regex = gen.next(3);
      Nfa nfa;
      Determinizer.RawDfa fast;
      try {
        nfa = Nfa.build(RegexParser.parse(regex), regex);
        fast = Determinizer.determinize(nfa, 5_000, regex);
      } catch (ConstraintException e) {
        continue;
      }
      int states = naive(nfa, fast.classOf(), fast.classes()).states();
      if (states < 2) {
        continue;
      }
      AutomatonTooLargeException e =
          assertThrows(
              AutomatonTooLargeException.class,
              () -> Determinizer.determinize(nfa, states - 1, regex),
              regex);
      assertEquals(states, e.reached(), regex);
      assertEquals(states, Determinizer.determinize(nfa, states, regex).states(), regex);
      compared++;
    }
    assertTrue(compared > 200, "compared " + compared);
  }

  /** The rows as runs: maximal (the runs of the dense table are the same runs). */
  @Test
  void runsAreTheRunsOfTheDenseTable() {
    RandomRegex gen = new RandomRegex(2735L);
    for (int round = 0; round < 300; round++) {
      String regex = "(\"[^\"\\\\]*\"|" + gen.next(3) + ")(,[a-z]+:[^\\x00-\\x1f]{0,3})*";
      Determinizer.Runs runs;
      try {
        runs = Determinizer.runs(Nfa.build(RegexParser.parse(regex), regex), 5_000, regex);
      } catch (ConstraintException e) {
        continue;
      }
      Determinizer.Runs again = Determinizer.Runs.of(runs.dense());
      assertArrayEquals(again.rowStart(), runs.rowStart(), regex);
      assertArrayEquals(again.lo(), runs.lo(), regex);
      assertArrayEquals(again.hi(), runs.hi(), regex);
      assertArrayEquals(again.target(), runs.target(), regex);
    }
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
