package dev.leap.fsm.grammar;

import dev.leap.fsm.ConstraintException;

/**
 * A GBNF grammar that Leap cannot compile: bad syntax, an undefined, duplicate or unused rule, no
 * {@code root}, left recursion, or a rule that can never finish. The message starts with the place,
 * {@code grammar line 3, column 14: undefined rule "valu"}; {@link #line()} and {@link #column()}
 * are 1-based (column in code points of that line).
 */
public class GrammarSyntaxException extends ConstraintException {
  private static final long serialVersionUID = 1L;
  private final int line;
  private final int column;
  private final String description;

  public GrammarSyntaxException(int line, int column, String description) {
    super("grammar line " + line + ", column " + column + ": " + description);
    this.line = line;
    this.column = column;
    this.description = description;
  }

  /** 1-based line of the offending place. */
  public int line() {
    return line;
  }

  /** 1-based column (code points) of the offending place. */
  public int column() {
    return column;
  }

  /** What is wrong, without the place. */
  public String description() {
    return description;
  }
}
