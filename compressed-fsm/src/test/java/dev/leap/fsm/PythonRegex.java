package dev.leap.fsm;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A Python {@code re} pattern rewritten for {@code java.util.regex}, so that Java can be the
 * independent oracle for regexes written for Python ({@code re.fullmatch(p, s, re.ASCII)} is then
 * {@code Pattern.compile(toJava(p), UNIX_LINES).matcher(s).matches()}).
 *
 * <p>Where the two dialects read the same text differently, the pattern is rewritten and the
 * rewrite counted by name in {@link #rewrites}:
 * <ul>
 *   <li>{@code (?P<name>...)} and {@code (?P=name)}: Java spells them {@code (?<name>...)} and
 *       {@code \k<name>};
 *   <li>{@code \v} is U+000B in Python, a class of vertical space in Java; {@code \Z} is the very
 *       end in Python, Java's {@code \z}; {@code \U0010FFFF} is Java's {@code \x{10FFFF}};
 *   <li>inside a class, an unescaped {@code [} is a literal in Python and opens a nested class in
 *       Java, and {@code &&} is a literal pair in Python and an intersection in Java: both escaped;
 *   <li>a {@code {} that does not start a repetition is a literal in Python and an error in Java:
 *       escaped; {@code {,n}} is Python's {@code {0,n}}.
 * </ul>
 * Everything else ({@code .} with {@link Pattern#UNIX_LINES}: any character but {@code \n};
 * {@code \d \w \s} ASCII; {@code $} at the end or before a final {@code \n}) already agrees.
 */
final class PythonRegex {
  /** How often each rewrite was needed, by name, over every pattern given to {@link #toJava}. */
  final Map<String, Integer> rewrites = new TreeMap<>();

  /** The pattern for {@code java.util.regex}; compile it with {@link Pattern#UNIX_LINES}. */
  String toJava(String p) {
    StringBuilder sb = new StringBuilder();
    boolean inClass = false;
    int classStart = -1;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '\\' && i + 1 < p.length()) {
        char d = p.charAt(i + 1);
        if (d == 'v') {
          sb.append("\\x0B");
          count("\\v is U+000B");
        } else if (d == 'Z' && !inClass) {
          sb.append("\\z");
          count("\\Z is the very end");
        } else if (d == 'U' && isHex(p, i + 2, 8)) {
          sb.append("\\x{").append(p, i + 2, i + 10).append('}');
          i += 8;
          count("\\UXXXXXXXX");
        } else {
          sb.append(c).append(d);
        }
        i++;
        continue;
      }
      if (inClass) {
        if (c == ']' && i > classStart) {
          inClass = false;
          sb.append(c);
        } else if (c == '[') {
          sb.append("\\[");
          count("unescaped [ inside a class");
        } else if (c == '&' && i + 1 < p.length() && p.charAt(i + 1) == '&') {
          sb.append("\\&");
          count("&& inside a class");
        } else {
          sb.append(c);
        }
        continue;
      }
      if (c == '[') {
        inClass = true;
        sb.append(c);
        classStart = i + 1;
        if (classStart < p.length() && p.charAt(classStart) == '^') {
          sb.append('^');
          classStart++;
          i++;
        }
        // Python reads a ']' right after '[' or '[^' as a literal.
        if (classStart < p.length() && p.charAt(classStart) == ']') {
          sb.append("\\]");
          i++;
          classStart++;
          count("] first in a class");
        }
        continue;
      }
      if (p.startsWith("(?P<", i)) {
        sb.append("(?<");
        i += 3;
        count("(?P<name>");
        continue;
      }
      if (p.startsWith("(?P=", i)) {
        int end = p.indexOf(')', i);
        sb.append("\\k<").append(p, i + 4, end).append('>');
        i = end;
        count("(?P=name)");
        continue;
      }
      if (c == '{') {
        int end = p.indexOf('}', i);
        String body = end < 0 ? null : p.substring(i + 1, end);
        if (body != null && body.matches("\\d+(,\\d*)?")) {
          sb.append(p, i, end + 1);
          i = end;
        } else if (body != null && body.matches(",\\d+") && i > 0) {
          sb.append("{0").append(body).append('}');
          i = end;
          count("{,n}");
        } else {
          sb.append("\\{");
          count("literal {");
        }
        continue;
      }
      sb.append(c);
    }
    return sb.toString();
  }

  /** {@link #toJava} compiled with {@link Pattern#UNIX_LINES}. */
  Pattern compile(String pythonPattern) {
    return Pattern.compile(toJava(pythonPattern), Pattern.UNIX_LINES);
  }

  private void count(String what) {
    rewrites.merge(what, 1, Integer::sum);
  }

  private static boolean isHex(String s, int from, int n) {
    if (from + n > s.length()) {
      return false;
    }
    for (int i = from; i < from + n; i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }
}
