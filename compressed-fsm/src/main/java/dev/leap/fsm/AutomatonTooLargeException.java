package dev.leap.fsm;

/**
 * Compilation would need more automaton states than a limit allows: determinization more DFA states
 * than {@code maxDfaStates} (for example {@code (a|b)*a(a|b){24}}, whose minimal DFA has 2^25
 * states), or the NFA more than {@link dev.leap.fsm.internal.Nfa#MAX_STATES}. Carries the regex,
 * the limit and the number of states reached when compilation stopped; the message quotes at most
 * {@value Excerpt#DEFAULT_MAX} characters of the regex.
 */
public class AutomatonTooLargeException extends ConstraintException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int limit;
  private final int reached;

  /** The DFA state limit ({@code maxDfaStates}) was reached. */
  public AutomatonTooLargeException(String source, int limit, int reached) {
    this(
        source,
        limit,
        reached,
        "the DFA would exceed the state limit of "
            + limit
            + " states (reached "
            + reached
            + "); simplify the constraint or raise the limit (maxDfaStates): "
            + Excerpt.around(source, -1));
  }

  /** A limit described by {@code message} was reached. */
  public AutomatonTooLargeException(String source, int limit, int reached, String message) {
    super(message);
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
