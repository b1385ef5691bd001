package dev.leap.fsm.internal;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Token masks stored once per distinct content: {@link #intern} returns the first mask seen with
 * the same bits, so the many states of an automaton whose masks are equal (every state inside a
 * string, say) share one array. Thread-safe; the returned arrays are shared and must not be
 * modified.
 *
 * <p>A mask is a vocabulary's worth of bits (2,004 words for Llama 3), and interning is on the path
 * of every state's first mask, so the key hashes in four independent lanes (the word loop is not
 * one long multiply chain, as {@link Arrays#hashCode(long[])} is); equal masks always hash equal.
 */
public final class SharedMasks {
  private final ConcurrentHashMap<Key, long[]> masks = new ConcurrentHashMap<>();

  /** {@code mask}, or the mask interned earlier with the same bits. */
  public long[] intern(long[] mask) {
    long[] prev = masks.putIfAbsent(new Key(mask), mask);
    return prev == null ? mask : prev;
  }

  /** Distinct masks interned so far. */
  public int size() {
    return masks.size();
  }

  /** The hash of {@code mask}'s words: a function of the content alone. */
  static int hash(long[] mask) {
    long h0 = 0;
    long h1 = 0;
    long h2 = 0;
    long h3 = 0;
    int n = mask.length;
    int i = 0;
    for (; i + 3 < n; i += 4) {
      h0 = h0 * 0x9E3779B97F4A7C15L + mask[i];
      h1 = h1 * 0x9E3779B97F4A7C15L + mask[i + 1];
      h2 = h2 * 0x9E3779B97F4A7C15L + mask[i + 2];
      h3 = h3 * 0x9E3779B97F4A7C15L + mask[i + 3];
    }
    for (; i < n; i++) {
      h0 = h0 * 0x9E3779B97F4A7C15L + mask[i];
    }
    long h = h0 ^ Long.rotateLeft(h1, 16) ^ Long.rotateLeft(h2, 32) ^ Long.rotateLeft(h3, 48);
    h = (h ^ (h >>> 33)) * 0xFF51AFD7ED558CCDL;
    return (int) (h ^ (h >>> 32)) ^ n;
  }

  private static final class Key {
    final long[] mask;
    final int hash;

    Key(long[] mask) {
      this.mask = mask;
      this.hash = hash(mask);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && Arrays.equals(k.mask, mask);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
