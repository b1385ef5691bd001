package dev.leap.runtime;

import java.util.List;
import java.util.Objects;

/**
 * What the output must match: a regular expression, one of a list of choices, or nothing.
 *
 * <p>A constraint is compiled once per runtime and cached by {@link #cacheKey()} (its kind and
 * source text). Compilation happens off the step loop; a constraint that cannot compile gives its
 * request an error result, and the other requests go on.
 */
public final class Constraint {

  /** The kinds of constraint. */
  public enum Kind {
    /** No constraint: any token, EOS included. */
    NONE,
    /** A regular expression in Leap's dialect (see the compressed-fsm module). */
    REGEX,
    /** Exactly one of a list of strings. */
    CHOICE
  }

  private static final Constraint NONE = new Constraint(Kind.NONE, null, List.of());

  private final Kind kind;
  private final String regex;
  private final List<String> choices;

  private Constraint(Kind kind, String regex, List<String> choices) {
    this.kind = kind;
    this.regex = regex;
    this.choices = choices;
  }

  /** No constraint. */
  public static Constraint none() {
    return NONE;
  }

  /** The whole output must match {@code regex} (full match, as {@code java.util.regex.Matcher#matches}). */
  public static Constraint regex(String regex) {
    Objects.requireNonNull(regex, "regex");
    return new Constraint(Kind.REGEX, regex, List.of());
  }

  /** The output must be exactly one of {@code choices} (at least one, none empty). */
  public static Constraint choice(String... choices) {
    return choice(List.of(choices));
  }

  /** The output must be exactly one of {@code choices} (at least one, none empty). */
  public static Constraint choice(List<String> choices) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("a choice constraint needs at least one choice");
    }
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < choices.size(); i++) {
      String c = choices.get(i);
      if (c == null || c.isEmpty()) {
        throw new IllegalArgumentException("choice " + i + " is empty");
      }
      if (i > 0) {
        re.append('|');
      }
      re.append(quote(c));
    }
    return new Constraint(Kind.CHOICE, re.toString(), List.copyOf(choices));
  }

  public Kind kind() {
    return kind;
  }

  /** The regex this constraint compiles to, or {@code null} for {@link Kind#NONE}. */
  public String regex() {
    return regex;
  }

  /** The choices of a {@link Kind#CHOICE} constraint, else empty. */
  public List<String> choices() {
    return choices;
  }

  /** The key under which the compiled form is cached. */
  public String cacheKey() {
    return kind == Kind.NONE ? "none" : "regex:" + regex;
  }

  /** {@code text} as a regex that matches exactly it, in Leap's dialect. */
  public static String quote(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 8);
    text.codePoints().forEach(cp -> {
      if ("\\.^$|?*+()[]{}".indexOf(cp) >= 0) {
        sb.append('\\').appendCodePoint(cp);
      } else if (cp == '\n') {
        sb.append("\\n");
      } else if (cp == '\t') {
        sb.append("\\t");
      } else if (cp < 0x20 || cp == 0x7F) {
        sb.append(String.format("\\x%02X", cp));
      } else {
        sb.appendCodePoint(cp);
      }
    });
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Constraint c && c.kind == kind && Objects.equals(c.regex, regex);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, regex);
  }

  @Override
  public String toString() {
    return kind == Kind.NONE ? "Constraint.none()" : "Constraint." + kind.name().toLowerCase() + "(" + regex + ")";
  }
}
