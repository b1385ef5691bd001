package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import java.util.List;

/**
 * The regex syntax tree over Unicode code points. Character sets are sorted, disjoint, non-adjacent
 * inclusive ranges {@code [lo0, hi0, lo1, hi1, ...]} of code points, surrogates excluded (they have
 * no UTF-8 encoding).
 */
public sealed interface Re {

  /** Matches the empty string. */
  record Empty() implements Re {}

  /** One code point from a set. An empty set matches nothing. */
  record Chars(int[] ranges) implements Re {}

  record Concat(List<Re> items) implements Re {}

  record Alt(List<Re> options) implements Re {}

  /** {@code min..max} repetitions; {@code max == -1} is unbounded. */
  record Repeat(Re item, int min, int max) implements Re {}

  /**
   * A language given as a byte-level automaton (the result of an intersection or difference, {@link
   * Automata}); it matches UTF-8 bytes directly, not code points. The DFA is minimal and trimmed,
   * as every {@link Automata} result is.
   */
  record Automaton(Dfa dfa) implements Re {}

  Re EMPTY = new Empty();
}
