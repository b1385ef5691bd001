package dev.leap.vocab;

/**
 * Code-point boundaries in UTF-8 bytes, the one place that knows the encoding's lead and
 * continuation bytes (continuation bytes are {@code 10xxxxxx}). Bytes need not be valid UTF-8: a
 * stray continuation byte counts as a code point of its own where noted.
 */
public final class Utf8 {
  private Utf8() {}

  /** Whether {@code b} is a continuation byte ({@code 10xxxxxx}). */
  public static boolean isContinuation(int b) {
    return (b & 0xC0) == 0x80;
  }

  /** Number of code points: the bytes that are not continuation bytes. */
  public static int codePoints(byte[] bytes) {
    int n = 0;
    for (byte b : bytes) {
      if (!isContinuation(b)) {
        n++;
      }
    }
    return n;
  }

  /**
   * Bytes in the sequence that {@code lead} starts (1 for ASCII, a continuation or an invalid
   * byte).
   */
  public static int sequenceLength(int lead) {
    int b = lead & 0xFF;
    return b < 0xC0 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
  }

  /**
   * The start of the last code point of {@code bytes}: the index of its lead byte (0 if every byte
   * is a continuation byte, or {@code bytes} is empty).
   */
  public static int lastCodePointStart(byte[] bytes) {
    int i = bytes.length - 1;
    while (i > 0 && isContinuation(bytes[i])) {
      i--;
    }
    return Math.max(i, 0);
  }

  /**
   * The length of the longest prefix that does not end inside a code point: {@code bytes.length},
   * unless the last lead byte (within the last four bytes) still waits for continuation bytes, then
   * that lead byte's index.
   */
  public static int completeLength(byte[] bytes) {
    return completeLength(bytes, bytes.length);
  }

  /** {@link #completeLength(byte[])} of the first {@code length} bytes. */
  public static int completeLength(byte[] bytes, int length) {
    int n = length;
    int i = n - 1;
    while (i >= 0 && isContinuation(bytes[i]) && n - i < 4) {
      i--;
    }
    if (i < 0) {
      return n;
    }
    return n - i < sequenceLength(bytes[i]) ? i : n;
  }
}
