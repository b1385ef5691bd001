package dev.leap.fsm;

/** The constraint matches no text at all, so no output could ever satisfy it. */
public class EmptyLanguageException extends ConstraintException {
  private static final long serialVersionUID = 1L;

  private final String source;

  public EmptyLanguageException(String source) {
    super("the constraint matches no text at all: " + Excerpt.around(source, -1));
    this.source = source;
  }

  public String source() {
    return source;
  }
}
