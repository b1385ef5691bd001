package dev.leap.testkit;

import java.util.List;
import java.util.function.Predicate;

/**
 * The naive twins of {@link StructuralTags} and {@link ReasoningGate}, written from their
 * definitions over Java strings: a scanner that reads free text up to the first point where a
 * trigger is complete, then tries every tag that begins there and every place its content could end
 * (backtracking, memoized by position). Slow and obvious; shares no code with the automata. Public
 * (in the test-jar) for the runtime's tests.
 */
public final class NaiveTags {
  private NaiveTags() {}

  /** A tag with its content as a predicate on the content's text. */
  public record Tag(String begin, Predicate<String> content, String end) {}

  /** Whether {@code s} is free text with {@code tags} entered at {@code triggers}. */
  public static boolean tags(String s, List<String> triggers, List<Tag> tags) {
    return new Object() {
      final Boolean[] memo = new Boolean[s.length() + 1];

      boolean from(int pos) {
        if (memo[pos] == null) {
          memo[pos] = scan(pos);
        }
        return memo[pos];
      }

      boolean scan(int pos) {
        for (int j = pos + 1; j <= s.length(); j++) {
          boolean anyEnds = false;
          boolean ok = false;
          for (String t : triggers) {
            int start = j - t.length();
            if (start < pos || !s.startsWith(t, start)) {
              continue;
            }
            anyEnds = true; // the first trigger complete in this free text: a tag starts at `start`
            for (Tag tag : tags) {
              if (ok || !tag.begin().startsWith(t) || !s.startsWith(tag.begin(), start)) {
                continue;
              }
              int c = start + tag.begin().length();
              for (int k = c; k <= s.length() && !ok; k++) {
                if (s.startsWith(tag.end(), k) && tag.content().test(s.substring(c, k))) {
                  ok = from(k + tag.end().length());
                }
              }
            }
          }
          if (anyEnds) {
            return ok;
          }
        }
        return true; // no trigger in the rest: free text to the end
      }
    }.from(0);
  }

  /**
   * Whether {@code s} is reasoning up to the first {@code marker}, at most {@code maxNewlines}
   * newlines, then content.
   */
  public static boolean gate(String s, String marker, int maxNewlines, Predicate<String> content) {
    int at = s.indexOf(marker);
    if (at < 0) {
      return false;
    }
    String rest = s.substring(at + marker.length());
    for (int k = 0; k <= maxNewlines && k <= rest.length(); k++) {
      if (content.test(rest.substring(k))) {
        return true;
      }
      if (k < rest.length() && rest.charAt(k) != '\n') {
        break;
      }
    }
    return false;
  }
}
