package dev.leap.bench.peers;

import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;

/**
 * Prints a regex (Leap's dialect, parsed by {@link RegexParser}) as a GBNF grammar with one rule,
 * {@code root}, so the same constraint runs on llama.cpp: literals as quoted strings, sets as
 * character classes, {@code {m,n}} as GBNF's bounded repetition, alternatives in parentheses.
 *
 * <p>One deliberate detour: control characters of a set ({@code \t \n \r} from {@code \s}) are
 * printed as quoted alternatives beside the class, never inside it, because java-llama.cpp 4.2.0
 * hung on a class holding them ({@code ../shared/notes/peers.md}). The language is the same.
 */
public final class GbnfPrinter {
  private GbnfPrinter() {}

  /** {@code root ::= ...} for {@code regex}. */
  public static String print(String regex) {
    Re re = RegexParser.parse(regex);
    StringBuilder sb = new StringBuilder("root ::= ");
    print(re, sb);
    return sb.append('\n').toString();
  }

  private static void print(Re re, StringBuilder sb) {
    if (re instanceof Re.Empty) {
      sb.append("\"\"");
    } else if (re instanceof Re.Chars c) {
      chars(c.ranges(), sb);
    } else if (re instanceof Re.Concat c) {
      // Runs of single characters as one quoted literal.
      StringBuilder lit = new StringBuilder();
      boolean first = true;
      for (Re item : c.items()) {
        if (item instanceof Re.Chars ch
            && ch.ranges().length == 2
            && ch.ranges()[0] == ch.ranges()[1]) {
          lit.appendCodePoint(ch.ranges()[0]);
          continue;
        }
        if (lit.length() > 0) {
          sb.append(first ? "" : " ").append(quote(lit.toString()));
          lit.setLength(0);
          first = false;
        }
        sb.append(first ? "" : " ");
        first = false;
        boolean group = item instanceof Re.Alt || item instanceof Re.Concat;
        sb.append(group ? "(" : "");
        print(item, sb);
        sb.append(group ? ")" : "");
      }
      if (lit.length() > 0) {
        sb.append(first ? "" : " ").append(quote(lit.toString()));
      }
    } else if (re instanceof Re.Alt a) {
      for (int i = 0; i < a.options().size(); i++) {
        sb.append(i == 0 ? "" : " | ");
        Re o = a.options().get(i);
        boolean group = o instanceof Re.Alt;
        sb.append(group ? "(" : "");
        print(o, sb);
        sb.append(group ? ")" : "");
      }
    } else if (re instanceof Re.Repeat r) {
      sb.append('(');
      print(r.item(), sb);
      sb.append(')');
      if (r.min() == 0 && r.max() == -1) {
        sb.append('*');
      } else if (r.min() == 1 && r.max() == -1) {
        sb.append('+');
      } else if (r.min() == 0 && r.max() == 1) {
        sb.append('?');
      } else if (r.max() == -1) {
        sb.append('{').append(r.min()).append(",}");
      } else if (r.min() == r.max()) {
        sb.append('{').append(r.min()).append('}');
      } else {
        sb.append('{').append(r.min()).append(',').append(r.max()).append('}');
      }
    } else {
      throw new IllegalArgumentException(
          "the GBNF printer cannot print an automaton-valued regex part");
    }
  }

  private static void chars(int[] ranges, StringBuilder sb) {
    if (ranges.length == 2 && ranges[0] == ranges[1]) {
      sb.append(quote(new String(Character.toChars(ranges[0]))));
      return;
    }
    StringBuilder cls = new StringBuilder();
    StringBuilder controls = new StringBuilder();
    for (int i = 0; i < ranges.length; i += 2) {
      int lo = ranges[i];
      int hi = ranges[i + 1];
      for (int cp = lo; cp <= hi && cp < 0x20; cp++) {
        controls
            .append(controls.length() == 0 ? "" : " | ")
            .append(quote(new String(Character.toChars(cp))));
      }
      lo = Math.max(lo, 0x20);
      if (lo > hi) {
        continue;
      }
      cls.append(classChar(lo));
      if (hi > lo) {
        cls.append('-').append(classChar(hi));
      }
    }
    if (controls.length() == 0) {
      sb.append('[').append(cls).append(']');
    } else if (cls.length() == 0) {
      sb.append('(').append(controls).append(')');
    } else {
      sb.append("([").append(cls).append("] | ").append(controls).append(')');
    }
  }

  private static String classChar(int cp) {
    return switch (cp) {
      case '\\' -> "\\\\";
      case ']' -> "\\]";
      case '[' -> "\\[";
      case '-' -> "\\-";
      case '^' -> "\\^";
      default -> cp < 0x7F ? String.valueOf((char) cp) : String.format("\\U%08X", cp);
    };
  }

  static String quote(String s) {
    StringBuilder q = new StringBuilder("\"");
    s.codePoints()
        .forEach(
            cp -> {
              switch (cp) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                case '\r' -> q.append("\\r");
                case '\t' -> q.append("\\t");
                default -> {
                  if (cp < 0x20 || cp > 0x7E) {
                    q.append(String.format("\\U%08X", cp));
                  } else {
                    q.appendCodePoint(cp);
                  }
                }
              }
            });
    return q.append('"').toString();
  }
}
