package dev.leap.fsm;

import java.nio.charset.StandardCharsets;

/**
 * One request's position in a compiled constraint: what the runtime drives each step. Not
 * thread-safe (one per request).
 *
 * <p>Invariant: {@link #state()} is the DFA state reached by walking, from the initial state, the
 * bytes of every token accepted and every string advanced over. The runtime that must roll back
 * (after a jump's retokenization drops tokens) keeps the state before each token itself and calls
 * {@link #reset(int)}.
 */
public final class FsmCursor {
  private final CompressedFsm fsm;
  private final TokenIndex index;
  private int state;

  public FsmCursor(CompressedFsm fsm, TokenIndex index) {
    if (fsm.dfa() != index.dfa()) {
      throw new IllegalArgumentException("the token index was built for another DFA");
    }
    this.fsm = fsm;
    this.index = index;
    this.state = fsm.dfa().initialState();
  }

  /** The tokens allowed now (shared: do not modify). */
  public long[] allowedMask() {
    return index.allowed(state);
  }

  /** Advances by a sampled token. */
  public void accept(int token) {
    int next = index.isAllowed(state, token) ? index.nextState(state, token) : Dfa.DEAD;
    if (next == Dfa.DEAD) {
      throw new IllegalStateException("token " + token + " is not allowed in state " + state);
    }
    state = next;
  }

  /** Whether the text may end here (the state is accepting). */
  public boolean canStop() {
    return fsm.dfa().isAccepting(state);
  }

  /** Whether the text must end here: accepting, and no byte can follow. */
  public boolean mustStop() {
    return canStop() && !fsm.dfa().hasTransitions(state);
  }

  /** The forced bytes from here (empty if none; shared: do not modify). */
  public byte[] jump() {
    return fsm.jumpBytes(state);
  }

  /** Advances by raw bytes (a jump string, or part of one). */
  public void advance(byte[] bytes) {
    int s = state;
    for (int i = 0; i < bytes.length; i++) {
      s = fsm.dfa().step(s, bytes[i]);
      if (s == Dfa.DEAD) {
        throw new IllegalArgumentException("byte " + i + " (0x" + Integer.toHexString(bytes[i] & 0xFF)
            + ") of the advanced text leaves the language (from state " + state + ")");
      }
    }
    state = s;
  }

  /** Advances by text (its UTF-8 bytes). */
  public void advance(String text) {
    advance(text.getBytes(StandardCharsets.UTF_8));
  }

  public int state() {
    return state;
  }

  /** Moves to {@code state} (a state this cursor was in before: rollback). */
  public void reset(int state) {
    if (state < 0 || state >= fsm.dfa().stateCount()) {
      throw new IllegalArgumentException("no state " + state + " (the DFA has " + fsm.dfa().stateCount() + ")");
    }
    this.state = state;
  }

  public CompressedFsm fsm() {
    return fsm;
  }

  public TokenIndex index() {
    return index;
  }
}
