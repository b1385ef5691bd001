package dev.leap.fsm.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Builders of {@link Re} trees, as the JSON Schema converter writes them, and a size estimate.
 *
 * <p>Invariants the callers rely on: {@link #NOTHING} is one shared instance (the converters test
 * for it by identity), {@link #alt} drops options that are an empty character set (as {@link
 * #NOTHING} is) and returns {@link #NOTHING} when none is left; {@link #seq} flattens nested {@link
 * Re.Concat}s and drops {@link Re.Empty} (so a node meant to be shared must be wrapped in a new
 * {@link Re.Concat} by hand, never passed through {@link #seq}, which would copy its items).
 */
public final class Trees {
  private Trees() {}

  /** The empty language (an empty character set). */
  public static final Re NOTHING = new Re.Chars(new int[0]);

  /** The code points of {@code text} in order ({@link Re#EMPTY} for the empty string). */
  public static Re lit(String text) {
    if (text.isEmpty()) {
      return Re.EMPTY;
    }
    List<Re> items = new ArrayList<>();
    text.codePoints().forEach(cp -> items.add(new Re.Chars(new int[] {cp, cp})));
    return items.size() == 1 ? items.get(0) : new Re.Concat(items);
  }

  /** The concatenation of {@code items}, flattened. */
  public static Re seq(Re... items) {
    List<Re> list = new ArrayList<>();
    for (Re r : items) {
      if (r instanceof Re.Empty) {
        continue;
      }
      if (r instanceof Re.Concat c) {
        list.addAll(c.items());
      } else {
        list.add(r);
      }
    }
    return list.isEmpty() ? Re.EMPTY : list.size() == 1 ? list.get(0) : new Re.Concat(list);
  }

  /**
   * The union of {@code options}, empty character sets left out; {@link #NOTHING} if none is left.
   */
  public static Re alt(List<Re> options) {
    List<Re> live = new ArrayList<>();
    for (Re r : options) {
      if (!(r instanceof Re.Chars c && c.ranges().length == 0)) {
        live.add(r);
      }
    }
    if (live.isEmpty()) {
      return NOTHING;
    }
    return live.size() == 1 ? live.get(0) : new Re.Alt(live);
  }

  /** {@code min..max} repetitions of {@code item} ({@code max == -1}: unbounded). */
  public static Re rep(Re item, int min, int max) {
    return new Re.Repeat(item, min, max);
  }

  /** {@code item} or nothing. */
  public static Re opt(Re item) {
    return new Re.Repeat(item, 0, 1);
  }

  /**
   * Roughly the NFA states of {@code re}: its nodes with a node that occurs several times counted
   * once (the NFA shares it), a bounded repetition's item once per copy, an automaton's states, a
   * call's marker states.
   */
  public static long size(Re re) {
    return size(re, Collections.newSetFromMap(new IdentityHashMap<>()), true);
  }

  /**
   * As {@link #size}, with an embedded automaton counted as one node: the part of the tree that
   * compiling it would build anew.
   */
  public static long ownSize(Re re) {
    return size(re, Collections.newSetFromMap(new IdentityHashMap<>()), false);
  }

  private static long size(Re re, Set<Re> seen, boolean automata) {
    if (!(re instanceof Re.Chars || re instanceof Re.Empty) && !seen.add(re)) {
      return 1;
    }
    if (re instanceof Re.Concat c) {
      long n = 1;
      for (Re r : c.items()) {
        n += size(r, seen, automata);
      }
      return n;
    }
    if (re instanceof Re.Alt a) {
      long n = 1;
      for (Re r : a.options()) {
        n += size(r, seen, automata);
      }
      return n;
    }
    if (re instanceof Re.Repeat r) {
      return 1 + size(r.item(), seen, automata) * Math.max(1, Math.max(r.min(), r.max()));
    }
    if (re instanceof Re.Automaton a) {
      return automata ? a.dfa().stateCount() : 1;
    }
    if (re instanceof Re.Call) {
      return RuleCalls.MARKER_STATES; // built as its marker's automaton
    }
    return 1;
  }
}
