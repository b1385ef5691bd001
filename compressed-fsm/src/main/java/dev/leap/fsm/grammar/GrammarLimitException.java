package dev.leap.fsm.grammar;

import dev.leap.fsm.ConstraintException;

/**
 * A grammar hit one of its hard work limits while matching (stack depth, live stacks per byte) or
 * compiling (too many rules called through the stack). Thrown instead of stalling or running out of
 * memory; the message names the limit, its value and where it was hit. A runtime turns it into the
 * error result of the one request whose output hit it.
 */
public class GrammarLimitException extends ConstraintException {
  private static final long serialVersionUID = 1L;
  private final String limitName;
  private final int limit;

  public GrammarLimitException(String limitName, int limit, String message) {
    super(message);
    this.limitName = limitName;
    this.limit = limit;
  }

  /** Which limit: {@code "stack depth"}, {@code "live stacks"} or {@code "called rules"}. */
  public String limitName() {
    return limitName;
  }

  /** The limit's value. */
  public int limit() {
    return limit;
  }
}
