package dev.leap.fsm;

/**
 * Determinization would need more DFA states than the limit allows (for example
 * {@code (a|b)*a(a|b){24}}, whose minimal DFA has 2^25 states). Carries the regex, the limit and
 * the number of states reached when compilation stopped.
 */
public class AutomatonTooLargeException extends ConstraintException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int limit;
  private final int reached;

  public AutomatonTooLargeException(String source, int limit, int reached) {
    super("the DFA would exceed the state limit of " + limit + " states (reached " + reached
        + "); simplify the constraint or raise the limit (maxDfaStates): " + source);
    this.source = source;
    this.limit = limit;
    this.reached = reached;
  }

  public String source() {
    return source;
  }

  public int limit() {
    return limit;
  }

  public int reached() {
    return reached;
  }
}
