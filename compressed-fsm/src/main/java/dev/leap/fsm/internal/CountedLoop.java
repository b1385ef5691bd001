package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import dev.leap.vocab.SortedVocabulary;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * A loop unrolled a bounded number of times: the states of a JSON string with {@code maxLength}
 * ({@code q_K, ..., q_0}, {@code q_j} with {@code j} characters left), whose masks are a loop
 * region's {@link LoopRegion#stay} set cut at {@code j} iterations, so that none of them walks the
 * vocabulary (each would: such a state has no loop of its own, and nearly every token fits a
 * string).
 *
 * <p>The loop {@code B} is found by folding: from a state {@code q}, the successor {@code p} that
 * most bytes lead to is taken for "one iteration done", the states reached from {@code q} without
 * passing {@code p} (or a double quote) are {@code q}'s iteration, and the edges into {@code p} are
 * turned back to {@code q}; {@code B} is the {@link LoopRegion} of {@code q} in that small
 * automaton (for a string, the unbounded string's body, whose stay set every schema shares).
 *
 * <p>The invariant that makes a mask exact is checked, not assumed: the states reached from {@code
 * q} are walked beside {@code B} from its state 0, counting the steps taken from state 0
 * (iterations started). The {@link #exits} bytes are {@code B}'s exits and the double quote's;
 * every token holding one is walked through the DFA. Every step the walk takes inside {@code B}
 * must agree (alive in both, to states that correspond consistently), except a step from state 0
 * that {@code B} allows and the DFA does not: all of those must happen after the same count {@code
 * K}, and none after fewer. A step that leaves {@code B} must be dead in the DFA too, unless its
 * byte is an exit byte. Then a token of {@code B}'s stay set lives from {@code q} exactly when it
 * starts at most {@code K} iterations, any other token with no exit byte dies, and the rest are
 * walked. Every state corresponding to {@code B}'s state 0 gets its own budget ({@code K} minus the
 * iterations before it) from the same check. Immutable.
 */
public final class CountedLoop {
  /** At most this many (state, loop state) pairs are checked for one chain. */
  static final int CHECK_LIMIT = 1 << 14;

  /** Iteration tables kept per vocabulary (least recently used first out). */
  static final int CACHE_PER_VOCABULARY = 64;

  private static final Map<SortedVocabulary, Map<LoopRegion, ByIterations>> TABLES =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final LoopRegion loop;
  private final long[] exits;
  private final int budget;

  private CountedLoop(LoopRegion loop, long[] exits, int budget) {
    this.loop = loop;
    this.exits = exits;
    this.budget = budget;
  }

  /** The loop that is unrolled. */
  public LoopRegion loop() {
    return loop;
  }

  /**
   * The bytes whose tokens are walked through the DFA (four words, a 256-bit set): the loop's
   * {@link LoopRegion#exits} and the double quote's class, which the check leaves out (with a
   * {@code minLength}, a string cannot end at every count). Shared: do not modify.
   */
  public long[] exits() {
    return exits;
  }

  /** Iterations of the loop the state still allows (at least 0). */
  public int budget() {
    return budget;
  }

  /**
   * The tokens of {@code v} in the loop's {@link LoopRegion#stay} set that start at most {@link
   * #budget} iterations (steps from the loop's state 0): a fresh array.
   */
  public long[] stay(SortedVocabulary v, int vocabSize) {
    Map<LoopRegion, ByIterations> cache = TABLES.computeIfAbsent(v, k -> lru());
    ByIterations t;
    synchronized (cache) {
      t = cache.get(loop);
    }
    if (t == null) {
      t = ByIterations.of(loop, loop.stay(v, vocabSize), v);
      synchronized (cache) {
        ByIterations prev = cache.putIfAbsent(loop, t);
        t = prev == null ? t : prev;
      }
    }
    return t.within(budget, loop.stay(v, vocabSize));
  }

  /**
   * Iterations started by {@code bytes} walked through {@code loop} from its state 0, or -1 if the
   * walk leaves the loop (the naive count; {@link #stay} uses it once per token per vocabulary).
   */
  static int iterations(LoopRegion loop, byte[] bytes) {
    int q = 0;
    int n = 0;
    for (byte b : bytes) {
      if (q == 0) {
        n++;
      }
      q = loop.target(q, b & 0xFF);
      if (q < 0) {
        return -1;
      }
    }
    return n;
  }

  /** A finder of counted loops in {@code dfa} (answers memoized per chain). */
  public static Finder finder(Dfa dfa) {
    return new Finder(dfa);
  }

  /** Finds counted loops in one DFA. Thread-safe. */
  public static final class Finder {
    private final Dfa dfa;
    private final int[] rep;
    private final int[] repWeight;
    private final int quoteClass;
    private final long[] quoteBytes = new long[4];
    private final Map<Integer, CountedLoop> found = new HashMap<>();
    private final BitSet failed = new BitSet();

    private Finder(Dfa dfa) {
      this.dfa = dfa;
      int classes = dfa.classCount();
      int[] first = new int[classes];
      int[] weight = new int[classes];
      Arrays.fill(first, -1);
      for (int b = 0; b < 256; b++) {
        int c = dfa.classOf(b);
        if (first[c] < 0) {
          first[c] = b;
        }
        weight[c]++;
      }
      int k = 0;
      int[] r = new int[classes];
      int[] w = new int[classes];
      for (int c = 0; c < classes; c++) {
        if (first[c] >= 0) {
          r[k] = first[c];
          w[k++] = weight[c];
        }
      }
      this.rep = Arrays.copyOf(r, k);
      this.repWeight = Arrays.copyOf(w, k);
      this.quoteClass = dfa.classOf('"');
      for (int b = 0; b < 256; b++) {
        if (dfa.classOf(b) == quoteClass) {
          quoteBytes[b >>> 6] |= 1L << b;
        }
      }
    }

    /** The counted loop {@code state} starts, or null. */
    public synchronized CountedLoop of(int state) {
      CountedLoop c = found.get(state);
      if (c != null || failed.get(state)) {
        return c;
      }
      if (!check(state)) {
        failed.set(state);
      }
      return found.get(state);
    }

    /**
     * Folds and checks the chain from {@code q}; on success records every state of it that
     * corresponds to the loop's state 0, {@code q} among them.
     */
    private boolean check(int q) {
      int p = mainSuccessor(q);
      if (p == Dfa.DEAD || p == q || !sameLiveClasses(q, p)) {
        return false;
      }
      LoopRegion loop = fold(q, p);
      if (loop == null) {
        return false;
      }
      // q's chain beside the loop: per DFA state its loop state and iterations started.
      Map<Integer, long[]> seen = new HashMap<>();
      ArrayDeque<int[]> queue = new ArrayDeque<>();
      seen.put(q, new long[] {0, 0});
      queue.add(new int[] {q, 0, 0});
      long[] exits = loop.exits().clone();
      for (int w = 0; w < 4; w++) {
        exits[w] |= quoteBytes[w];
      }
      int k = -1;
      int maxLiveStart = -1;
      while (!queue.isEmpty()) {
        if (seen.size() > CHECK_LIMIT) {
          return false;
        }
        int[] e = queue.poll();
        int x = e[0];
        int beta = e[1];
        int r = e[2];
        for (int b : rep) {
          int x2 = dfa.step(x, b);
          int beta2 = loop.target(beta, b);
          if (beta2 < 0) {
            // Leaving the loop: on an exit byte (its tokens are walked), else dead in both.
            if (x2 != Dfa.DEAD && (exits[b >>> 6] & (1L << b)) == 0) {
              return false;
            }
            continue;
          }
          if (x2 == Dfa.DEAD) {
            if (beta != 0 || (k >= 0 && k != r)) {
              return false;
            }
            k = r;
            continue;
          }
          int r2 = r;
          if (beta == 0) {
            maxLiveStart = Math.max(maxLiveStart, r);
            r2 = r + 1;
          }
          long[] prev = seen.get(x2);
          if (prev != null) {
            if (prev[0] != beta2 || prev[1] != r2) {
              return false;
            }
            continue;
          }
          seen.put(x2, new long[] {beta2, r2});
          queue.add(new int[] {x2, beta2, r2});
        }
      }
      if (k < 0 || maxLiveStart >= k) {
        return false;
      }
      for (Map.Entry<Integer, long[]> s : seen.entrySet()) {
        if (s.getValue()[0] == 0) {
          found.put(s.getKey(), new CountedLoop(loop, exits, k - (int) s.getValue()[1]));
        }
      }
      return true;
    }

    /** The live non-quote successor of {@code q} most bytes lead to, or {@link Dfa#DEAD}. */
    private int mainSuccessor(int q) {
      int best = Dfa.DEAD;
      int bestWeight = 0;
      for (int i = 0; i < rep.length; i++) {
        int t = dfa.step(q, rep[i]);
        if (t == Dfa.DEAD || dfa.classOf(rep[i]) == quoteClass) {
          continue;
        }
        int w = 0;
        for (int j = 0; j < rep.length; j++) {
          w += dfa.step(q, rep[j]) == t && dfa.classOf(rep[j]) != quoteClass ? repWeight[j] : 0;
        }
        if (w > bestWeight) {
          best = t;
          bestWeight = w;
        }
      }
      return best;
    }

    /** Whether {@code q} and {@code p} have transitions on the same non-quote classes. */
    private boolean sameLiveClasses(int q, int p) {
      for (int b : rep) {
        if (dfa.classOf(b) != quoteClass
            && (dfa.step(q, b) == Dfa.DEAD) != (dfa.step(p, b) == Dfa.DEAD)) {
          return false;
        }
      }
      return true;
    }

    /**
     * The loop region of {@code q} in the automaton of {@code q}'s iteration (the states reached
     * from {@code q} by non-quote bytes without passing {@code p}), the edges into {@code p} turned
     * back to {@code q} and the quote's edges to one state outside; null if the iteration has more
     * than {@link LoopRegion#EXPLORE_LIMIT} states or no region.
     */
    private LoopRegion fold(int q, int p) {
      int limit = LoopRegion.EXPLORE_LIMIT;
      int[] states = new int[limit];
      Map<Integer, Integer> index = new HashMap<>();
      int n = 0;
      states[n] = q;
      index.put(q, n++);
      for (int i = 0; i < n; i++) {
        for (int b : rep) {
          int t = dfa.step(states[i], b);
          if (t == Dfa.DEAD || t == p || dfa.classOf(b) == quoteClass || index.containsKey(t)) {
            continue;
          }
          if (n == limit) {
            return null;
          }
          states[n] = t;
          index.put(t, n++);
        }
      }
      int classes = dfa.classCount();
      int outside = n;
      int[] table = new int[(n + 1) * classes];
      Arrays.fill(table, Dfa.DEAD);
      for (int i = 0; i < n; i++) {
        for (int b : rep) {
          int t = dfa.step(states[i], b);
          int c = dfa.classOf(b);
          if (t == Dfa.DEAD) {
            continue;
          }
          // Only a quote's edge can lead out of the explored iteration (to the state outside).
          table[i * classes + c] = t == p ? 0 : index.getOrDefault(t, outside);
        }
      }
      int[] classOf = new int[256];
      for (int b = 0; b < 256; b++) {
        classOf[b] = dfa.classOf(b);
      }
      long[] accepting = new long[(n + 1 + 63) >>> 6];
      Arrays.fill(accepting, -1L);
      return LoopRegion.of(new Dfa(n + 1, classOf, classes, table, accepting), 0);
    }
  }

  /** A loop's stay set for one vocabulary, its tokens ordered by iterations started. */
  private static final class ByIterations {
    /** Token ids by iterations started. */
    final int[] order;

    /** {@code upTo[i]}: how many tokens start at most {@code i} iterations. */
    final int[] upTo;

    private ByIterations(int[] order, int[] upTo) {
      this.order = order;
      this.upTo = upTo;
    }

    static ByIterations of(LoopRegion loop, long[] stay, SortedVocabulary v) {
      byte[][] bytes = v.tokenBytes();
      int count = 0;
      for (long w : stay) {
        count += Long.bitCount(w);
      }
      int[] ids = new int[count];
      int[] its = new int[count];
      int max = 0;
      int i = 0;
      for (int w = 0; w < stay.length; w++) {
        for (long bits = stay[w]; bits != 0; bits &= bits - 1) {
          int id = (w << 6) + Long.numberOfTrailingZeros(bits);
          ids[i] = id;
          its[i] = bytes[id] == null ? 0 : Math.max(0, iterations(loop, bytes[id]));
          max = Math.max(max, its[i++]);
        }
      }
      int[] upTo = new int[max + 2];
      for (int it : its) {
        upTo[it + 1]++;
      }
      for (int j = 0; j <= max; j++) {
        upTo[j + 1] += upTo[j];
      }
      int[] next = Arrays.copyOf(upTo, max + 1);
      int[] order = new int[count];
      for (int j = 0; j < count; j++) {
        order[next[its[j]]++] = ids[j];
      }
      return new ByIterations(order, Arrays.copyOfRange(upTo, 1, max + 2));
    }

    /** The tokens starting at most {@code budget} iterations, a fresh array. */
    long[] within(int budget, long[] stay) {
      if (budget >= upTo.length - 1) {
        return stay.clone();
      }
      long[] mask = new long[stay.length];
      for (int j = 0; j < upTo[budget]; j++) {
        int id = order[j];
        mask[id >>> 6] |= 1L << id;
      }
      return mask;
    }
  }

  private static Map<LoopRegion, ByIterations> lru() {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<LoopRegion, ByIterations> e) {
        return size() > CACHE_PER_VOCABULARY;
      }
    };
  }
}
