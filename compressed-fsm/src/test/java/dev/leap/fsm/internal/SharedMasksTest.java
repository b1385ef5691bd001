package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedMasks} against its contract on seeded random masks of every length class (the four
 * lanes and the tail): an equal copy returns the mask interned first, one flipped bit anywhere is
 * another mask.
 */
class SharedMasksTest {

  @Test
  void equalContentIsOneMaskAndOneBitMakesAnother() {
    SplittableRandom rnd = new SplittableRandom(31);
    SharedMasks shared = new SharedMasks();
    List<long[]> firsts = new ArrayList<>();
    for (int k = 0; k < 300; k++) {
      long[] m = new long[1 + rnd.nextInt(70)];
      for (int i = 0; i < m.length; i++) {
        m[i] = rnd.nextInt(4) == 0 ? 0 : rnd.nextLong();
      }
      long[] first = shared.intern(m);
      firsts.add(first);
      assertSame(first, shared.intern(m.clone()));
      assertEquals(SharedMasks.hash(m), SharedMasks.hash(m.clone()));
      long[] flipped = m.clone();
      int bit = rnd.nextInt(64 * m.length);
      flipped[bit >>> 6] ^= 1L << bit;
      assertNotSame(first, shared.intern(flipped), "bit " + bit + " of " + m.length + " words");
    }
    for (long[] f : firsts) {
      assertSame(f, shared.intern(f.clone()));
    }
  }
}
