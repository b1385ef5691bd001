package dev.leap.fsm.json;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Nfa;
import dev.leap.fsm.internal.Re;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Automata#compile} of the trees of one schema document, each distinct tree compiled once:
 * the same sub-schema converted at several places (a definition reached at several {@code $ref}
 * expansion depths that write it the same way), and the conversion that follows a lean one ({@link
 * Converter#lean}), which compiles the same innermost values again.
 *
 * <p>Two trees are the same when they are the same DAG: written depth first, a composite node met
 * again (by identity) as a back reference, character sets and empty nodes by value (the NFA builds
 * them anew at each use), embedded automata by what the NFA reads of them ({@link Nfa#embedding}:
 * an automaton compiled again from another tree of the same language has the same canonical table).
 * Equal DAGs give the same NFA ({@code Nfa.build} depends on nothing else), so the same subset
 * construction, the same state count against the limit (a limit reached is remembered too, with its
 * exception) and the same minimal DFA: caching changes no result.
 */
final class AutomatonCache {
  private static final int EMPTY = -1;
  private static final int CHARS = -2;
  private static final int CONCAT = -3;
  private static final int ALT = -4;
  private static final int REPEAT = -5;
  private static final int AUTOMATON = -6;
  private static final int BACK = -7;
  private static final int CALL = -8;

  /** An automaton's number in keys, by identity, then by content ({@link #automaton}). */
  private final Map<Dfa, Integer> automata = new IdentityHashMap<>();

  /** The automata numbered so far by their sizes ({@link #sizes}), to compare contents within. */
  private final Map<Long, List<Dfa>> bySizes = new HashMap<>();

  /**
   * What an NFA reads of an automaton ({@link Nfa#embedding}), computed once per automaton for the
   * keys and the builds.
   */
  private final Map<Dfa, int[]> embeddings = new IdentityHashMap<>();

  /** The result by key: a {@link Dfa}, {@link #EMPTY_LANGUAGE}, or the exception. */
  private final Map<Key, Object> results = new HashMap<>();

  private static final Object EMPTY_LANGUAGE = new Object();

  /** Whether results are kept; off, every call compiles (the twin of the cache). */
  private final boolean on;

  /** Compiles done and answered from the cache (tests and measurements). */
  int compiled;

  int reused;

  AutomatonCache() {
    this(true);
  }

  private AutomatonCache(boolean on) {
    this.on = on;
  }

  /** A cache that keeps nothing: {@link #compile} is {@link Automata#compile}. */
  static AutomatonCache off() {
    return new AutomatonCache(false);
  }

  /**
   * The minimal DFA of {@code re} as {@link Automata#compile} gives it ({@code null}: empty).
   *
   * @throws AutomatonTooLargeException as {@link Automata#compile}, also when remembered
   */
  Dfa compile(Re re, String source, int maxStates) {
    if (re instanceof Re.Automaton a) {
      return a.dfa();
    }
    if (!on) {
      return Automata.compile(re, source, maxStates);
    }
    Key key = key(re, source, maxStates);
    Object known = results.get(key);
    if (known != null) {
      reused++;
      if (known instanceof AutomatonTooLargeException e) {
        throw e;
      }
      return known == EMPTY_LANGUAGE ? null : (Dfa) known;
    }
    compiled++;
    Dfa d;
    try {
      d = Automata.compile(re, source, maxStates, embeddings);
    } catch (AutomatonTooLargeException e) {
      results.put(key, e);
      throw e;
    }
    results.put(key, d == null ? EMPTY_LANGUAGE : d);
    return d;
  }

  private Key key(Re re, String source, int maxStates) {
    IntArrayList out = new IntArrayList();
    out.add(maxStates);
    write(re, out, new IdentityHashMap<>());
    return new Key(source, out.toIntArray());
  }

  private void write(Re re, IntArrayList out, Map<Re, Integer> seen) {
    if (re instanceof Re.Empty) {
      out.add(EMPTY);
      return;
    }
    if (re instanceof Re.Chars c) {
      out.add(CHARS);
      out.add(c.ranges().length);
      out.addElements(out.size(), c.ranges());
      return;
    }
    Integer at = seen.get(re);
    if (at != null) {
      out.add(BACK);
      out.add(at);
      return;
    }
    seen.put(re, seen.size());
    if (re instanceof Re.Concat c) {
      out.add(CONCAT);
      out.add(c.items().size());
      for (Re r : c.items()) {
        write(r, out, seen);
      }
    } else if (re instanceof Re.Alt a) {
      out.add(ALT);
      out.add(a.options().size());
      for (Re r : a.options()) {
        write(r, out, seen);
      }
    } else if (re instanceof Re.Repeat r) {
      out.add(REPEAT);
      out.add(r.min());
      out.add(r.max());
      write(r.item(), out, seen);
    } else if (re instanceof Re.Automaton a) {
      out.add(AUTOMATON);
      out.add(automaton(a.dfa()));
    } else if (re instanceof Re.Call c) {
      // Built as the marker of compiled rule c.rule() (an unresolved call, -1, fails in the NFA).
      out.add(CALL);
      out.add(c.rule());
    } else {
      throw new IllegalStateException("unknown node " + re);
    }
  }

  /**
   * The number of {@code dfa} in keys: the same for automata that an NFA embeds alike ({@link
   * Nfa#embedding}), such as the same value's automaton compiled again from another tree, or an
   * intersection computed twice. Contents are compared only between automata of the same sizes.
   */
  private int automaton(Dfa dfa) {
    Integer id = automata.get(dfa);
    if (id != null) {
      return id;
    }
    List<Dfa> same = bySizes.computeIfAbsent(sizes(dfa), x -> new ArrayList<>());
    for (Dfa d : same) {
      if (Arrays.equals(embedding(d), embedding(dfa))) {
        id = automata.get(d);
        automata.put(dfa, id);
        return id;
      }
    }
    id = automata.size();
    automata.put(dfa, id);
    same.add(dfa);
    return id;
  }

  /** The state, class and accepting state counts of {@code dfa}. */
  private static long sizes(Dfa dfa) {
    int accepting = 0;
    for (int s = 0; s < dfa.stateCount(); s++) {
      if (dfa.isAccepting(s)) {
        accepting++;
      }
    }
    return ((long) dfa.stateCount() << 40) ^ ((long) dfa.classCount() << 32) ^ accepting;
  }

  private int[] embedding(Dfa dfa) {
    return embeddings.computeIfAbsent(dfa, Nfa::embedding);
  }

  private static final class Key {
    final String source;
    final int[] tokens;
    final int hash;

    Key(String source, int[] tokens) {
      this.source = source;
      this.tokens = tokens;
      this.hash = source.hashCode() * 31 + Arrays.hashCode(tokens);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k
          && k.hash == hash
          && k.source.equals(source)
          && Arrays.equals(k.tokens, tokens);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
