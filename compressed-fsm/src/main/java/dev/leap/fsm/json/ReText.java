package dev.leap.fsm.json;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.internal.Re;

/** Prints a regex tree in Leap's dialect (so that it parses back to the same language). */
final class ReText {
  private ReText() {}

  static String print(Re re, int maxLength) {
    StringBuilder sb = new StringBuilder();
    print(re, sb, 0, maxLength);
    return sb.toString();
  }

  /** {@code prec}: 0 alternation, 1 concatenation, 2 repetition operand. */
  private static void print(Re re, StringBuilder sb, int prec, int max) {
    if (sb.length() > max) {
      throw new ConstraintException(
          "the JSON Schema's regex is longer than the limit of "
              + max
              + " characters (maxRegexLength)");
    }
    if (re instanceof Re.Empty) {
      if (prec >= 2) {
        sb.append("(?:)");
      }
    } else if (re instanceof Re.Chars c) {
      chars(c.ranges(), sb);
    } else if (re instanceof Re.Concat c) {
      if (prec >= 2) {
        sb.append("(?:");
      }
      for (Re r : c.items()) {
        print(r, sb, 1, max);
      }
      if (prec >= 2) {
        sb.append(')');
      }
    } else if (re instanceof Re.Alt a) {
      if (prec >= 1) {
        sb.append("(?:");
      }
      for (int i = 0; i < a.options().size(); i++) {
        if (i > 0) {
          sb.append('|');
        }
        print(a.options().get(i), sb, 0, max);
      }
      if (prec >= 1) {
        sb.append(')');
      }
    } else if (re instanceof Re.Repeat r) {
      print(r.item(), sb, 2, max);
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
    } else if (re instanceof Re.Call) {
      throw new ConstraintException(
          "the JSON Schema has no regex text: it calls a grammar rule (recursion)");
    } else if (re instanceof Re.Automaton) {
      throw new ConstraintException(
          "the JSON Schema has no regex text: part of it is an intersection or"
              + " difference of languages (pattern with a length or format, patternProperties, ...), which Leap compiles"
              + " as an automaton");
    }
  }

  private static void chars(int[] r, StringBuilder sb) {
    if (r.length == 0) {
      sb.append("[^\\x00-\\x{10FFFF}]");
      return;
    }
    if (r.length == 2 && r[0] == r[1]) {
      one(r[0], sb, false);
      return;
    }
    sb.append('[');
    for (int i = 0; i < r.length; i += 2) {
      one(r[i], sb, true);
      if (r[i + 1] != r[i]) {
        sb.append('-');
        one(r[i + 1], sb, true);
      }
    }
    sb.append(']');
  }

  private static void one(int cp, StringBuilder sb, boolean inClass) {
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
      sb.append(String.format("\\x%02X", cp));
    } else if (cp > 0xFFFF) {
      sb.append(String.format("\\x{%X}", cp));
    } else if ((inClass ? "\\]^-[" : "\\.^$|?*+()[]{}").indexOf(cp) >= 0) {
      sb.append('\\').appendCodePoint(cp);
    } else {
      sb.appendCodePoint(cp);
    }
  }
}
