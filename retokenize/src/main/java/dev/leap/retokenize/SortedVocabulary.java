package dev.leap.retokenize;

import dev.leap.fsm.Vocabulary;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * A vocabulary's tokens sorted by their bytes (unsigned lexicographic), so that the tokens starting
 * with a given byte string form one contiguous range, found by binary search. Built once per
 * vocabulary and shared.
 */
final class SortedVocabulary {
  private static final Map<Vocabulary, SortedVocabulary> CACHE = Collections.synchronizedMap(new WeakHashMap<>());

  final Vocabulary vocab;
  final int[] ids;
  final byte[][] bytes;

  private SortedVocabulary(Vocabulary vocab) {
    this.vocab = vocab;
    int n = 0;
    for (int i = 0; i < vocab.size(); i++) {
      byte[] b = vocab.tokenBytes(i);
      if (b != null && b.length > 0) {
        n++;
      }
    }
    Integer[] order = new Integer[n];
    for (int i = 0, j = 0; i < vocab.size(); i++) {
      byte[] b = vocab.tokenBytes(i);
      if (b != null && b.length > 0) {
        order[j++] = i;
      }
    }
    Arrays.sort(order, (a, b) -> Arrays.compareUnsigned(vocab.tokenBytes(a), vocab.tokenBytes(b)));
    this.ids = new int[n];
    this.bytes = new byte[n][];
    for (int j = 0; j < n; j++) {
      ids[j] = order[j];
      bytes[j] = vocab.tokenBytes(order[j]);
    }
  }

  static SortedVocabulary of(Vocabulary vocab) {
    return CACHE.computeIfAbsent(vocab, SortedVocabulary::new);
  }

  /** The first index whose bytes are not less than {@code key}. */
  int lowerBound(byte[] key) {
    int lo = 0;
    int hi = ids.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(bytes[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  static boolean startsWith(byte[] b, byte[] prefix) {
    return b.length >= prefix.length && Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
  }
}
