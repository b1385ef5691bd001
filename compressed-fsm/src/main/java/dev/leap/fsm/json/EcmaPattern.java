package dev.leap.fsm.json;

import dev.leap.fsm.RegexSyntaxException;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON Schema {@code pattern} (an ECMA-262 regex, searched: a string is valid if the pattern
 * matches somewhere in it) as the language of the decoded strings it accepts.
 *
 * <p>Anchors: {@code ^} and {@code $} may start and end each top-level alternative, also inside a
 * group that spans a whole alternative ({@code ^$|^[0-9]+$}, {@code (^a)|(^b$)}, {@code
 * (^x|y$)}), since a search for {@code A|B} matches exactly where a search for {@code A} or one for
 * {@code B} does. Anchors elsewhere (inside a repetition, after text) are a {@link
 * RegexSyntaxException}. Classes have ECMA's meaning ({@link RegexParser#parse(String, boolean)}).
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
    List<List<Re>> byAnchors = new ArrayList<>(List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
        new ArrayList<>()));
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
  private static void collect(String full, String p, int offset, boolean start, boolean end, List<List<Re>> byAnchors) {
    for (int[] span : topLevelAlternatives(p)) {
      int from = span[0];
      int to = span[1];
      boolean s = start;
      boolean e = end;
      if (from < to && p.charAt(from) == '^') {
        s = true;
        from++;
      }
      if (to > from && p.charAt(to - 1) == '$' && !escapedAt(p, to - 1)) {
        e = true;
        to--;
      }
      String inner = p.substring(from, to);
      int groupBody = wholeGroupBody(inner);
      if (groupBody >= 0 && hasAnchor(inner)) {
        collect(full, inner.substring(groupBody, inner.length() - 1), offset + from + groupBody, s, e, byAnchors);
        continue;
      }
      try {
        byAnchors.get((s ? 1 : 0) | (e ? 2 : 0)).add(RegexParser.parse(inner, true));
      } catch (RegexSyntaxException x) {
        // The index in the whole pattern, not in the alternative.
        throw new RegexSyntaxException(x.getDescription(), full, offset + from + x.getIndex());
      }
    }
  }

  /** {@code [from, to)} of each top-level alternative (outside groups, classes and escapes). */
  static List<int[]> topLevelAlternatives(String p) {
    List<int[]> out = new ArrayList<>();
    int depth = 0;
    boolean inClass = false;
    int start = 0;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '\\') {
        i++;
      } else if (inClass) {
        inClass = c != ']';
      } else if (c == '[') {
        inClass = true;
        if (i + 1 < p.length() && p.charAt(i + 1) == '^') {
          i++;
        }
        if (i + 1 < p.length() && p.charAt(i + 1) == ']') {
          i++; // a ']' first in a class is a literal
        }
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == '|' && depth == 0) {
        out.add(new int[] {start, i});
        start = i + 1;
      }
    }
    out.add(new int[] {start, p.length()});
    return out;
  }

  /**
   * If {@code s} is one group {@code (...)} or {@code (?:...)} and nothing else (not repeated), the
   * index where its body starts; else -1.
   */
  private static int wholeGroupBody(String s) {
    if (s.length() < 2 || s.charAt(0) != '(' || s.charAt(s.length() - 1) != ')' || escapedAt(s, s.length() - 1)) {
      return -1;
    }
    int depth = 0;
    boolean inClass = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        i++;
      } else if (inClass) {
        inClass = c != ']';
      } else if (c == '[') {
        inClass = true;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0 && i != s.length() - 1) {
        return -1; // the first group closes before the end
      }
    }
    if (s.startsWith("(?:")) {
      return 3;
    }
    return s.startsWith("(?") ? -1 : 1; // named groups and other (? forms: left to the parser
  }

  /** Whether {@code s} has an unescaped {@code ^} or {@code $} outside classes. */
  private static boolean hasAnchor(String s) {
    boolean inClass = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        i++;
      } else if (inClass) {
        inClass = c != ']';
      } else if (c == '[') {
        inClass = true;
        if (i + 1 < s.length() && s.charAt(i + 1) == '^') {
          i++;
        }
      } else if (c == '^' || c == '$') {
        return true;
      }
    }
    return false;
  }

  /** Whether the character at {@code i} is preceded by an odd number of backslashes. */
  private static boolean escapedAt(String s, int i) {
    int n = 0;
    for (int j = i - 1; j >= 0 && s.charAt(j) == '\\'; j--) {
      n++;
    }
    return (n & 1) == 1;
  }
}
