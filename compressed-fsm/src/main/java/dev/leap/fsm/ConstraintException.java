package dev.leap.fsm;

/**
 * A constraint that cannot be compiled: bad syntax, an unsupported feature, an empty language, or
 * an automaton past its size limit. The message says what and where.
 */
public class ConstraintException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public ConstraintException(String message) {
    super(message);
  }
}
