package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.grammar.GrammarMatcher;

/**
 * {@link ConstraintState} of a grammar with recursion: the request's own {@link GrammarMatcher},
 * whose int states are interned stack configurations, one per output position ({@link
 * AutomatonState}; the matcher keeps every state it interned, so rollback and re-walking are
 * exact). Masks are computed per state by the matcher (cached there) and uploaded into the step's
 * scope: they are not shared between requests, since two requests' configurations are different
 * objects.
 */
final class GrammarState extends AutomatonState {
  private final CompiledRules c;
  private final GrammarMatcher m;

  GrammarState(CompiledRules c, GrammarMatcher m) {
    super(m, c.retokenizer.with(m));
    this.c = c;
    this.m = m;
  }

  @Override
  int next(int state, int token) {
    return m.nextState(state, token);
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
  public long[] allowedWords() {
    return m.allowed(state());
  }

  @Override
  public byte[] forcedBytes() {
    return m.forcedBytes(state());
  }

  @Override
  public String describe() {
    String stacks = String.valueOf(m.stacksOf(state()));
    return "grammar state "
        + state()
        + " (stacks "
        + (stacks.length() > 200 ? stacks.substring(0, 200) + "..." : stacks)
        + ")";
  }
}
