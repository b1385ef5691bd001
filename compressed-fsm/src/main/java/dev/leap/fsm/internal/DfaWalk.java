package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import dev.leap.vocab.SortedWalk;

/**
 * The DFA as the vocabulary walk's recognizer: the state after each depth of the current token
 * ({@link Dfa#DEAD} once it died); a token is allowed when its whole walk stays alive, and a death
 * after {@code d} bytes is the answer of every token that shares them.
 */
public final class DfaWalk implements SortedWalk.Recognizer {
  private final Dfa dfa;
  private final int[] stack;
  private final long[] mask;

  /** Sets in {@code mask} the bit of every allowed token walked from {@code state}. */
  public DfaWalk(Dfa dfa, int state, int maxLen, long[] mask) {
    this.dfa = dfa;
    this.stack = new int[maxLen + 1];
    this.mask = mask;
    stack[0] = state;
  }

  @Override
  public boolean alive(int depth) {
    return stack[depth] != Dfa.DEAD;
  }

  @Override
  public void push(int depth, byte b) {
    stack[depth + 1] = dfa.step(stack[depth], b);
  }

  @Override
  public void complete(int id, int length) {
    if (stack[length] != Dfa.DEAD) {
      mask[id >>> 6] |= 1L << id;
    }
  }

  @Override
  public int died(int id, int depth, byte next) {
    return depth;
  }

  @Override
  public void sameAsDied(int id) {
    throw new IllegalStateException("a DFA's deaths are skipped, never reported");
  }
}
