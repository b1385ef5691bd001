package dev.leap.fsm;

/**
 * A byte automaton with int states: what the runtime and the jump retokenizer need to walk output
 * bytes, whatever keeps the constraint. {@link Dfa} implements it (states are table rows), and so
 * does a grammar matcher ({@code dev.leap.fsm.grammar.GrammarMatcher}, whose states are interned
 * stack configurations).
 *
 * <p>Contract: states are non-negative ints, {@link #DEAD} ({@code -1}) is the reject state and is
 * never passed back in; walking is deterministic (the same state and bytes always give the same
 * state), so a caller may keep the state before every output position and walk again from any of
 * them. A live state (not {@link #DEAD}) is a prefix of some full match unless an implementation
 * says otherwise.
 */
public interface ByteAutomaton {
  /** The reject state (equal to {@link Dfa#DEAD}). */
  int DEAD = -1;

  /** The state before any byte. */
  int initialState();

  /**
   * The state after the bytes {@code [from, to)} from {@code state}, or {@link #DEAD} once
   * rejected.
   */
  int walk(int state, byte[] bytes, int from, int to);

  /** The state after all of {@code bytes} from {@code state}, or {@link #DEAD}. */
  default int walk(int state, byte[] bytes) {
    return walk(state, bytes, 0, bytes.length);
  }

  /** Whether the text so far is a full match (the output may stop here). */
  boolean isAccepting(int state);

  /** Whether some byte can follow {@code state}. */
  boolean hasTransitions(int state);
}
