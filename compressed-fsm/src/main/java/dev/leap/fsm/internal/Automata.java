package dev.leap.fsm.internal;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.EmptyLanguageException;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Operations on byte-level automata: compiling a tree to a minimal DFA, and the product
 * constructions for intersection and difference (which regular expressions cannot write down
 * directly, but {@link Re.Automaton} can embed back into a tree).
 *
 * <p>Every result is minimal and trimmed (see {@link Dfa}), or {@code null} for the empty language.
 */
public final class Automata {
  private Automata() {}

  /** The minimal DFA of {@code re}, or {@code null} if its language is empty. */
  public static Dfa compile(Re re, String source, int maxStates) {
    return compile(re, source, maxStates, new IdentityHashMap<>());
  }

  /**
   * As {@link #compile(Re, String, int)}, with a cache of the embedded automata's forms ({@link
   * Nfa#build(Re, String, Map)}).
   */
  public static Dfa compile(Re re, String source, int maxStates, Map<Dfa, int[]> embeddings) {
    if (re instanceof Re.Automaton a) {
      return a.dfa(); // minimal and trimmed already
    }
    return Minimizer.minimize(
        Determinizer.runs(Nfa.build(re, source, embeddings), maxStates, source));
  }

  /**
   * The minimal DFA of {@code re} (a regex's tree, the JSON Schema compiler's, a grammar's without
   * recursion), for a language that must not be empty; {@code source} names it in errors. The
   * caller wraps it ({@code CompressedFsm.of}): this package returns automata and knows nothing of
   * what is built on them.
   *
   * @throws EmptyLanguageException the tree matches nothing
   */
  public static Dfa compileNonEmpty(Re re, String source, int maxStates) {
    Dfa dfa = Minimizer.minimize(Determinizer.runs(Nfa.build(re, source), maxStates, source));
    if (dfa == null) {
      throw new EmptyLanguageException(source);
    }
    return dfa;
  }

  /** {@code L(a) ∩ L(b)}, or {@code null} if empty. */
  public static Dfa intersect(Dfa a, Dfa b, int maxStates, String source) {
    return product(a, b, false, maxStates, source);
  }

  /** {@code L(a) \ L(b)}, or {@code null} if empty. */
  public static Dfa minus(Dfa a, Dfa b, int maxStates, String source) {
    return product(a, b, true, maxStates, source);
  }

  private static Dfa product(Dfa a, Dfa b, boolean minus, int maxStates, String source) {
    // Byte classes of the product: pairs of the operands' classes.
    int[] classOf = new int[256];
    Long2IntOpenHashMap classIds = new Long2IntOpenHashMap();
    classIds.defaultReturnValue(-1);
    int[] repr = new int[256];
    for (int x = 0; x < 256; x++) {
      long key = ((long) a.classOf(x) << 32) | b.classOf(x);
      int id = classIds.get(key);
      if (id < 0) {
        id = classIds.size();
        classIds.put(key, id);
        repr[id] = x;
      }
      classOf[x] = id;
    }
    int k = classIds.size();
    Long2IntOpenHashMap ids = new Long2IntOpenHashMap();
    ids.defaultReturnValue(-1);
    IntArrayList qa = new IntArrayList();
    IntArrayList qb = new IntArrayList();
    IntArrayList table = new IntArrayList();
    ids.put(pair(a.initialState(), b.initialState()), 0);
    qa.add(a.initialState());
    qb.add(b.initialState());
    for (int s = 0; s < qa.size(); s++) {
      int x = qa.getInt(s);
      int y = qb.getInt(s);
      for (int c = 0; c < k; c++) {
        int nx = a.step(x, repr[c]);
        int ny = y == Dfa.DEAD ? Dfa.DEAD : b.step(y, repr[c]);
        if (nx == Dfa.DEAD || (!minus && ny == Dfa.DEAD)) {
          table.add(Dfa.DEAD);
          continue;
        }
        long key = pair(nx, ny);
        int id = ids.get(key);
        if (id < 0) {
          id = qa.size();
          if ((id & 63) == 0) {
            Interrupts.check();
          }
          if (id >= maxStates) {
            throw new AutomatonTooLargeException(source, maxStates, id + 1);
          }
          ids.put(key, id);
          qa.add(nx);
          qb.add(ny);
        }
        table.add(id);
      }
    }
    int n = qa.size();
    boolean[] accepting = new boolean[n];
    for (int s = 0; s < n; s++) {
      boolean inA = a.isAccepting(qa.getInt(s));
      boolean inB = qb.getInt(s) != Dfa.DEAD && b.isAccepting(qb.getInt(s));
      accepting[s] = minus ? inA && !inB : inA && inB;
    }
    return Minimizer.minimize(
        new Determinizer.RawDfa(n, k, classOf, table.toIntArray(), accepting));
  }

  private static long pair(int x, int y) {
    return ((long) x << 32) | (y & 0xFFFFFFFFL);
  }
}
