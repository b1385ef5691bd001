package dev.leap.fsm;

/**
 * A bounded quote of user input for error messages: a 100 KB regex must not make a 100 KB error line.
 *
 * <p>Text of at most {@link #DEFAULT_MAX} characters is quoted whole. Longer text is cut to a window
 * of {@code max} characters around the offending position (its start when there is none), with
 * {@code …} where text was left out and the total length appended, e.g.
 * {@code …(ab|cd)*e{2,… (100000 chars)}. The window never splits a surrogate pair.
 */
public final class Excerpt {
  /** Characters quoted at most. */
  public static final int DEFAULT_MAX = 200;

  private Excerpt() {}

  /**
   * {@code text} whole if short, else {@link #DEFAULT_MAX} characters around {@code index} (-1:
   * none).
   */
  public static String around(String text, int index) {
    return of(text, index).quote();
  }

  /**
   * The window {@link #around} quotes, with where {@code index} falls in the quote (for a caret).
   */
  public static Window of(String text, int index) {
    int n = text.length();
    if (n <= DEFAULT_MAX) {
      return new Window(text, index, false);
    }
    int at = Math.max(0, Math.min(index, n));
    int from = Math.max(0, Math.min(at - DEFAULT_MAX / 2, n - DEFAULT_MAX));
    int to = Math.min(n, from + DEFAULT_MAX);
    if (from > 0 && Character.isLowSurrogate(text.charAt(from))) {
      from++;
    }
    if (to < n && Character.isHighSurrogate(text.charAt(to - 1))) {
      to--;
    }
    StringBuilder sb = new StringBuilder(DEFAULT_MAX + 24);
    if (from > 0) {
      sb.append('…');
    }
    int caret = index < 0 ? -1 : sb.length() + (at - from);
    sb.append(text, from, to);
    if (to < n) {
      sb.append('…');
    }
    sb.append(" (").append(n).append(" chars)");
    return new Window(sb.toString(), caret, true);
  }

  /**
   * A quote and the offending position inside it.
   *
   * @param quote the text, or its excerpt followed by its length
   * @param caret the offending position's index in {@code quote}, or -1
   * @param cut whether text was left out
   */
  public record Window(String quote, int caret, boolean cut) {}
}
