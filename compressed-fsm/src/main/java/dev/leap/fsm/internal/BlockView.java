package dev.leap.fsm.internal;

import dev.leap.vocab.SkipLinks;
import dev.leap.vocab.SortedTokens;
import dev.leap.vocab.SortedVocabulary;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens that begin with one byte value {@code b} (a <em>block</em>: one contiguous range
 * {@code [lo, hi)} of the sorted vocabulary), split for a state whose step on {@code b} lands just
 * before a loop: the tokens whose bytes after the first are all in a byte set {@code L} ({@link
 * #loopOnly}), and the rest ({@link #tokens}, with their own {@link SkipLinks}), the only ones a
 * walk needs to visit.
 *
 * <p>Why: with {@code L} the bytes of the loop one step ahead of {@code t = step(s, b)} ({@link
 * LoopRegion#loopBytes}: every token of {@code L} bytes walks from {@code t} into that loop and
 * stays), every token {@code b L*} stays alive from {@code s}. After an identifier in a grammar,
 * {@code " "} leads to a place where a new identifier may start, so the tens of thousands of {@code
 * " word"} tokens of a byte-level vocabulary are accepted without a walk. Built once per
 * vocabulary, byte and set, and shared (as {@link VocabView}s are). Immutable; the arrays are
 * shared and must not be modified.
 */
public final class BlockView {
  /** The block's range in the full sorted order: the tokens whose first byte is {@link #first}. */
  public final int lo;

  public final int hi;

  /** The block's first byte. */
  public final int first;

  /**
   * The tokens {@code first L*}, or null when this view has no set (then walk {@code [lo, hi)} of
   * the full order, {@link SortedVocabulary#tokens}).
   */
  public final int[] loopOnly;

  /**
   * {@link #loopOnly} as a bitset over the vocabulary when that is the cheaper form to OR into a
   * mask (more tokens than half the mask's words), else null.
   */
  private final long[] loopOnlyBits;

  /**
   * The other tokens of the block in byte order, with their bytes end to end and their links (the
   * first common prefix is 0: a walk starts at depth 0); null when {@link #loopOnly} is.
   */
  public final SortedTokens tokens;

  private BlockView(
      int first, int lo, int hi, int[] loopOnly, long[] loopOnlyBits, SortedTokens tokens) {
    this.first = first;
    this.lo = lo;
    this.hi = hi;
    this.loopOnly = loopOnly;
    this.loopOnlyBits = loopOnlyBits;
    this.tokens = tokens;
  }

  /** Sets the bits of {@link #loopOnly} in {@code mask} (a bitset over the vocabulary). */
  public void addLoopOnly(long[] mask) {
    if (loopOnlyBits != null) {
      for (int w = 0; w < mask.length; w++) {
        mask[w] |= loopOnlyBits[w];
      }
    } else {
      for (int id : loopOnly) {
        mask[id >>> 6] |= 1L << id;
      }
    }
  }

  private static final Map<SortedVocabulary, BlockView[]> RANGES =
      Collections.synchronizedMap(new WeakHashMap<>());

  private static final Map<SortedVocabulary, ConcurrentHashMap<Key, BlockView>> SPLIT =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The block of {@code first} without a split (its range only), shared per vocabulary. */
  public static BlockView range(SortedVocabulary v, int first) {
    return RANGES.computeIfAbsent(v, BlockView::ranges)[first];
  }

  /**
   * The block of {@code first} split by {@code loop} (four words, a 256-bit set; do not modify it
   * afterwards), shared per vocabulary, byte and set; {@link #range} when the set has fewer than
   * {@link VocabView#MIN_LOOP_BYTES} bytes (little to leave out) or the block is empty.
   */
  public static BlockView of(SortedVocabulary v, int first, long[] loop) {
    BlockView r = range(v, first);
    if (VocabView.bytesIn(loop) < VocabView.MIN_LOOP_BYTES || r.lo == r.hi) {
      return r;
    }
    ConcurrentHashMap<Key, BlockView> views =
        SPLIT.computeIfAbsent(v, k -> new ConcurrentHashMap<>());
    return views.computeIfAbsent(new Key(first, loop), k -> split(v, r, k.loop));
  }

  private static BlockView[] ranges(SortedVocabulary v) {
    BlockView[] out = new BlockView[256];
    int n = v.size();
    int j = 0;
    for (int b = 0; b < 256; b++) {
      int lo = j;
      while (j < n && (v.bytesAt(j)[0] & 0xFF) == b) {
        j++;
      }
      out[b] = new BlockView(b, lo, j, null, null, null);
    }
    return out;
  }

  /**
   * The split of block {@code r} by {@code loop}: one pass from the second byte on ({@link
   * SortedPartition}); {@code BlockViewTest} checks it against filtering token by token.
   */
  static BlockView split(SortedVocabulary v, BlockView r, long[] loop) {
    SortedPartition p = SortedPartition.of(v, r.lo, r.hi, 1, loop);
    int words = (v.tokenBytes().length + 63) >>> 6;
    long[] bits = null;
    if (p.in.length > words / 2) {
      bits = new long[words];
      for (int id : p.in) {
        bits[id >>> 6] |= 1L << id;
      }
    }
    return new BlockView(r.first, r.lo, r.hi, p.in, bits, p.keptTokens);
  }

  private record Key(int first, long[] loop) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.first == first && Arrays.equals(k.loop, loop);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(loop) * 31 + first;
    }
  }
}
