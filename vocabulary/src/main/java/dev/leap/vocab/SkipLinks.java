package dev.leap.vocab;

import java.util.Arrays;

/**
 * What lets a walk of a byte-sorted token sequence visit a shared prefix once: for each position
 * {@code j}, {@code lcp[j]}, the length of the prefix its token shares with the one before (0 at
 * 0); {@code skip1[j]} and {@code skip2[j]}, the next position whose first byte, or first two
 * bytes, differ from {@code j}'s (the sequence's length if none), so a token that dies on its first
 * or second byte skips all that share them in one jump. Computed in one place for the whole sorted
 * vocabulary ({@link SortedVocabulary}) and for its subsequences (the compressed FSM's views that
 * leave a loop's tokens out).
 */
public record SkipLinks(int[] lcp, int[] skip1, int[] skip2) {

  /**
   * The links of the token sequence {@code ids} (sorted by bytes), {@code bytes} indexed by token
   * id.
   */
  public static SkipLinks of(int[] ids, byte[][] bytes) {
    int n = ids.length;
    int[] lcp = new int[n];
    for (int j = 1; j < n; j++) {
      byte[] p = bytes[ids[j - 1]];
      byte[] c = bytes[ids[j]];
      int m = Arrays.mismatch(p, c);
      lcp[j] = m < 0 ? Math.min(p.length, c.length) : m;
    }
    return ofLcp(lcp);
  }

  /**
   * The links of a sorted token sequence whose common-prefix lengths are {@code lcp} ({@code
   * lcp[0]} is 0; the array is kept, not copied).
   */
  public static SkipLinks ofLcp(int[] lcp) {
    int n = lcp.length;
    int[] skip1 = new int[n];
    int[] skip2 = new int[n];
    int next1 = n;
    int next2 = n;
    for (int j = n - 1; j >= 0; j--) {
      skip1[j] = next1;
      skip2[j] = next2;
      if (lcp[j] <= 0) {
        next1 = j;
      }
      if (lcp[j] <= 1) {
        next2 = j;
      }
    }
    return new SkipLinks(lcp, skip1, skip2);
  }
}
