package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.Dfa;
import dev.leap.testkit.RandomRegex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Calls in trees ({@link Re.Call}): the NFA builder writes a resolved call as its marker bytes
 * ({@link RuleCalls}) and rejects an unresolved one. The naive twin of the encoding: the same tree
 * with each call replaced by the marker's automaton written into the tree by hand (one node per
 * called rule, as grammar trees held them before calls were nodes), which must give the same DFA,
 * state for state.
 */
class NfaCallTest {

  private static Dfa compile(Re re) {
    return Automata.compile(re, "test", 50_000);
  }

  private static byte[] bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return out;
  }

  @Test
  void aResolvedCallIsItsMarkerBytes() {
    Dfa d = compile(Trees.seq(Trees.lit("a"), Re.Call.of("r", 42), Trees.lit("b")));
    // 42 = digits 0, 4, 2 as bytes F5 + digit.
    assertTrue(d.matches(bytes('a', 0xFF, 0xF5, 0xF9, 0xF7, 'b')));
    assertFalse(d.matches(bytes('a', 0xFF, 0xF5, 0xF9, 0xF8, 'b')));
    assertFalse(d.matches(bytes('a', 'b')));
    Dfa marker = RuleCalls.marker(999);
    assertEquals(RuleCalls.MARKER_STATES, marker.stateCount());
    assertTrue(marker.matches(bytes(0xFF, 0xFE, 0xFE, 0xFE)));
  }

  @Test
  void anUnresolvedCallFailsInTheNfaBuilderNamingTheRuleAndWhereItWasWritten() {
    Re tree = Trees.seq(Trees.lit("x"), Re.Call.named("value", 3, 14));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Nfa.build(tree, "grammar g"));
    assertTrue(e.getMessage().contains("\"value\""), e.getMessage());
    assertTrue(e.getMessage().contains("line 3, column 14"), e.getMessage());
    assertTrue(e.getMessage().contains("by name only"), e.getMessage());
    // Resolved, the same call compiles.
    assertTrue(
        compile(Trees.seq(Trees.lit("x"), Re.Call.named("value", 3, 14).resolved(7))) != null);
  }

  @Test
  void callIndexesOutsideTheMarkersRangeAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> Re.Call.of("r", RuleCalls.MAX_RULES));
    assertThrows(IllegalArgumentException.class, () -> Re.Call.of("r", -2));
    assertThrows(IllegalArgumentException.class, () -> Re.Call.of(null, 0));
    assertThrows(IllegalArgumentException.class, () -> RuleCalls.marker(-1));
  }

  @Test
  void callsGiveTheDfaOfTheirMarkersWrittenIntoTheTree() {
    SplittableRandom r = new SplittableRandom(2626L);
    RandomRegex gen = new RandomRegex(2627L);
    int compared = 0;
    for (int round = 0; round < 200; round++) {
      Map<Integer, Re> calls = new HashMap<>();
      Map<Integer, Re> markers = new HashMap<>();
      List<Re> withCalls = new ArrayList<>();
      List<Re> withMarkers = new ArrayList<>();
      int parts = 2 + r.nextInt(4);
      for (int i = 0; i < parts; i++) {
        if (r.nextInt(3) == 0) {
          int k = r.nextInt(r.nextBoolean() ? 3 : RuleCalls.MAX_RULES);
          withCalls.add(calls.computeIfAbsent(k, x -> Re.Call.of("r" + x, x)));
          withMarkers.add(markers.computeIfAbsent(k, x -> new Re.Automaton(RuleCalls.marker(x))));
        } else {
          Re re = RegexParser.parse(gen.next(2));
          withCalls.add(re);
          withMarkers.add(re);
        }
      }
      Re a;
      Re b;
      switch (r.nextInt(3)) {
        case 0 -> {
          a = new Re.Concat(withCalls);
          b = new Re.Concat(withMarkers);
        }
        case 1 -> {
          a = new Re.Alt(withCalls);
          b = new Re.Alt(withMarkers);
        }
        default -> {
          a = new Re.Repeat(new Re.Concat(withCalls), 0, -1);
          b = new Re.Repeat(new Re.Concat(withMarkers), 0, -1);
        }
      }
      assertEquals(Trees.size(b), Trees.size(a), "round " + round);
      Dfa x;
      Dfa y;
      try {
        x = compile(a);
        y = compile(b);
      } catch (dev.leap.fsm.AutomatonTooLargeException e) {
        continue;
      }
      if (x == null || y == null) {
        assertTrue(x == null && y == null, "one is empty, the other not, round " + round);
        continue;
      }
      assertEquals(y.stateCount(), x.stateCount(), "round " + round);
      for (int s = 0; s < x.stateCount(); s++) {
        for (int c = 0; c < 256; c++) {
          assertEquals(y.step(s, c), x.step(s, c), "round " + round);
        }
        assertEquals(y.isAccepting(s), x.isAccepting(s), "round " + round);
      }
      compared++;
    }
    assertTrue(compared > 150, "compared " + compared);
  }
}
