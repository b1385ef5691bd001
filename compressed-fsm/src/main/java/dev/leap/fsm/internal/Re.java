package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import java.util.List;

/**
 * The syntax tree of regexes, JSON Schemas' languages and grammar rules, over Unicode code points.
 * Character sets are sorted, disjoint, non-adjacent inclusive ranges {@code [lo0, hi0, lo1, hi1,
 * ...]} of code points, surrogates excluded (they have no UTF-8 encoding).
 *
 * <p>Producers: {@link RegexParser} (a regex), the JSON Schema converters ({@code
 * dev.leap.fsm.json}, through {@link Trees}), the GBNF parser ({@code
 * dev.leap.fsm.grammar.GbnfParser}, rule bodies with {@link Call}s by name). The one consumer that
 * builds automata is {@link Nfa}.
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
   * Automata}, or a part of a tree compiled ahead); it matches UTF-8 bytes directly, not code
   * points. The DFA is minimal and trimmed, as every {@link Automata} result is. An automaton
   * compiled from a tree that holds calls keeps them as their marker paths ({@link RuleCalls}).
   */
  record Automaton(Dfa dfa) implements Re {}

  /**
   * A call of grammar rule {@code name}: only grammar rule trees hold calls. As the GBNF parser
   * writes it, a reference by name at 1-based {@code line}/{@code column} of the grammar text, with
   * {@code rule} {@link #UNRESOLVED}; once resolved (by {@code dev.leap.fsm.grammar.GrammarTrees},
   * or written so by the JSON Schema compiler, whose calls have no text: position 0), {@code rule}
   * is the index of the compiled rule it calls, 0 to {@link RuleCalls#MAX_RULES}{@code - 1}.
   *
   * <p>{@link Nfa} builds a resolved call as its marker bytes ({@link RuleCalls}: how a byte
   * automaton carries a call edge) and rejects an unresolved one. A tree node like the others: a
   * call object that occurs several times in a tree is built once per exit state, so a producer
   * keeps one object per called rule.
   */
  record Call(String name, int rule, int line, int column) implements Re {
    /** The {@link #rule} of a call not yet resolved to a compiled rule. */
    public static final int UNRESOLVED = -1;

    public Call {
      if (name == null) {
        throw new IllegalArgumentException("a call needs the rule's name");
      }
      if (rule < UNRESOLVED || rule >= RuleCalls.MAX_RULES) {
        throw new IllegalArgumentException(
            "rule index " + rule + " outside 0.." + (RuleCalls.MAX_RULES - 1));
      }
    }

    /** A reference to rule {@code name} as written at {@code line}/{@code column}, unresolved. */
    public static Call named(String name, int line, int column) {
      return new Call(name, UNRESOLVED, line, column);
    }

    /** A call of compiled rule {@code rule}, named {@code name}, written in no text. */
    public static Call of(String name, int rule) {
      return new Call(name, rule, 0, 0);
    }

    /** This call resolved to compiled rule {@code rule} (the name and position kept). */
    public Call resolved(int rule) {
      return new Call(name, rule, line, column);
    }

    public boolean isResolved() {
      return rule != UNRESOLVED;
    }
  }

  Re EMPTY = new Empty();
}
