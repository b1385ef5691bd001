package dev.leap.fsm.json;

import dev.leap.fsm.RegexSyntaxException;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A JSON Schema {@code pattern} (an ECMA-262 regex, searched: a string is valid if the pattern
 * matches somewhere in it) as the language of the decoded strings it accepts.
 *
 * <p>Anchors: {@code ^} and {@code $} may start and end each top-level alternative, also inside a
 * group that spans a whole alternative ({@code ^$|^[0-9]+$}, {@code (^a)|(^b$)}, {@code (^x|y$)}),
 * since a search for {@code A|B} matches exactly where a search for {@code A} or one for {@code B}
 * does. Anchors elsewhere (inside a repetition, after text) are a {@link RegexSyntaxException}.
 * Classes have ECMA's meaning ({@link RegexParser#parse(String, boolean)}).
 */
final class EcmaPattern {
  private EcmaPattern() {}

  /**
   * Decoded strings in which {@code pattern} finds a match. Alternatives with the same anchors
   * share one search wrapper ({@code .*(A|B).*}, not {@code .*A.*|.*B.*}, whose determinization
   * would track every alternative's match separately).
   */
  static Re searchLanguage(String pattern) {
    Re anyString = new Re.Repeat(new Re.Chars(CharRanges.negate(new int[0])), 0, -1);
    List<List<Re>> byAnchors =
        new ArrayList<>(
            List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
    collect(pattern, pattern, 0, false, false, byAnchors);
    List<Re> options = new ArrayList<>();
    for (int k = 0; k < 4; k++) {
      List<Re> res = byAnchors.get(k);
      if (res.isEmpty()) {
        continue;
      }
      boolean start = (k & 1) != 0;
      boolean end = (k & 2) != 0;
      Re body = res.size() == 1 ? res.get(0) : new Re.Alt(res);
      List<Re> parts = new ArrayList<>();
      if (!start) {
        parts.add(anyString);
      }
      parts.add(body);
      if (!end) {
        parts.add(anyString);
      }
      options.add(parts.size() == 1 ? body : new Re.Concat(parts));
    }
    return options.size() == 1 ? options.get(0) : new Re.Alt(options);
  }

  /**
   * Adds each alternative of {@code p} (at {@code offset} in {@code full}) to {@code byAnchors},
   * indexed by its anchors (1: at the start, 2: at the end).
   */
  private static void collect(
      String full, String p, int offset, boolean start, boolean end, List<List<Re>> byAnchors) {
    int[] depth = syntaxDepth(p);
    int from = 0;
    for (int i = 0; i <= p.length(); i++) {
      if (i == p.length() || (p.charAt(i) == '|' && depth[i] == 0)) {
        alternative(full, p, depth, offset, from, i, start, end, byAnchors);
        from = i + 1;
      }
    }
  }

  /** Adds the top-level alternative {@code p[from, to)} (see {@link #collect}). */
  private static void alternative(
      String full,
      String p,
      int[] depth,
      int offset,
      int from,
      int to,
      boolean start,
      boolean end,
      List<List<Re>> byAnchors) {
    if (from < to && p.charAt(from) == '^') {
      start = true;
      from++;
    }
    if (to > from && p.charAt(to - 1) == '$' && depth[to - 1] >= 0) {
      end = true;
      to--;
    }
    int body = wholeGroupBody(p, depth, from, to);
    if (body >= 0 && hasAnchor(p, depth, from, to)) {
      collect(full, p.substring(body, to - 1), offset + body, start, end, byAnchors);
      return;
    }
    try {
      byAnchors
          .get((start ? 1 : 0) | (end ? 2 : 0))
          .add(RegexParser.parse(p.substring(from, to), true));
    } catch (RegexSyntaxException x) {
      // The index in the whole pattern, not in the alternative.
      throw new RegexSyntaxException(x.getDescription(), full, offset + from + x.getIndex());
    }
  }

  /**
   * For each character of {@code p}: the depth of groups around it if it is syntax (neither escaped
   * nor inside a class; for {@code )} the depth after it closes), else -1. A {@code ]} first in a
   * class (after an optional {@code ^}) is a literal, as {@link RegexParser} reads it.
   */
  static int[] syntaxDepth(String p) {
    int[] depth = new int[p.length()];
    Arrays.fill(depth, -1);
    int d = 0;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '\\') {
        i++;
        continue;
      }
      depth[i] = c == ')' ? --d : d;
      if (c == '(') {
        d++;
      } else if (c == '[') {
        int j = i + 1;
        if (j < p.length() && p.charAt(j) == '^') {
          j++;
        }
        if (j < p.length() && p.charAt(j) == ']') {
          j++;
        }
        while (j < p.length() && p.charAt(j) != ']') {
          j += p.charAt(j) == '\\' ? 2 : 1;
        }
        i = j; // the closing ']' (or the end)
      }
    }
    return depth;
  }

  /**
   * If {@code p[from, to)} is one group {@code (...)} or {@code (?:...)} and nothing else (not
   * repeated), the index in {@code p} where its body starts; else -1.
   */
  private static int wholeGroupBody(String p, int[] depth, int from, int to) {
    if (to - from < 2 || p.charAt(from) != '(' || depth[from] != 0) {
      return -1;
    }
    for (int i = from + 1; i < to; i++) {
      if (p.charAt(i) == ')' && depth[i] == 0) {
        if (i != to - 1) {
          return -1; // the first group closes before the end
        }
        if (p.startsWith("(?:", from)) {
          return from + 3;
        }
        return p.startsWith("(?", from)
            ? -1
            : from + 1; // named groups and other (? forms: left to the parser
      }
    }
    return -1;
  }

  /** Whether {@code p[from, to)} has a {@code ^} or {@code $} that is syntax. */
  private static boolean hasAnchor(String p, int[] depth, int from, int to) {
    for (int i = from; i < to; i++) {
      if ((p.charAt(i) == '^' || p.charAt(i) == '$') && depth[i] >= 0) {
        return true;
      }
    }
    return false;
  }
}
