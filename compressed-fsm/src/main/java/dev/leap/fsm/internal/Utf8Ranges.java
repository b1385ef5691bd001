package dev.leap.fsm.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Code point ranges to UTF-8 byte-range sequences: every code point in {@code [lo, hi]} is encoded
 * by exactly one sequence {@code [b1lo, b1hi, b2lo, b2hi, ...]}, and every byte string accepted by
 * a sequence is the encoding of a code point in the range. The classic splitting of a range at
 * encoding-length boundaries and at continuation-byte boundaries (as in Russ Cox's RE2 and Lucene's
 * UTF32ToUTF8), so that each piece's bytes vary independently per position.
 */
public final class Utf8Ranges {
  private Utf8Ranges() {}

  private static final int[] MAX_FOR_LENGTH = {0x7F, 0x7FF, 0xFFFF, 0x10FFFF};

  /** The byte-range sequences for a normalized range list (surrogates already excluded). */
  public static List<int[]> sequences(int[] ranges) {
    List<int[]> out = new ArrayList<>();
    for (int i = 0; i < ranges.length; i += 2) {
      split(ranges[i], ranges[i + 1], out);
    }
    return out;
  }

  private static void split(int lo, int hi, List<int[]> out) {
    if (lo > hi) {
      return;
    }
    // Split at encoded-length boundaries.
    for (int max : MAX_FOR_LENGTH) {
      if (lo <= max && hi > max) {
        split(lo, max, out);
        split(max + 1, hi, out);
        return;
      }
    }
    int n = length(lo);
    // Split so that each continuation position covers either a full 0x80..0xBF span or a common
    // prefix.
    for (int i = 1; i < n; i++) {
      int m = (1 << (6 * i)) - 1;
      if ((lo & ~m) != (hi & ~m)) {
        if ((lo & m) != 0) {
          split(lo, lo | m, out);
          split((lo | m) + 1, hi, out);
          return;
        }
        if ((hi & m) != m) {
          split(lo, (hi & ~m) - 1, out);
          split(hi & ~m, hi, out);
          return;
        }
      }
    }
    byte[] a = encode(lo);
    byte[] b = encode(hi);
    int[] seq = new int[2 * n];
    for (int k = 0; k < n; k++) {
      seq[2 * k] = a[k] & 0xFF;
      seq[2 * k + 1] = b[k] & 0xFF;
    }
    out.add(seq);
  }

  static int length(int cp) {
    return cp <= 0x7F ? 1 : cp <= 0x7FF ? 2 : cp <= 0xFFFF ? 3 : 4;
  }

  static byte[] encode(int cp) {
    switch (length(cp)) {
      case 1:
        return new byte[] {(byte) cp};
      case 2:
        return new byte[] {(byte) (0xC0 | (cp >> 6)), (byte) (0x80 | (cp & 0x3F))};
      case 3:
        return new byte[] {
          (byte) (0xE0 | (cp >> 12)),
          (byte) (0x80 | ((cp >> 6) & 0x3F)),
          (byte) (0x80 | (cp & 0x3F))
        };
      default:
        return new byte[] {
          (byte) (0xF0 | (cp >> 18)), (byte) (0x80 | ((cp >> 12) & 0x3F)),
          (byte) (0x80 | ((cp >> 6) & 0x3F)), (byte) (0x80 | (cp & 0x3F))
        };
    }
  }
}
