package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.RandomRegex;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The NFA builds a node that occurs several times in a tree once per exit state. Its naive twin:
 * the same tree copied so that no node occurs twice. Random DAGs (composites that reuse earlier
 * nodes anywhere: in tail position, before other parts, inside repetitions) must give the same
 * language both ways.
 */
class NfaSharingTest {

  /**
   * A copy of {@code re} in which every composite node is a new object (the tree the DAG stands
   * for).
   */
  static Re unshare(Re re) {
    if (re instanceof Re.Concat c) {
      return new Re.Concat(c.items().stream().map(NfaSharingTest::unshare).toList());
    }
    if (re instanceof Re.Alt a) {
      return new Re.Alt(a.options().stream().map(NfaSharingTest::unshare).toList());
    }
    if (re instanceof Re.Repeat r) {
      return new Re.Repeat(unshare(r.item()), r.min(), r.max());
    }
    if (re instanceof Re.Automaton a) {
      return new Re.Automaton(a.dfa());
    }
    return re;
  }

  static Dfa compile(Re re) {
    return Automata.compile(re, "test", 50_000);
  }

  @Test
  void sharedNodesGiveTheLanguageOfTheTree() {
    SplittableRandom r = new SplittableRandom(9091L);
    RandomRegex gen = new RandomRegex(9092L);
    int compared = 0;
    int smaller = 0;
    for (int round = 0; round < 300; round++) {
      List<Re> pool = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        pool.add(RegexParser.parse(gen.next(2)));
      }
      if (r.nextBoolean()) {
        try {
          Dfa d = compile(pool.get(0));
          if (d != null) {
            pool.add(new Re.Automaton(d));
          }
        } catch (ConstraintException e) {
          // too large for an embedded automaton: leave it out
        }
      }
      // New composites reuse earlier nodes by identity.
      for (int i = 0; i < 4 + r.nextInt(4); i++) {
        Re a = pool.get(r.nextInt(pool.size()));
        Re b = pool.get(r.nextInt(pool.size()));
        Re c = pool.get(pool.size() - 1);
        pool.add(
            switch (r.nextInt(5)) {
              case 0 ->
                  new Re.Alt(
                      List.of(
                          new Re.Concat(List.of(a, c)),
                          new Re.Concat(List.of(b, c)))); // tail sharing
              case 1 -> new Re.Concat(List.of(a, b, a));
              case 2 -> new Re.Alt(List.of(c, new Re.Concat(List.of(a, c))));
              case 3 ->
                  new Re.Repeat(
                      new Re.Concat(List.of(a, b)),
                      r.nextInt(2),
                      r.nextBoolean() ? -1 : 2 + r.nextInt(2));
              default -> new Re.Concat(List.of(new Re.Repeat(c, 0, -1), c));
            });
      }
      Re dag = pool.get(pool.size() - 1);
      Re tree = unshare(dag);
      Dfa shared;
      Dfa copied;
      int dagStates;
      int treeStates;
      try {
        dagStates = Nfa.build(dag, "test").stateCount();
        treeStates = Nfa.build(tree, "test").stateCount();
        shared = compile(dag);
        copied = compile(tree);
      } catch (ConstraintException e) {
        continue;
      }
      if (shared == null || copied == null) {
        assertTrue(shared == null && copied == null, "one is empty, the other not, round " + round);
        continue;
      }
      assertNull(
          Automata.minus(shared, copied, 200_000, "test"), "the DAG accepts more, round " + round);
      assertNull(
          Automata.minus(copied, shared, 200_000, "test"), "the DAG accepts less, round " + round);
      compared++;
      smaller += dagStates < treeStates ? 1 : 0;
    }
    assertTrue(compared > 200, "compared " + compared);
    assertTrue(
        smaller > compared / 2,
        "sharing made the NFA smaller in only " + smaller + " of " + compared);
  }
}
