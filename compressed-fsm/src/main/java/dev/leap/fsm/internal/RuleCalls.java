package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import java.util.Arrays;

/**
 * How a byte automaton carries a call of a compiled grammar rule: the four-byte <em>marker</em>
 * {@code FF d2 d1 d0}, the decimal digits of the rule's index as bytes {@code F5..FE}. The automata
 * stay over bytes (the subset construction, the minimizer and {@link Dfa} know nothing of calls);
 * bytes {@code F5..FF} never occur in UTF-8, so a marker never matches text.
 *
 * <p>The encoding lives here alone. Trees do not see it: they hold {@link Re.Call} nodes, which
 * {@link Nfa} builds as the marker's path ({@link #marker}); the grammar engine ({@code
 * dev.leap.fsm.grammar.RuleAutomaton}) reads marker paths of a minimal DFA back as call edges.
 */
public final class RuleCalls {
  private RuleCalls() {}

  /** First byte of a call marker. */
  public static final int MARK = 0xFF;

  /** Digit bytes are {@code DIGIT0 .. DIGIT0 + 9}. */
  public static final int DIGIT0 = 0xF5;

  /** Most compiled rules a grammar may have (three decimal digits). */
  public static final int MAX_RULES = 1000;

  /** States of a marker's automaton ({@link #marker}). */
  public static final int MARKER_STATES = 5;

  /**
   * The marker of a call of compiled rule {@code k} (0 to 999): a five-state byte automaton that
   * reads {@code FF d2 d1 d0} and accepts.
   */
  public static Dfa marker(int k) {
    if (k < 0 || k >= MAX_RULES) {
      throw new IllegalArgumentException("rule index " + k + " outside 0.." + (MAX_RULES - 1));
    }
    int[] bytes = {MARK, DIGIT0 + k / 100, DIGIT0 + (k / 10) % 10, DIGIT0 + k % 10};
    int[] classOf = new int[256];
    for (int b = 0; b < 256; b++) {
      classOf[b] = b;
    }
    int[] table = new int[MARKER_STATES * 256];
    Arrays.fill(table, Dfa.DEAD);
    for (int i = 0; i < 4; i++) {
      table[i * 256 + bytes[i]] = i + 1;
    }
    return new Dfa(MARKER_STATES, classOf, 256, table, new long[] {1L << 4});
  }
}
