package dev.leap.runtime.internal.engine;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.retokenize.JumpPlan;
import dev.leap.retokenize.JumpRetokenizer;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * The part of a {@link ConstraintState} that any byte automaton with int states shares: a state per
 * output position. {@code states[i]} is the automaton's state before output token {@code i} and the
 * last one the current state; rolling back cuts the list (an automaton's states stay valid, so
 * walking again from an old one is exact), and a jump takes the states after its tokens from the
 * {@link JumpPlan}, which the retokenizer walked through the same automaton. Subclasses give the
 * masks, the next state of a token and the forced bytes: {@link DfaState} from a shared compiled
 * DFA, {@link GrammarState} from the request's own grammar matcher.
 */
abstract class AutomatonState implements ConstraintState {
  private final ByteAutomaton automaton;
  private final JumpRetokenizer retokenizer;
  private final IntArrayList states = new IntArrayList();

  AutomatonState(ByteAutomaton automaton, JumpRetokenizer retokenizer) {
    this.automaton = automaton;
    this.retokenizer = retokenizer;
    states.add(automaton.initialState());
  }

  /** The current state. */
  final int state() {
    return states.getInt(states.size() - 1);
  }

  /**
   * The state after {@code token} from {@code state}, or {@link ByteAutomaton#DEAD} if not allowed.
   */
  abstract int next(int state, int token);

  @Override
  public final boolean canStop() {
    return automaton.isAccepting(state());
  }

  @Override
  public final boolean mustStop() {
    return automaton.isAccepting(state()) && !automaton.hasTransitions(state());
  }

  @Override
  public final void accept(int token) {
    int next = next(state(), token);
    if (next == ByteAutomaton.DEAD) {
      throw new IllegalStateException(
          "sampled token " + token + " is not allowed in " + describe());
    }
    states.add(next);
  }

  @Override
  public final void rollback(int n) {
    if (n < 0 || n >= states.size()) {
      throw new IllegalArgumentException(
          "cannot roll back " + n + " of " + (states.size() - 1) + " tokens");
    }
    states.size(states.size() - n);
  }

  @Override
  public final JumpPlan planJump(int[] output, int outLen) {
    return retokenizer.plan(output, outLen, states.elements(), forcedBytes());
  }

  @Override
  public final void jump(JumpPlan plan, int appended) {
    states.size(plan.keep() + 1);
    int[] after = plan.statesAfterEach();
    for (int i = 0; i < appended; i++) {
      states.add(after[i]);
    }
  }

  @Override
  public final boolean matches(byte[] text) {
    int s = automaton.walk(automaton.initialState(), text);
    return s != ByteAutomaton.DEAD && automaton.isAccepting(s);
  }

  @Override
  public final void check(byte[] outputBytes) {
    int walked = automaton.walk(automaton.initialState(), outputBytes);
    if (walked != state()) {
      throw new IllegalStateException(
          "invariant broken: " + describe() + " but walking the output gives state " + walked);
    }
  }
}
