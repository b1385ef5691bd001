package dev.leap.fsm.internal;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/** Operations on sorted, disjoint code point range lists {@code [lo0, hi0, lo1, hi1, ...]}. */
public final class CharRanges {
  private CharRanges() {}

  public static final int MAX = 0x10FFFF;
  static final int SURROGATE_LO = 0xD800;
  static final int SURROGATE_HI = 0xDFFF;

  /** Sorts, merges overlapping and adjacent ranges, and removes surrogates. */
  public static int[] normalize(IntArrayList raw) {
    int n = raw.size() / 2;
    long[] packed = new long[n];
    for (int i = 0; i < n; i++) {
      packed[i] = ((long) raw.getInt(2 * i) << 32) | (raw.getInt(2 * i + 1) & 0xFFFFFFFFL);
    }
    Arrays.sort(packed);
    IntArrayList out = new IntArrayList();
    for (long p : packed) {
      int lo = (int) (p >>> 32);
      int hi = (int) p;
      if (lo > hi) {
        continue;
      }
      int last = out.size() - 1;
      if (last > 0 && lo <= out.getInt(last) + 1) {
        if (hi > out.getInt(last)) {
          out.set(last, hi);
        }
      } else {
        out.add(lo);
        out.add(hi);
      }
    }
    return removeSurrogates(out.toIntArray());
  }

  private static int[] removeSurrogates(int[] r) {
    IntArrayList out = new IntArrayList(r.length + 2);
    for (int i = 0; i < r.length; i += 2) {
      int lo = r[i];
      int hi = r[i + 1];
      if (hi < SURROGATE_LO || lo > SURROGATE_HI) {
        out.add(lo);
        out.add(hi);
        continue;
      }
      if (lo < SURROGATE_LO) {
        out.add(lo);
        out.add(SURROGATE_LO - 1);
      }
      if (hi > SURROGATE_HI) {
        out.add(SURROGATE_HI + 1);
        out.add(hi);
      }
    }
    return out.toIntArray();
  }

  /** The complement within {@code [0, MAX]} (surrogates excluded). */
  public static int[] negate(int[] r) {
    IntArrayList out = new IntArrayList();
    int next = 0;
    for (int i = 0; i < r.length; i += 2) {
      if (r[i] > next) {
        out.add(next);
        out.add(r[i] - 1);
      }
      next = r[i + 1] + 1;
    }
    if (next <= MAX) {
      out.add(next);
      out.add(MAX);
    }
    return removeSurrogates(out.toIntArray());
  }

  public static int[] of(int... pairs) {
    return normalize(IntArrayList.wrap(pairs.clone()));
  }

  public static boolean contains(int[] r, int cp) {
    for (int i = 0; i < r.length; i += 2) {
      if (cp >= r[i] && cp <= r[i + 1]) {
        return true;
      }
    }
    return false;
  }
}
