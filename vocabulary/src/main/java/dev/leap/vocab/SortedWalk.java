package dev.leap.vocab;

/**
 * The one walk of a byte-sorted token sequence through a recognizer (after llguidance's {@code
 * toktrie}): each token's bytes are pushed one at a time from the depth its prefix shares with the
 * previous token, so a shared prefix is pushed once; after a token dies, the following tokens that
 * share enough of its bytes get its answer without a walk (in one jump, through {@link SkipLinks},
 * when that is one or two bytes). The compressed FSM's token masks (a DFA state) and the grammar's
 * per-rule-state token sets (a stack top) are its two recognizers.
 *
 * <p>Invariant the recognizer may rely on: when the walk asks about depth {@code d} of a token, the
 * configurations at depths {@code 0..d} are those of that token's first {@code d} bytes (pushed for
 * it or for an earlier token with the same prefix); depth 0 is the start and must be alive.
 */
public final class SortedWalk {
  private SortedWalk() {}

  /** What the walk drives: configurations by depth, and the answers for tokens. */
  public interface Recognizer {
    /** Whether the configuration after {@code depth} bytes of the current token is alive. */
    boolean alive(int depth);

    /** Fills depth {@code depth + 1} from depth {@code depth} (alive) and the byte {@code b}. */
    void push(int depth, byte b);

    /**
     * Token {@code id} read whole: all its {@code length} bytes pushed (the configuration there may
     * be dead).
     */
    void complete(int id, int length);

    /**
     * Token {@code id} died: the configuration after {@code depth >= 1} of its bytes is dead, and
     * its byte {@code next} comes next. Returns how many leading bytes (at least 1, at most {@code
     * depth + 1}) the following tokens must share with it to get the same answer: positive, they
     * are skipped; negative (minus that count), each is passed to {@link #sameAsDied}.
     */
    int died(int id, int depth, byte next);

    /**
     * A following token that gets the answer of the last {@link #died} that returned a negative
     * count.
     */
    void sameAsDied(int id);
  }

  /** Walks every token of {@code tokens} through {@code r}. */
  public static void walk(SortedTokens tokens, Recognizer r) {
    walk(tokens, 0, tokens.size(), r);
  }

  /**
   * Walks the tokens whose first byte is in {@code firstBytes} (four words, a 256-bit set) through
   * {@code r}, block by block ({@link SortedTokens#blockStart}): the same answers as {@link
   * #walk(SortedTokens, Recognizer)} for a recognizer on which every other first byte dies, without
   * reading those tokens.
   */
  public static void walkBlocks(SortedTokens tokens, long[] firstBytes, Recognizer r) {
    for (int w = 0; w < 4; w++) {
      long bits = firstBytes[w];
      while (bits != 0) {
        int b = (w << 6) + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
        int from = tokens.blockStart(b);
        int to = tokens.blockStart(b + 1);
        if (from < to) {
          walk(tokens, from, to, r);
        }
      }
    }
  }

  /**
   * Walks the tokens at positions {@code [from, to)} of {@code tokens} through {@code r}: a range
   * that starts where the one before differs in its first byte ({@code lcp[from] == 0}; position 0,
   * or the start of the tokens that begin with one byte value).
   */
  public static void walk(SortedTokens tokens, int from, int to, Recognizer r) {
    int[] ids = tokens.ids();
    byte[] bytes = tokens.bytes();
    int[] start = tokens.start();
    SkipLinks links = tokens.links();
    int[] lcp = links.lcp();
    int[] skip1 = links.skip1();
    int[] skip2 = links.skip2();
    if (from < to && lcp[from] != 0) {
      throw new IllegalArgumentException("a walk starts where the first byte changes: " + from);
    }
    int n = to;
    int j = from;
    while (j < n) {
      int id = ids[j];
      int at = start[j];
      int len = start[j + 1] - at;
      int d = lcp[j];
      while (d < len && r.alive(d)) {
        r.push(d, bytes[at + d]);
        d++;
      }
      if (d == len) {
        r.complete(id, len);
        j++;
        continue;
      }
      int shared = r.died(id, d, bytes[at + d]);
      if (shared < 0) {
        shared = -shared;
        j++;
        while (j < n && lcp[j] >= shared) {
          r.sameAsDied(ids[j]);
          j++;
        }
      } else if (shared == 1) {
        j = skip1[j];
      } else if (shared == 2) {
        j = skip2[j];
      } else {
        j++;
        while (j < n && lcp[j] >= shared) {
          j++;
        }
      }
    }
  }
}
