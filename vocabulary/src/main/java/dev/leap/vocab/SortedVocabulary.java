package dev.leap.vocab;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * A vocabulary's tokens sorted by their bytes (unsigned lexicographic): an implicit byte trie.
 * Tokens that start with a given byte string form one contiguous range ({@link #lowerBound}); the
 * length of the prefix each token shares with the one before it ({@link #lcp}) and skip links past
 * every token sharing the first one or two bytes ({@link #skip1}, {@link #skip2}; computed by
 * {@link SkipLinks}, as for the views that leave a loop's tokens out) let a DFA walk the whole
 * vocabulary visiting a shared prefix once. Serves the token index (masks) and the jump retokenizer
 * (holding back tokens that a longer token could extend).
 *
 * <p>Built once per vocabulary instance and shared ({@link #of}, a weak cache), so compiling a new
 * constraint does not sort 150k tokens again. Tokens without bytes (special tokens) are left out of
 * the order. Every array returned is the shared one and must not be modified.
 */
public final class SortedVocabulary {
  private static final Map<Vocabulary, SortedVocabulary> CACHE =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final byte[][] tokenBytes;
  private final int[] ids;
  private final SkipLinks links;
  private final SortedTokens tokens;
  private final int[] lcp;
  private final int[] skip1;
  private final int[] skip2;
  private final int maxLength;

  private SortedVocabulary(Vocabulary vocab) {
    int size = vocab.size();
    tokenBytes = new byte[size][];
    int live = 0;
    int longest = 0;
    for (int i = 0; i < size; i++) {
      byte[] b = vocab.tokenBytes(i);
      if (b != null && b.length > 0) {
        tokenBytes[i] = b;
        live++;
        longest = Math.max(longest, b.length);
      }
    }
    maxLength = longest;
    ids = new int[live];
    for (int i = 0, j = 0; i < size; i++) {
      if (tokenBytes[i] != null) {
        ids[j++] = i;
      }
    }
    sort(ids, 0, live, 0, tokenBytes);
    links = SkipLinks.of(ids, tokenBytes);
    tokens = SortedTokens.of(ids, tokenBytes, links);
    lcp = links.lcp();
    skip1 = links.skip1();
    skip2 = links.skip2();
  }

  /** Insertion sort below this many tokens. */
  private static final int SMALL = 16;

  /**
   * Sorts {@code ids[lo, hi)}, whose bytes agree on their first {@code d}, by bytes (unsigned, a
   * prefix first) and equal bytes by id: multikey quicksort (Bentley and Sedgewick, "Fast
   * algorithms for sorting and searching strings", 1997), three-way partitions on the byte at depth
   * {@code d} (-1 past the end), so a shared prefix is read once per partition instead of once per
   * comparison. Primitive arrays only: no boxing of 150k ids (the comparator sort it replaces took
   * 0.2-0.6 s on Llama 3 and Qwen3).
   */
  static void sort(int[] ids, int lo, int hi, int d, byte[][] bytes) {
    while (hi - lo > 1) {
      if (hi - lo < SMALL) {
        insertionSort(ids, lo, hi, d, bytes);
        return;
      }
      int v = byteAt(bytes[ids[lo + (hi - lo) / 2]], d);
      int lt = lo;
      int gt = hi - 1;
      int i = lo;
      while (i <= gt) {
        int t = byteAt(bytes[ids[i]], d);
        if (t < v) {
          swap(ids, lt++, i++);
        } else if (t > v) {
          swap(ids, i, gt--);
        } else {
          i++;
        }
      }
      sort(ids, lo, lt, d, bytes);
      sort(ids, gt + 1, hi, d, bytes);
      if (v < 0) {
        Arrays.sort(ids, lt, gt + 1); // identical bytes: by id
        return;
      }
      lo = lt;
      hi = gt + 1;
      d++;
    }
  }

  private static void insertionSort(int[] ids, int lo, int hi, int d, byte[][] bytes) {
    for (int i = lo + 1; i < hi; i++) {
      int x = ids[i];
      byte[] bx = bytes[x];
      int j = i - 1;
      while (j >= lo) {
        byte[] by = bytes[ids[j]];
        int c =
            Arrays.compareUnsigned(
                by, Math.min(d, by.length), by.length, bx, Math.min(d, bx.length), bx.length);
        if (c < 0 || c == 0 && ids[j] < x) {
          break;
        }
        ids[j + 1] = ids[j];
        j--;
      }
      ids[j + 1] = x;
    }
  }

  private static int byteAt(byte[] b, int d) {
    return d < b.length ? b[d] & 0xFF : -1;
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  /** The shared sorted form of {@code vocab}. */
  public static SortedVocabulary of(Vocabulary vocab) {
    return CACHE.computeIfAbsent(vocab, SortedVocabulary::new);
  }

  /** Number of tokens with bytes (the length of the sorted order). */
  public int size() {
    return ids.length;
  }

  /** Token ids in byte order. */
  public int[] ids() {
    return ids;
  }

  /** The bytes of every token by id ({@code null} for a token without bytes). */
  public byte[][] tokenBytes() {
    return tokenBytes;
  }

  /** The bytes of the token at sorted position {@code j}. */
  public byte[] bytesAt(int j) {
    return tokenBytes[ids[j]];
  }

  /** The whole order with its bytes end to end, for {@link SortedWalk}. */
  public SortedTokens tokens() {
    return tokens;
  }

  /** {@link #lcp}, {@link #skip1} and {@link #skip2} together. */
  public SkipLinks links() {
    return links;
  }

  /**
   * For sorted position {@code j > 0}: the length of the prefix shared with position {@code j - 1};
   * 0 at 0.
   */
  public int[] lcp() {
    return lcp;
  }

  /**
   * For sorted position {@code j}: the next position whose first byte differs from {@code j}'s
   * ({@link #size} if none).
   */
  public int[] skip1() {
    return skip1;
  }

  /**
   * For sorted position {@code j}: the next position whose first two bytes differ from {@code j}'s.
   */
  public int[] skip2() {
    return skip2;
  }

  /** The longest token, in bytes. */
  public int maxLength() {
    return maxLength;
  }

  /**
   * The first sorted position whose bytes are not less than {@code key}: where tokens starting with
   * {@code key} begin.
   */
  public int lowerBound(byte[] key) {
    int lo = 0;
    int hi = ids.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(tokenBytes[ids[mid]], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Whether {@code bytes} starts with {@code prefix}. */
  public static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
