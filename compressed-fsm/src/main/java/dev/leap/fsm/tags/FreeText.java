package dev.leap.fsm.tags;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.Trees;
import java.util.ArrayList;
import java.util.List;

/**
 * The free-text languages around a set of <em>triggers</em> (non-empty strings), as minimal byte
 * DFAs built with the product constructions of {@link Automata}:
 *
 * <ul>
 *   <li>{@link #any()}: every UTF-8 text (any code point, newlines included; surrogates have no
 *       UTF-8 form and never occur);
 *   <li>{@link #withoutTriggers()}: {@code N}, the texts in which no trigger occurs;
 *   <li>{@link #upTo(String)}: {@code D(t)}, the texts that end with trigger {@code t} and in which
 *       no trigger ends earlier: {@code (N · t) \ (Σ* T Σ+)}. This is what a scanner of free text
 *       reads up to the first point where a trigger is complete, when {@code t} is one of the
 *       triggers complete there. It may be empty: when another trigger ends inside {@code t} before
 *       {@code t} is complete ({@code t = "abc"} with trigger {@code "b"}).
 * </ul>
 *
 * <p>Everything is at code-point granularity over UTF-8 bytes: triggers are well-formed strings
 * (checked by the callers), so a trigger occurrence always starts and ends on code point
 * boundaries. Instances are used once by one compilation and are not shared.
 */
final class FreeText {
  /** Every code point that has a UTF-8 form. */
  private static final Re ANY_CHAR = new Re.Chars(new int[] {0, 0xD7FF, 0xE000, 0x10FFFF});

  private final List<String> triggers;
  private final int maxStates;
  private final String source;
  private final Dfa any;
  private final Dfa withoutTriggers;

  /** {@code Σ* T Σ+}: a trigger ends before the end of the text. */
  private final Dfa triggerBeforeEnd;

  /**
   * @param triggers non-empty, well-formed strings
   * @param maxStates the limit on every intermediate DFA's states
   * @param source names the constraint in errors
   */
  FreeText(List<String> triggers, int maxStates, String source) {
    this.triggers = List.copyOf(triggers);
    this.maxStates = maxStates;
    this.source = source;
    Re anyText = Trees.rep(ANY_CHAR, 0, -1);
    List<Re> options = new ArrayList<>();
    for (String t : triggers) {
      options.add(Trees.lit(t));
    }
    Re someTrigger = Trees.alt(options);
    this.any = Automata.compile(anyText, source, maxStates);
    Dfa containsTrigger =
        Automata.compile(Trees.seq(anyText, someTrigger, anyText), source, maxStates);
    Dfa n = Automata.minus(any, containsTrigger, maxStates, source);
    if (n == null) {
      // N always holds the empty text (triggers are not empty).
      throw new IllegalStateException("no text is free of the triggers " + triggers + ": a bug");
    }
    this.withoutTriggers = n;
    this.triggerBeforeEnd =
        Automata.compile(
            Trees.seq(anyText, someTrigger, Trees.rep(ANY_CHAR, 1, -1)), source, maxStates);
  }

  /** Every UTF-8 text. */
  Dfa any() {
    return any;
  }

  /** {@code N}: the texts in which no trigger occurs (the empty text included). */
  Dfa withoutTriggers() {
    return withoutTriggers;
  }

  /**
   * {@code D(t)}: texts that end with {@code t} where no trigger ends earlier, or {@code null} when
   * there is none.
   *
   * @throws ConstraintException when {@code t} is not one of the triggers (a bug of the caller)
   */
  Dfa upTo(String t) {
    if (!triggers.contains(t)) {
      throw new ConstraintException("\"" + t + "\" is not one of the triggers " + triggers);
    }
    Dfa endsWithT =
        Automata.compile(
            Trees.seq(new Re.Automaton(withoutTriggers), Trees.lit(t)), source, maxStates);
    return Automata.minus(endsWithT, triggerBeforeEnd, maxStates, source);
  }
}
