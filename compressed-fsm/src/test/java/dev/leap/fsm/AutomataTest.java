package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.RandomRegex;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Minimization and jump edges against naive twins. */
class AutomataTest {

  /**
   * Naive twin of Hopcroft: Moore's partition refinement by successor signatures, on the minimal
   * DFA itself. A minimal DFA must already be stable: its state count equals Moore's block count.
   */
  static int mooreBlocks(Dfa dfa) {
    int n = dfa.stateCount() + 1; // + dead
    int dead = n - 1;
    int[] block = new int[n];
    for (int s = 0; s < n - 1; s++) {
      block[s] = dfa.isAccepting(s) ? 1 : 0;
    }
    block[dead] = 0;
    int count = -1;
    while (true) {
      java.util.Map<String, Integer> ids = new java.util.HashMap<>();
      int[] next = new int[n];
      for (int s = 0; s < n; s++) {
        StringBuilder sig = new StringBuilder().append(block[s]);
        for (int b = 0; b < 256; b++) {
          int t = s == dead ? dead : dfa.step(s, b);
          sig.append(',').append(block[t == Dfa.DEAD ? dead : t]);
        }
        next[s] = ids.computeIfAbsent(sig.toString(), k -> ids.size());
      }
      if (ids.size() == count) {
        return count;
      }
      count = ids.size();
      block = next;
    }
  }

  /** Naive twin of the jump edges: follow single-byte, non-accepting states one byte at a time. */
  static byte[] naiveJump(Dfa dfa, int state) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int s = state;
    int lastBoundary = 0;
    while (!dfa.isAccepting(s)) {
      int only = -1;
      int live = 0;
      for (int b = 0; b < 256; b++) {
        if (dfa.step(s, b) != Dfa.DEAD) {
          live++;
          only = b;
        }
      }
      if (live != 1) {
        break;
      }
      out.write(only);
      s = dfa.step(s, only);
      boolean midChar = !dfa.isAccepting(s);
      if (midChar) {
        boolean onlyContinuation = true;
        for (int b = 0; b < 256; b++) {
          if (dfa.step(s, b) != Dfa.DEAD && (b & 0xC0) != 0x80) {
            onlyContinuation = false;
          }
        }
        midChar = onlyContinuation;
      }
      if (!midChar) {
        lastBoundary = out.size();
      }
    }
    return Arrays.copyOf(out.toByteArray(), lastBoundary);
  }

  /** {@link Dfa#forEachRange} as a list of (lo, hi, target). */
  static java.util.List<java.util.List<Integer>> ranges(Dfa dfa, int s) {
    java.util.List<java.util.List<Integer>> out = new java.util.ArrayList<>();
    dfa.forEachRange(s, (lo, hi, t) -> out.add(java.util.List.of(lo, hi, t)));
    return out;
  }

  /** Naive twin of {@link Dfa#forEachRange}: step every byte, group equal targets. */
  static java.util.List<java.util.List<Integer>> naiveRanges(Dfa dfa, int s) {
    java.util.List<java.util.List<Integer>> out = new java.util.ArrayList<>();
    for (int b = 0; b < 256; ) {
      int t = dfa.step(s, b);
      int e = b;
      while (e + 1 < 256 && dfa.step(s, e + 1) == t) {
        e++;
      }
      if (t != Dfa.DEAD) {
        out.add(java.util.List.of(b, e, t));
      }
      b = e + 1;
    }
    return out;
  }

  @Test
  void minimalDfasAreStableUnderMooreAndJumpsMatchTheNaiveWalk() {
    long seed = 99L;
    RandomRegex gen = new RandomRegex(seed);
    int checked = 0;
    while (checked < 400) {
      String regex = gen.next(2);
      CompressedFsm fsm;
      try {
        fsm = CompressedFsm.compile(regex, 3000);
      } catch (ConstraintException e) {
        continue;
      }
      Dfa dfa = fsm.dfa();
      assertEquals(
          mooreBlocks(dfa),
          dfa.stateCount() + 1,
          "seed " + seed + " /" + regex + "/ is not minimal");
      for (int s = 0; s < dfa.stateCount(); s++) {
        assertArrayEquals(
            naiveJump(dfa, s), fsm.jumpBytes(s), "seed " + seed + " /" + regex + "/ state " + s);
        assertEquals(dfa.walk(s, fsm.jumpBytes(s)), fsm.jumpTarget(s));
        assertTrue(dfa.hasTransitions(s) || dfa.isAccepting(s), "a live state with no way forward");
        assertEquals(
            naiveRanges(dfa, s), ranges(dfa, s), "byte runs of /" + regex + "/ state " + s);
      }
      checked++;
    }
  }

  @Test
  void jumpNeverEndsInsideAUtf8Sequence() {
    // é is C3 A9, è is C3 A8: after "x" the lead byte C3 is forced but the next byte is a choice.
    CompressedFsm fsm = CompressedFsm.compile("x(é|è)y");
    int afterX = fsm.dfa().walk(0, "x".getBytes(StandardCharsets.UTF_8));
    assertEquals(0, fsm.jumpBytes(afterX).length);
    assertEquals("x", fsm.jumpString(0));
    // A forced multi-byte character is jumped whole.
    CompressedFsm cjk = CompressedFsm.compile("中文(a|b)");
    assertEquals("中文", cjk.jumpString(0));
    // From inside a character, the rest of it is forced bytes.
    int mid = cjk.dfa().walk(0, new byte[] {(byte) 0xE4});
    assertEquals(5, cjk.jumpBytes(mid).length);
  }

  @Test
  void equalLanguagesGiveEqualTables() {
    Dfa a = CompressedFsm.compile("(a|b)*abb").dfa();
    Dfa b = CompressedFsm.compile("(?:b|a)*a(?:bb)").dfa();
    assertEquals(a.stateCount(), b.stateCount());
    for (int s = 0; s < a.stateCount(); s++) {
      for (int x = 0; x < 256; x++) {
        assertEquals(a.step(s, x), b.step(s, x));
      }
      assertEquals(a.isAccepting(s), b.isAccepting(s));
    }
  }
}
