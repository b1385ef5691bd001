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
 * The sorted vocabulary as one per-state walk sees it: either all of it, or only the tokens that
 * are <em>not</em> made entirely of a given byte set {@code L}, with the common-prefix lengths and
 * skip links recomputed for that subsequence ({@link SkipLinks}), plus the bitset of the tokens
 * left out.
 *
 * <p>Why: a state {@code s} whose self-loop bytes are {@code L} (the inside of a JSON string, an
 * identifier) keeps every token made only of {@code L} in {@code s} itself, so those tokens are
 * accepted without a walk, and the walk visits the rest. Views are built once per distinct {@code
 * L} and vocabulary and shared by every constraint compiled against that vocabulary ({@link #of}:
 * the token index's DFA masks and the grammar's per-state token sets), so a warm vocabulary pays
 * for a view once. Immutable.
 */
public final class VocabView {
  /**
   * Self-loops on fewer bytes than this are walked over the full vocabulary (little to leave out).
   */
  public static final int MIN_LOOP_BYTES = 32;

  /** The tokens a walk visits, in byte order, with their bytes end to end and their links. */
  public final SortedTokens tokens;

  /** Tokens left out of the walk (all of whose bytes are in {@code L}); null for the full view. */
  public final long[] loopOnly;

  /**
   * Views by vocabulary and self-loop set (weak keys: a vocabulary no longer used takes its views
   * with it).
   */
  private static final Map<SortedVocabulary, ConcurrentHashMap<Key, VocabView>> VIEWS =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** Views by vocabulary and byte set for {@link #holding}. */
  private static final Map<SortedVocabulary, ConcurrentHashMap<Key, VocabView>> HOLDING =
      Collections.synchronizedMap(new WeakHashMap<>());

  private static final Map<SortedVocabulary, VocabView> FULL =
      Collections.synchronizedMap(new WeakHashMap<>());

  VocabView(SortedTokens tokens, long[] loopOnly) {
    this.tokens = tokens;
    this.loopOnly = loopOnly;
  }

  /**
   * The shared view for a state whose self-loop bytes are {@code loop} (four words, a 256-bit set):
   * the full vocabulary when the set has fewer than {@link #MIN_LOOP_BYTES} bytes, else the
   * vocabulary without the tokens made only of those bytes. Do not modify {@code loop} afterwards.
   */
  public static VocabView of(SortedVocabulary v, long[] loop, int vocabSize) {
    if (bytesIn(loop) < MIN_LOOP_BYTES) {
      return FULL.computeIfAbsent(v, VocabView::full);
    }
    ConcurrentHashMap<Key, VocabView> views =
        VIEWS.computeIfAbsent(v, k -> new ConcurrentHashMap<>());
    return views.computeIfAbsent(new Key(loop), k -> without(v, k.loop, vocabSize));
  }

  /**
   * The shared view of the tokens holding at least one byte of {@code bytes} (four words, a 256-bit
   * set): {@link #without} the complement, built once per vocabulary and set. Do not modify {@code
   * bytes} afterwards.
   */
  public static VocabView holding(SortedVocabulary v, long[] bytes, int vocabSize) {
    ConcurrentHashMap<Key, VocabView> views =
        HOLDING.computeIfAbsent(v, k -> new ConcurrentHashMap<>());
    return views.computeIfAbsent(
        new Key(bytes),
        k -> without(v, new long[] {~k.loop[0], ~k.loop[1], ~k.loop[2], ~k.loop[3]}, vocabSize));
  }

  /** All of the sorted vocabulary. */
  public static VocabView full(SortedVocabulary v) {
    return new VocabView(v.tokens(), null);
  }

  /**
   * The view without the tokens made only of bytes in {@code loop} (four words, a 256-bit set),
   * built now (not shared): one pass over the sorted vocabulary ({@link SortedPartition}), equal to
   * filtering the ids and recomputing {@link SkipLinks#of} (the twin in {@code VocabViewTest}).
   */
  public static VocabView without(SortedVocabulary v, long[] loop, int vocabSize) {
    SortedPartition p = SortedPartition.of(v, 0, v.size(), 0, loop);
    long[] left = new long[(vocabSize + 63) >>> 6];
    for (int id : p.in) {
      left[id >>> 6] |= 1L << id;
    }
    return new VocabView(p.keptTokens, left);
  }

  /** How many bytes {@code set} (four words, a 256-bit set) holds. */
  public static int bytesIn(long[] set) {
    return Long.bitCount(set[0])
        + Long.bitCount(set[1])
        + Long.bitCount(set[2])
        + Long.bitCount(set[3]);
  }

  private record Key(long[] loop) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(k.loop, loop);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(loop);
    }
  }
}
