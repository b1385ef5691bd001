package dev.leap.fsm.internal;

import dev.leap.vocab.SortedVocabulary;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * For each byte value, the tokens of a vocabulary that contain it (posting lists, ids ascending),
 * built once per vocabulary and shared. {@link LoopRegion} walks the tokens holding a region's exit
 * bytes from these lists instead of scanning the vocabulary. Immutable.
 */
public final class TokensByByte {
  private static final Map<SortedVocabulary, TokensByByte> BY_VOCABULARY =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final int[][] tokens;

  private TokensByByte(int[][] tokens) {
    this.tokens = tokens;
  }

  /** The shared lists of {@code v}. */
  public static TokensByByte of(SortedVocabulary v) {
    return BY_VOCABULARY.computeIfAbsent(v, TokensByByte::build);
  }

  private static TokensByByte build(SortedVocabulary v) {
    byte[][] bytes = v.tokenBytes();
    IntArrayList[] lists = new IntArrayList[256];
    for (int u = 0; u < 256; u++) {
      lists[u] = new IntArrayList();
    }
    long[] seen = new long[4];
    for (int id = 0; id < bytes.length; id++) {
      byte[] b = bytes[id];
      if (b == null) {
        continue;
      }
      Arrays.fill(seen, 0);
      for (byte x : b) {
        int u = x & 0xFF;
        if ((seen[u >>> 6] & (1L << u)) == 0) {
          seen[u >>> 6] |= 1L << u;
          lists[u].add(id);
        }
      }
    }
    int[][] tokens = new int[256][];
    for (int u = 0; u < 256; u++) {
      tokens[u] = lists[u].toIntArray();
    }
    return new TokensByByte(tokens);
  }

  /**
   * The ids of the tokens that contain byte {@code b} (0-255), ascending. Shared: do not modify.
   */
  public int[] containing(int b) {
    return tokens[b];
  }

  /** See {@link #fewHold}. */
  public static final int WALK_SHARE = 16;

  /** How many (token, byte) pairs the bytes of {@code set} (four words, 256 bits) have together. */
  public int count(long[] set) {
    int n = 0;
    for (int b = 0; b < 256; b++) {
      if ((set[b >>> 6] & (1L << b)) != 0) {
        n += tokens[b].length;
      }
    }
    return n;
  }

  /**
   * Whether the tokens holding a byte of {@code set} are few enough to walk them alone (at most
   * {@code 1 / }{@link #WALK_SHARE} of the vocabulary, counted by {@link #count}); otherwise a walk
   * of the whole sorted vocabulary is cheaper.
   */
  public boolean fewHold(long[] set, int vocabSize) {
    return count(set) <= vocabSize / WALK_SHARE;
  }
}
