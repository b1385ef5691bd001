package dev.leap.fsm.internal;

import dev.leap.vocab.SkipLinks;
import dev.leap.vocab.SortedTokens;
import dev.leap.vocab.SortedVocabulary;
import java.util.Arrays;

/**
 * A range {@code [lo, hi)} of the sorted vocabulary split in two: the tokens whose bytes from index
 * {@code from} on all lie in a byte set ({@link #in}), and the rest ({@link #kept}, in byte order,
 * with their own {@link #links}). The one pass behind {@link VocabView#without} ({@code from} 0,
 * the whole order) and {@link BlockView} ({@code from} 1, the tokens of one first byte).
 *
 * <p>No byte is compared between tokens: a token shares its first {@code lcp} bytes with the one
 * before, so when the one before holds a byte outside the set within those (at or after {@code
 * from}), so does this one, and otherwise only its bytes from {@code max(lcp, from)} on are looked
 * at; the common-prefix length of two kept tokens is the least {@code lcp} between them in the full
 * order (sorted strings share with a later one at most what each neighbour pair between them
 * shares). The twins in {@code VocabViewTest} and {@code BlockViewTest} filter token by token and
 * recompute the links with {@link SkipLinks#of}.
 */
final class SortedPartition {
  /** The ids whose bytes from {@code from} on are all in the set, in byte order. */
  final int[] in;

  /** The other ids, in byte order. */
  final int[] kept;

  /** {@link #kept}'s links (the first common prefix is 0: a walk starts at depth 0). */
  final SkipLinks links;

  /** {@link #kept} with its bytes end to end and its links, as a walk reads them. */
  final SortedTokens keptTokens;

  private SortedPartition(int[] in, int[] kept, SkipLinks links, SortedTokens keptTokens) {
    this.in = in;
    this.kept = kept;
    this.links = links;
    this.keptTokens = keptTokens;
  }

  /**
   * Splits positions {@code [lo, hi)} of {@code v}'s order by {@code set} (four words). Reads the
   * order's bytes end to end ({@link SortedVocabulary#tokens}), one forward stream, and copies the
   * kept tokens' bytes from it.
   */
  static SortedPartition of(SortedVocabulary v, int lo, int hi, int from, long[] set) {
    SortedTokens t = v.tokens();
    byte[] bytes = t.bytes();
    int[] start = t.start();
    int[] all = t.ids();
    int[] fullLcp = t.links().lcp();
    int n = hi - lo;
    int[] in = new int[n];
    int[] keptAt = new int[n];
    int[] keptLcp = new int[n];
    int ins = 0;
    int k = 0;
    int keptBytes = 0;
    int outside = from; // the previous token's first byte at or after 'from' outside the set
    int shared = 0; // the least lcp since the last kept token: what the next kept one shares
    for (int j = lo; j < hi; j++) {
      int at = start[j];
      int len = start[j + 1] - at;
      int l = j == lo ? 0 : fullLcp[j];
      shared = Math.min(shared, l);
      if (outside >= l) {
        int i = Math.max(l, from);
        while (i < len && (set[(bytes[at + i] & 0xFF) >>> 6] & (1L << bytes[at + i])) != 0) {
          i++;
        }
        outside = i;
      }
      if (outside >= len) {
        in[ins++] = all[j];
      } else {
        keptAt[k] = j;
        keptLcp[k] = k == 0 ? 0 : shared;
        keptBytes += len;
        k++;
        shared = Integer.MAX_VALUE;
      }
    }
    int[] kept = new int[k];
    int[] keptStart = new int[k + 1];
    byte[] keptStream = new byte[keptBytes];
    for (int q = 0; q < k; q++) {
      int j = keptAt[q];
      kept[q] = all[j];
      int len = start[j + 1] - start[j];
      System.arraycopy(bytes, start[j], keptStream, keptStart[q], len);
      keptStart[q + 1] = keptStart[q] + len;
    }
    SkipLinks links = SkipLinks.ofLcp(Arrays.copyOf(keptLcp, k));
    return new SortedPartition(
        Arrays.copyOf(in, ins),
        kept,
        links,
        SortedTokens.ofStream(kept, keptStream, keptStart, links));
  }
}
