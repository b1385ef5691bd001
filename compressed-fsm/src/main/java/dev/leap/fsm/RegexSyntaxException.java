package dev.leap.fsm;

/**
 * A regex that Leap cannot compile: bad syntax, or a feature outside its dialect (backreferences,
 * lookaround, possessive quantifiers, inline flags, anchors other than at the ends, ...).
 *
 * <p>Modelled on {@link java.util.regex.PatternSyntaxException}: the message shows the description,
 * the index and the pattern with a caret under the offending character.
 */
public class RegexSyntaxException extends ConstraintException {
  private static final long serialVersionUID = 1L;

  private final String description;
  private final String pattern;
  private final int index;

  public RegexSyntaxException(String description, String pattern, int index) {
    super(format(description, pattern, index));
    this.description = description;
    this.pattern = pattern;
    this.index = index;
  }

  private static String format(String description, String pattern, int index) {
    StringBuilder sb = new StringBuilder(description);
    if (index >= 0) {
      sb.append(" near index ").append(index);
    }
    Excerpt.Window w = Excerpt.of(pattern, index);
    sb.append('\n').append(w.quote());
    if (index >= 0 && index <= pattern.length()) {
      sb.append('\n').append(" ".repeat(w.caret())).append('^');
    }
    return sb.toString();
  }

  /** What is wrong, without the position. */
  public String getDescription() {
    return description;
  }

  /** The whole regex. */
  public String getPattern() {
    return pattern;
  }

  /**
   * The index (in UTF-16 chars) of the offending character, or -1 if it concerns the whole pattern.
   */
  public int getIndex() {
    return index;
  }

  /**
   * The message on one line: description, index and the pattern (a long one cut to {@value
   * Excerpt#DEFAULT_MAX} characters around the index), for command-line output.
   */
  public String oneLine() {
    return description
        + (index >= 0 ? " at index " + index : "")
        + " in regex: "
        + Excerpt.around(pattern, index);
  }
}
