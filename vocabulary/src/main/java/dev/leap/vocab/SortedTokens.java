package dev.leap.vocab;

/**
 * A byte-sorted token sequence as {@link SortedWalk} reads it: the ids in byte order, their bytes
 * laid end to end in that order ({@link #bytes}, token {@code j} at {@code [start[j], start[j +
 * 1])}), and their {@link SkipLinks}. The whole sorted vocabulary ({@link SortedVocabulary#tokens})
 * and each subsequence a walk visits (the compressed FSM's views) are one each.
 *
 * <p>Why the bytes are copied end to end: a walk reads its tokens in order, and the first walk of a
 * state after other work (a forward pass, another constraint's compile) finds them out of the CPU
 * caches. Read through the ids, each token is a reference in an array indexed by id (a random
 * access) and then an array object of its own; laid end to end they are one forward stream of about
 * 7 bytes a token. Touching every third token of Llama 3's order after a cache flush: 0.8-1.2 ms by
 * id, 0.1 ms end to end. Immutable; the arrays are shared and must not be modified.
 */
public final class SortedTokens {
  private final int[] ids;
  private final byte[] bytes;
  private final int[] start;
  private final SkipLinks links;
  private final int[] blocks;

  private SortedTokens(int[] ids, byte[] bytes, int[] start, SkipLinks links) {
    this.ids = ids;
    this.bytes = bytes;
    this.start = start;
    this.links = links;
    this.blocks = new int[257];
    int j = 0;
    for (int b = 0; b < 256; b++) {
      blocks[b] = j;
      while (j < ids.length && (bytes[start[j]] & 0xFF) == b) {
        j++;
      }
    }
    blocks[256] = ids.length;
  }

  /**
   * The sequence {@code ids} (sorted by bytes; kept, not copied) with {@code links} (its links,
   * kept) and the bytes of each id from {@code bytesById} (copied end to end).
   */
  public static SortedTokens of(int[] ids, byte[][] bytesById, SkipLinks links) {
    if (links.lcp().length != ids.length) {
      throw new IllegalArgumentException(
          "links of " + links.lcp().length + " tokens for " + ids.length + " ids");
    }
    int[] start = new int[ids.length + 1];
    for (int j = 0; j < ids.length; j++) {
      start[j + 1] = start[j] + bytesById[ids[j]].length;
    }
    byte[] bytes = new byte[start[ids.length]];
    for (int j = 0; j < ids.length; j++) {
      byte[] b = bytesById[ids[j]];
      System.arraycopy(b, 0, bytes, start[j], b.length);
    }
    return new SortedTokens(ids, bytes, start, links);
  }

  /**
   * The sequence {@code ids} (sorted by bytes) whose bytes are already end to end in {@code bytes},
   * token {@code j} at {@code [start[j], start[j + 1])}, with {@code links}; all kept, not copied.
   */
  public static SortedTokens ofStream(int[] ids, byte[] bytes, int[] start, SkipLinks links) {
    if (links.lcp().length != ids.length || start.length != ids.length + 1) {
      throw new IllegalArgumentException(
          "links of "
              + links.lcp().length
              + " tokens and "
              + start.length
              + " starts for "
              + ids.length
              + " ids");
    }
    return new SortedTokens(ids, bytes, start, links);
  }

  /** How many tokens. */
  public int size() {
    return ids.length;
  }

  /** The token ids in byte order. */
  public int[] ids() {
    return ids;
  }

  /** Every token's bytes, end to end in order. */
  public byte[] bytes() {
    return bytes;
  }

  /**
   * Where each token's bytes begin in {@link #bytes}; one entry more than tokens (the last is the
   * end).
   */
  public int[] start() {
    return start;
  }

  public SkipLinks links() {
    return links;
  }

  /**
   * Where the tokens beginning with byte {@code b} begin: they are the positions {@code
   * [blockStart(b), blockStart(b + 1))}, empty when none does; {@code blockStart(256)} is {@link
   * #size}. Lets a walk visit only the blocks of the first bytes that live ({@link
   * SortedWalk#walkBlocks}) without touching the others, which after a cache flush costs a miss or
   * more per block head.
   */
  public int blockStart(int b) {
    return blocks[b];
  }
}
