package dev.leap.fsm.tags;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Excerpt;

/**
 * Checks and quotes of the literal strings of tags and gates (triggers, begins, ends, markers) for
 * errors.
 */
final class Texts {
  private Texts() {}

  /**
   * {@code text} in double quotes with newlines, tabs, quotes and backslashes escaped, bounded
   * ({@link Excerpt}).
   */
  static String quote(String text) {
    String escaped =
        text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\t", "\\t");
    return "\"" + Excerpt.around(escaped, -1) + "\"";
  }

  /**
   * Checks that {@code text} is not null and well-formed UTF-16 (no lone surrogate, which has no
   * UTF-8 form), and not empty unless {@code mayBeEmpty}.
   *
   * @throws ConstraintException naming {@code what}
   */
  static String check(String text, String what, boolean mayBeEmpty) {
    if (text == null) {
      throw new ConstraintException(what + " is null");
    }
    if (text.isEmpty() && !mayBeEmpty) {
      throw new ConstraintException(what + " is empty");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new ConstraintException(
            what
                + " "
                + quote(text)
                + " has a lone surrogate at index "
                + i
                + " (it has no UTF-8 form)");
      }
    }
    return text;
  }
}
