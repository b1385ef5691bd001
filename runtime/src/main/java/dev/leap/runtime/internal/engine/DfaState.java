package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;

/**
 * {@link ConstraintState} of a regex, choice, JSON Schema or grammar without recursion: a DFA state
 * per output position ({@link AutomatonState}). Allowed tokens, next states and device masks come
 * from the shared {@link CompiledDfa}, so requests in the same state share one mask.
 */
final class DfaState extends AutomatonState {
  private final CompiledDfa c;

  DfaState(CompiledDfa c) {
    super(c.fsm.dfa(), c.retokenizer);
    this.c = c;
  }

  @Override
  int next(int state, int token) {
    return c.index.nextState(state, token);
  }

  @Override
  public int allowedCount() {
    return c.index.allowedCount(state());
  }

  @Override
  public NDArray disallowedMask(NDManager step) {
    return c.mask(state());
  }

  @Override
  public long[] allowedWords() {
    return c.index.allowed(state());
  }

  @Override
  public byte[] forcedBytes() {
    return c.fsm.jumpBytes(state());
  }

  @Override
  public String describe() {
    return "DFA state " + state();
  }
}
