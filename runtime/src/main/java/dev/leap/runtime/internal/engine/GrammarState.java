package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.retokenize.JumpPlan;
import dev.leap.retokenize.JumpRetokenizer;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * {@link ConstraintState} of a grammar with recursion: the request's own {@link GrammarMatcher},
 * whose int states are interned stack configurations, one per output position.
 *
 * <p>As in {@link DfaState}, {@code states[i]} is the matcher state before output token {@code i}
 * and the last one the current state; rolling back cuts the list (the matcher keeps every state it
 * interned, so walking again from an old one is exact), and a jump takes the states after its
 * tokens from the {@link JumpPlan}, which the retokenizer walked through this same matcher. Masks
 * are computed per state by the matcher (cached there) and uploaded into the step's scope: they are
 * not shared between requests, since two requests' configurations are different objects.
 */
final class GrammarState implements ConstraintState {
  private final CompiledConstraint c;
  private final GrammarMatcher m;
  private final JumpRetokenizer retokenizer;
  private final IntArrayList states = new IntArrayList();

  GrammarState(CompiledConstraint c, GrammarMatcher m) {
    this.c = c;
    this.m = m;
    this.retokenizer = c.retokenizer.with(m);
    states.add(m.initialState());
  }

  private int state() {
    return states.getInt(states.size() - 1);
  }

  @Override
  public int allowedCount() {
    return m.allowedCount(state());
  }

  @Override
  public NDArray disallowedMask(NDManager step) {
    return step.create(c.disallowedRow(m.allowed(state())));
  }

  @Override
  public boolean canStop() {
    return m.isAccepting(state());
  }

  @Override
  public boolean mustStop() {
    return m.isAccepting(state()) && !m.hasTransitions(state());
  }

  @Override
  public void accept(int token) {
    int next = m.nextState(state(), token);
    if (next == ByteAutomaton.DEAD) {
      throw new IllegalStateException("sampled token " + token + " is not allowed in grammar state " + describe());
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
    return m.forcedBytes(state());
  }

  @Override
  public JumpPlan planJump(int[] output, int outLen) {
    return retokenizer.plan(output, outLen, states.elements(), forcedBytes());
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
    int s = m.walk(m.initialState(), text);
    return s != ByteAutomaton.DEAD && m.isAccepting(s);
  }

  @Override
  public void check(byte[] outputBytes) {
    int walked = m.walk(m.initialState(), outputBytes);
    if (walked != state()) {
      throw new IllegalStateException("invariant broken: grammar state " + state() + " but walking the output gives "
          + walked);
    }
  }

  @Override
  public String describe() {
    String stacks = String.valueOf(m.stacksOf(state()));
    return "grammar state " + state() + " (stacks " + (stacks.length() > 200 ? stacks.substring(0, 200) + "..." : stacks)
        + ")";
  }
}
