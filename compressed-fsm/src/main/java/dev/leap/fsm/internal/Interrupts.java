package dev.leap.fsm.internal;

import dev.leap.fsm.ConstraintException;

/**
 * Where a long compilation checks whether it should stop: a caller that gives up on it (a time
 * limit) interrupts its thread, and the next new NFA or DFA state ends it with a {@link
 * ConstraintException} instead of running to its state limits. A thread-flag read per new state:
 * nothing measurable.
 */
public final class Interrupts {
  private Interrupts() {}

  /** Throws when this thread was interrupted (the flag stays set for the caller to see). */
  public static void check() {
    if (Thread.currentThread().isInterrupted()) {
      throw new ConstraintException(
          "the compilation was stopped before it finished (its time limit passed)");
    }
  }
}
