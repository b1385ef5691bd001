package dev.leap.fsm.grammar;

import dev.leap.fsm.SortedVocabulary;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/**
 * The sorted vocabulary as one per-state walk sees it: either all of it, or only the tokens that
 * are <em>not</em> made entirely of a given byte set {@code L}, with the common-prefix lengths and
 * skip links recomputed for that subsequence, plus the bitset of the tokens left out.
 *
 * <p>Why: a state {@code s} whose self-loop bytes are {@code L} (the inside of a JSON string, an
 * identifier) keeps every token made only of {@code L} in {@code s} itself, so those tokens are
 * accepted without a walk, and the walk visits the rest. Views are built once per distinct {@code L}
 * and vocabulary and shared ({@link CompiledGrammar}). Immutable.
 */
final class VocabView {
  final int[] ids;
  final int[] lcp;
  final int[] skip1;
  final int[] skip2;
  /** Tokens left out of the walk (all of whose bytes are in {@code L}); null for the full view. */
  final long[] loopOnly;

  private VocabView(int[] ids, int[] lcp, int[] skip1, int[] skip2, long[] loopOnly) {
    this.ids = ids;
    this.lcp = lcp;
    this.skip1 = skip1;
    this.skip2 = skip2;
    this.loopOnly = loopOnly;
  }

  static VocabView full(SortedVocabulary v) {
    return new VocabView(v.ids(), v.lcp(), v.skip1(), v.skip2(), null);
  }

  /** The view without the tokens made only of bytes in {@code loop} (four words, a 256-bit set). */
  static VocabView without(SortedVocabulary v, long[] loop, int vocabSize) {
    byte[][] bytes = v.tokenBytes();
    int[] all = v.ids();
    long[] left = new long[(vocabSize + 63) >>> 6];
    IntArrayList kept = new IntArrayList();
    for (int id : all) {
      boolean inLoop = true;
      for (byte b : bytes[id]) {
        if ((loop[(b & 0xFF) >>> 6] & (1L << b)) == 0) {
          inLoop = false;
          break;
        }
      }
      if (inLoop) {
        left[id >>> 6] |= 1L << id;
      } else {
        kept.add(id);
      }
    }
    int n = kept.size();
    int[] ids = kept.toIntArray();
    int[] lcp = new int[n];
    for (int j = 1; j < n; j++) {
      byte[] p = bytes[ids[j - 1]];
      byte[] c = bytes[ids[j]];
      int m = Arrays.mismatch(p, c);
      lcp[j] = m < 0 ? Math.min(p.length, c.length) : m;
    }
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
    return new VocabView(ids, lcp, skip1, skip2, left);
  }
}
