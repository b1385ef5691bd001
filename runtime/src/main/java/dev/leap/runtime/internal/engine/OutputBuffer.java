package dev.leap.runtime.internal.engine;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/**
 * A sequence's output: its token ids and, beside them, their bytes in one array with the byte
 * offset where each token ends (after SGLang's {@code Req}, one record of the output that every
 * consumer of its text reads). Stop strings ({@link StopMatcher}), streaming ({@link Streaming}),
 * the result ({@link Results}) and the invariant check read the bytes here; {@link Decoding} alone
 * changes it: it appends a token with its bytes, or cuts back to the first {@code k} tokens (a
 * jump's retokenization).
 *
 * <p>Invariant: {@code ends[i]} is the byte length of tokens {@code 0..i}; {@link #length()} is
 * {@code ends[count - 1]} (0 when empty). Scheduler thread only.
 */
final class OutputBuffer {
  private final IntArrayList tokens = new IntArrayList();
  private int[] ends = new int[16];
  private byte[] bytes = new byte[64];
  private int length;

  /** Appends {@code token}, whose bytes are {@code tokenBytes} (none for a special token). */
  void append(int token, byte[] tokenBytes) {
    int n = tokens.size();
    if (n == ends.length) {
      ends = Arrays.copyOf(ends, 2 * n);
    }
    if (length + tokenBytes.length > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, length + tokenBytes.length));
    }
    System.arraycopy(tokenBytes, 0, bytes, length, tokenBytes.length);
    length += tokenBytes.length;
    ends[n] = length;
    tokens.add(token);
  }

  /** Keeps the first {@code k} tokens and their bytes. */
  void truncate(int k) {
    if (k < 0 || k > tokens.size()) {
      throw new IllegalArgumentException("cannot cut " + tokens.size() + " output tokens to " + k);
    }
    tokens.size(k);
    length = byteOffset(k);
  }

  /** Output tokens so far. */
  int tokenCount() {
    return tokens.size();
  }

  int token(int i) {
    return tokens.getInt(i);
  }

  /** The token ids, valid up to {@link #tokenCount()}: the backing array, read, never written. */
  int[] tokenArray() {
    return tokens.elements();
  }

  /** A copy of the token ids. */
  int[] tokensCopy() {
    return tokens.toIntArray();
  }

  /** Output bytes so far. */
  int length() {
    return length;
  }

  /** The byte offset where token {@code k} starts (the bytes of the first {@code k} tokens). */
  int byteOffset(int k) {
    return k == 0 ? 0 : ends[k - 1];
  }

  /** The bytes, valid up to {@link #length()}: the backing array, read, never written. */
  byte[] byteArray() {
    return bytes;
  }

  /** A copy of bytes {@code [from, to)}. */
  byte[] slice(int from, int to) {
    if (from < 0 || to > length || from > to) {
      throw new IllegalArgumentException("bytes [" + from + ", " + to + ") of " + length);
    }
    return Arrays.copyOfRange(bytes, from, to);
  }
}
