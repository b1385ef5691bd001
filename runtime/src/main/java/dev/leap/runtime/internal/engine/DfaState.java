package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.Dfa;
import dev.leap.retokenize.JumpPlan;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * {@link ConstraintState} of a regex or JSON Schema: a DFA state per output position.
 *
 * <p>{@code states[i]} is the DFA state before output token {@code i} and {@code states[size - 1]}
 * the current one; rolling back is cutting the list, and a jump takes the states after its tokens
 * from the {@link JumpPlan} (its planner walked them) instead of walking the DFA again. Allowed
 * tokens, next states and device masks come from the shared {@link CompiledConstraint}.
 */
final class DfaState implements ConstraintState {
  private final CompiledConstraint c;
  private final IntArrayList states = new IntArrayList();

  DfaState(CompiledConstraint c) {
    this.c = c;
    states.add(c.dfa().initialState());
  }

  private int state() {
    return states.getInt(states.size() - 1);
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
  public boolean canStop() {
    return c.dfa().isAccepting(state());
  }

  @Override
  public boolean mustStop() {
    return c.dfa().isAccepting(state()) && !c.dfa().hasTransitions(state());
  }

  @Override
  public void accept(int token) {
    int next = c.index.nextState(state(), token);
    if (next == Dfa.DEAD) {
      throw new IllegalStateException("sampled token " + token + " is not allowed in DFA state " + state());
    }
    states.add(next);
  }

  @Override
  public void rollback(int n) {
    if (n < 0 || n >= states.size()) {
      throw new IllegalArgumentException("cannot roll back " + n + " of " + (states.size() - 1) + " tokens");
    }
    states.size(states.size() - n);
  }

  @Override
  public byte[] forcedBytes() {
    return c.fsm.jumpBytes(state());
  }

  @Override
  public JumpPlan planJump(int[] output, int outLen) {
    return c.retokenizer.plan(output, outLen, states.elements(), forcedBytes());
  }

  @Override
  public void jump(JumpPlan plan, int appended) {
    states.size(plan.keep() + 1);
    int[] after = plan.statesAfterEach();
    for (int i = 0; i < appended; i++) {
      states.add(after[i]);
    }
  }

  @Override
  public boolean matches(byte[] text) {
    return c.dfa().matches(text);
  }

  @Override
  public void check(byte[] outputBytes) {
    int walked = c.dfa().walk(c.dfa().initialState(), outputBytes);
    if (walked != state()) {
      throw new IllegalStateException(
          "invariant broken after a jump: state " + state() + " but walking the output gives " + walked);
    }
  }

  @Override
  public String describe() {
    return "DFA state " + state();
  }
}
