package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

  private static void flatInto(Re re, List<Re> out) {
    if (re instanceof Re.Concat c) {
      c.items().forEach(item -> flatInto(item, out));
    } else {
      out.add(re);
    }
  }

  /** A copy of {@code re} in which no node object, leaves included, is one of {@code re}'s. */
  static Re copyAll(Re re) {
    if (re instanceof Re.Chars c) {
      return new Re.Chars(c.ranges().clone());
    }
    if (re instanceof Re.Empty) {
      return new Re.Empty();
    }
    if (re instanceof Re.Concat c) {
      return new Re.Concat(c.items().stream().map(NfaSharingTest::copyAll).toList());
    }
    if (re instanceof Re.Alt a) {
      return new Re.Alt(a.options().stream().map(NfaSharingTest::copyAll).toList());
    }
    if (re instanceof Re.Repeat r) {
      return new Re.Repeat(copyAll(r.item()), r.min(), r.max());
    }
    return new Re.Automaton(((Re.Automaton) re).dfa());
  }

  /**
   * {@code X (S X)*} with the same {@code X} objects (a JSON list: flat in the concatenation, or
   * nested in the repetition's item) is built with {@code X} once. Its twin is the same tree with
   * no node object used twice, built the plain way: the minimal DFAs must be equal table for table,
   * in random contexts (after other items, inside alternatives and repetitions).
   */
  @Test
  void separatedListsBuiltOnceGiveTheDfaOfTheTree() {
    SplittableRandom r = new SplittableRandom(2730L);
    RandomRegex gen = new RandomRegex(2731L);
    int compared = 0;
    int smaller = 0;
    for (int round = 0; round < 200; round++) {
      List<Re> x = new ArrayList<>();
      for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
        Re part = RegexParser.parse(gen.next(1));
        if (r.nextInt(3) == 0) {
          try {
            Dfa d = compile(part);
            if (d != null) {
              part = new Re.Automaton(d);
            }
          } catch (ConstraintException e) {
            // keep the tree
          }
        }
        flatInto(part, x); // flat, as Trees.seq writes a concatenation
      }
      Re sep = RegexParser.parse(r.nextBoolean() ? "," : gen.next(1));
      List<Re> body = new ArrayList<>();
      body.add(sep);
      if (r.nextBoolean()) {
        body.add(new Re.Concat(List.copyOf(x))); // nested, as an object's members write it
      } else {
        body.addAll(x);
      }
      List<Re> items = new ArrayList<>();
      if (r.nextBoolean()) {
        items.add(RegexParser.parse("\\["));
      }
      items.addAll(x);
      items.add(new Re.Repeat(new Re.Concat(body), 0, -1));
      if (r.nextBoolean()) {
        items.add(RegexParser.parse(gen.next(1)));
      }
      Re list = new Re.Concat(items);
      Re dag =
          switch (r.nextInt(4)) {
            case 0 -> list;
            case 1 -> new Re.Alt(List.of(list, RegexParser.parse(gen.next(2))));
            case 2 -> new Re.Repeat(list, 0, r.nextBoolean() ? -1 : 2);
            default -> new Re.Concat(List.of(RegexParser.parse(gen.next(1)), list, list));
          };
      Re tree = copyAll(dag);
      Dfa once;
      Dfa twice;
      try {
        int dagStates = Nfa.build(dag, "test").stateCount();
        int treeStates = Nfa.build(tree, "test").stateCount();
        smaller += dagStates < treeStates ? 1 : 0;
        once = compile(dag);
        twice = compile(tree);
      } catch (ConstraintException e) {
        continue;
      }
      if (once == null || twice == null) {
        assertTrue(once == null && twice == null, "one is empty, the other not, round " + round);
        continue;
      }
      assertEquals(twice.stateCount(), once.stateCount(), "round " + round);
      for (int s = 0; s < once.stateCount(); s++) {
        for (int b = 0; b < 256; b++) {
          assertEquals(twice.step(s, b), once.step(s, b), "round " + round);
        }
        assertEquals(twice.isAccepting(s), once.isAccepting(s), "round " + round);
      }
      compared++;
    }
    assertTrue(compared > 150, "compared " + compared);
    assertTrue(smaller > compared / 2, "X built once in only " + smaller + " of " + compared);
  }
}
