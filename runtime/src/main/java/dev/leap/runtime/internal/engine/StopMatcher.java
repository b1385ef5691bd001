package dev.leap.runtime.internal.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The first occurrence of any stop string in a request's output bytes, kept up to date as the
 * output grows by a token and shrinks when a jump retracts tokens. The bytes are the caller's (the
 * sequence's {@link OutputBuffer}): this keeps only where each stop string may still start.
 *
 * <p>Invariant: for each stop string {@code i}, no occurrence starts before {@code next[i]} in the
 * current bytes; {@link #firstMatch()} is the least start of an occurrence found so far (the first
 * in the output, since every earlier start is ruled out). Appending scans only start positions not
 * ruled out yet, so a whole generation costs O(output bytes x longest stop string) instead of the
 * O(output^2) of searching the whole output after every token. {@link #truncate} keeps what still
 * holds: starts whose compared bytes all lie below the cut stay ruled out.
 *
 * <p>Public for the benchmarks ({@code StopMatcherBench}); one per request, scheduler thread only.
 */
public final class StopMatcher {
  private final byte[][] stops;
  private final int[] next;
  private int length;
  private int found = -1;

  public StopMatcher(List<String> stops) {
    this.stops = new byte[stops.size()][];
    for (int i = 0; i < this.stops.length; i++) {
      this.stops[i] = stops.get(i).getBytes(StandardCharsets.UTF_8);
    }
    this.next = new int[this.stops.length];
  }

  /**
   * The output grew: it is now the first {@code length} bytes of {@code bytes} (what was seen
   * before unchanged); looks for stop strings that end in the new bytes.
   */
  public void grew(byte[] bytes, int length) {
    if (length < this.length || length > bytes.length) {
      throw new IllegalArgumentException(
          "output of " + this.length + " bytes cannot grow to " + length);
    }
    this.length = length;
    for (int i = 0; i < stops.length; i++) {
      byte[] stop = stops[i];
      int p = next[i];
      while (p + stop.length <= length && !at(bytes, p, stop)) {
        p++;
      }
      next[i] = p;
      if (p + stop.length <= length && (found < 0 || p < found)) {
        found = p;
      }
    }
  }

  /** Cuts the output to its first {@code n} bytes (a jump retracted the tokens after them). */
  public void truncate(int n) {
    if (n > length || n < 0) {
      throw new IllegalArgumentException("cannot cut " + length + " output bytes to " + n);
    }
    length = n;
    found = -1;
    for (int i = 0; i < stops.length; i++) {
      // A start was ruled out by comparing its stop.length bytes; those at or past n may change.
      next[i] = Math.min(next[i], Math.max(0, n - stops[i].length + 1));
      if (next[i] + stops[i].length <= length && (found < 0 || next[i] < found)) {
        found = next[i]; // an occurrence found before the cut that lies wholly below it
      }
    }
  }

  /** The longest stop string, in bytes. */
  int longest() {
    int m = 0;
    for (byte[] s : stops) {
      m = Math.max(m, s.length);
    }
    return m;
  }

  /** The byte index where the first stop string starts in the output, or -1. */
  public int firstMatch() {
    return found;
  }

  /** Output bytes so far. */
  public int length() {
    return length;
  }

  private static boolean at(byte[] bytes, int p, byte[] stop) {
    for (int j = 0; j < stop.length; j++) {
      if (bytes[p + j] != stop[j]) {
        return false;
      }
    }
    return true;
  }
}
