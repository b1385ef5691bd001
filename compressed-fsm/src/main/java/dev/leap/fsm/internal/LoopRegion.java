package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.SortedWalk;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.IntBinaryOperator;

/**
 * The loops around a DFA state, as a small automaton of their own, so that the tokens which never
 * leave them are found once per vocabulary and shared by every state with the same loops, in every
 * DFA compiled against that vocabulary.
 *
 * <p>The region {@code R} of a state {@code s}: {@code s}, its strongly connected component and the
 * components of its direct successors, where a component counts only when it has a cycle. A state
 * with no cycle that near, whose bytes all lead to one state (and that one's to one, at most {@link
 * #CHAIN_LIMIT} times: the four hexadecimal digits of a JSON Unicode escape), takes that chain and
 * the region of its end. Loops are looked for among the at most {@link #EXPLORE_LIMIT} states
 * nearest to {@code s} and without the edges on the double quote's byte class: in JSON a quote ends
 * a string, and a loop through it is the loop of the enclosing array or object, whose shape is
 * particular to each schema, while the string's own loop recurs in every schema (a cycle among the
 * explored states is a cycle of the DFA, and any set of states gives exact masks, so these choices
 * only decide what is shared). Inside a JSON string {@code R} is the string's body: the
 * plain-character loop, the states inside a multi-byte UTF-8 character and inside an escape; right
 * after a string's opening quote it is that state and the body.
 *
 * <p>The invariant that makes a mask exact: a token whose walk from {@code s} ends alive either
 * never leaves {@code R} (it is in {@link #stay}, computed from {@code R}'s transitions alone), or
 * leaves it on one of the {@link #exits} bytes (a byte that takes some state of {@code R} to a live
 * state outside {@code R}), so it contains an exit byte and is walked through the DFA. Leaving to
 * the dead state needs no exit byte, and such a token is rejected by both halves.
 *
 * <p>Canonical form ({@link #equals}): {@code R}'s states numbered in breadth-first order from
 * {@code s} over bytes 0-255, each byte's target as that number or -1 outside {@code R}, kept as
 * runs of bytes with one target (a few per state, where the full table is 256 entries per state:
 * the form is built and hashed for every state whose mask is computed, the table only for a form
 * met the first time or a counted loop). Two states with equal forms (in one DFA or in two) have
 * the same {@link #stay} set for a vocabulary, whatever follows their regions. Immutable.
 */
public final class LoopRegion {
  /** A live target beyond the explored states. */
  private static final int UNEXPLORED = -2;

  /**
   * How many sole successors ({@link #soleSuccessor}) are followed from a state with no loop near
   * it to one with a loop near it: the four hexadecimal digits of a JSON Unicode escape.
   */
  static final int CHAIN_LIMIT = 4;

  /** How many states nearest to {@code s} are searched for cycles. */
  static final int EXPLORE_LIMIT = 64;

  /** Regions left with more exit bytes than this are not used (too much left to walk). */
  public static final int MAX_EXITS = 16;

  /** Stay sets kept per vocabulary (least recently used first out). */
  static final int CACHE_PER_VOCABULARY = 256;

  private static final Map<SortedVocabulary, Map<LoopRegion, long[]>> STAY =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final int size;

  /** Per region state in canonical order: its run count, then each run's (first byte, target). */
  private final int[] form;

  /** The form as a {@code 256 * size} table, built on first use (the same from any thread). */
  private volatile int[] table;

  private final long[] exits;
  private final int hash;

  private LoopRegion(int size, int[] form, long[] exits) {
    this.size = size;
    this.form = form;
    this.exits = exits;
    this.hash = Arrays.hashCode(form);
  }

  /**
   * The region of {@code state}, or null when it has no loop near it (neither the state nor a
   * direct successor has a self-loop or lies on a cycle among the states explored) or more than
   * {@link #MAX_EXITS} exit bytes. For many states of one DFA, use a {@link #finder}.
   */
  public static LoopRegion of(Dfa dfa, int state) {
    return finder(dfa).of(state);
  }

  /** A finder of the regions of {@code dfa}'s states (holds the DFA's byte classes). */
  public static Finder finder(Dfa dfa) {
    return new Finder(dfa);
  }

  /** Finds regions in one DFA: its byte classes computed once. Immutable, thread-safe. */
  public static final class Finder {
    private final Dfa dfa;
    private final int[] rep;
    private final int[] repAscending;
    private final int[] classOf = new int[256];
    private final int quoteClass;

    private Finder(Dfa dfa) {
      this.dfa = dfa;
      this.rep = classRepresentatives(dfa);
      this.repAscending = rep.clone();
      Arrays.sort(repAscending);
      for (int b = 0; b < 256; b++) {
        classOf[b] = dfa.classOf(b);
      }
      this.quoteClass = dfa.classOf('"');
    }

    /** The region of {@code state}, as {@link LoopRegion#of(Dfa, int)}. */
    public LoopRegion of(int state) {
      int x = state;
      for (int m = 0; m <= CHAIN_LIMIT && x != Dfa.DEAD; m++) {
        if (selfLoopNear(dfa, x, rep)) {
          return region(dfa, state, m, rep, repAscending, classOf, quoteClass);
        }
        x = soleSuccessor(dfa, x, rep, classOf, quoteClass);
      }
      return null;
    }
  }

  private static LoopRegion region(
      Dfa dfa, int state, int chain, int[] rep, int[] repAscending, int[] classOf, int quoteClass) {
    // Breadth-first exploration of the nearest states, edges by byte class, not through quotes.
    int[] explored = new int[EXPLORE_LIMIT];
    SmallIndex index = new SmallIndex();
    int n = 0;
    explored[n] = state;
    index.put(state, n++);
    for (int i = 0; i < n && n < EXPLORE_LIMIT; i++) {
      int q = explored[i];
      for (int b : rep) {
        if (classOf[b] == quoteClass) {
          continue;
        }
        int t = dfa.step(q, b);
        if (t != Dfa.DEAD && index.get(t) < 0 && n < EXPLORE_LIMIT) {
          explored[n] = t;
          index.put(t, n++);
        }
      }
    }
    // Each explored state's target per byte class: an explored index, -1 (dead) or UNEXPLORED.
    int classes = dfa.classCount();
    int[][] byClass = new int[n][classes];
    int[][] succ = new int[n][];
    for (int i = 0; i < n; i++) {
      Arrays.fill(byClass[i], -1);
      int[] s = new int[rep.length];
      int k = 0;
      for (int b : rep) {
        int target = dfa.step(explored[i], b);
        int t = target == Dfa.DEAD ? -1 : index.get(target);
        byClass[i][classOf[b]] = target != Dfa.DEAD && t < 0 ? UNEXPLORED : t;
        if (t >= 0 && classOf[b] != quoteClass) {
          s[k++] = t;
        }
      }
      succ[i] = Arrays.copyOf(s, k);
    }
    int[] component = new Tarjan(succ).components();
    boolean[] cyclic = cyclicComponents(component, succ);
    boolean[] inRegion = new boolean[n];
    // The state, the chain of sole successors before the loops (Finder.of), the loops.
    int last = 0;
    inRegion[0] = true;
    for (int i = 0; i < chain; i++) {
      if (succ[last].length == 0) {
        break;
      }
      last = succ[last][0];
      inRegion[last] = true;
    }
    markComponent(component, cyclic, component[last], inRegion);
    for (int t : succ[last]) {
      markComponent(component, cyclic, component[t], inRegion);
    }
    // Canonical numbering: breadth first from the state over bytes 0-255, inside the region
    // (every state of the region is reached; one that were not would count as outside, its
    // bytes as exits, which keeps the masks exact).
    int[] number = new int[n];
    Arrays.fill(number, -1);
    int[] order = new int[n];
    int size = 0;
    order[size] = 0;
    number[0] = size++;
    for (int i = 0; i < size; i++) {
      int[] row = byClass[order[i]];
      // Each class's first byte, ascending: the targets are met in the order of bytes 0-255.
      for (int b : repAscending) {
        int t = row[classOf[b]];
        if (t >= 0 && inRegion[t] && number[t] < 0) {
          order[size] = t;
          number[t] = size++;
        }
      }
    }
    int[] form = new int[size * 8];
    int p = 0;
    long[] exits = new long[4];
    boolean internal = false;
    for (int i = 0; i < size; i++) {
      int[] row = byClass[order[i]];
      int countAt = p++;
      int runs = 0;
      int previous = Integer.MIN_VALUE;
      for (int b = 0; b < 256; b++) {
        int t = row[classOf[b]];
        int v;
        if (t >= 0 && inRegion[t] && number[t] >= 0) {
          v = number[t];
          internal = true;
        } else {
          v = -1;
          if (t != -1) {
            exits[b >>> 6] |= 1L << b;
          }
        }
        if (v != previous) {
          if (p + 2 > form.length) {
            form = Arrays.copyOf(form, form.length * 2);
          }
          form[p++] = b;
          form[p++] = v;
          runs++;
          previous = v;
        }
      }
      form[countAt] = runs;
    }
    int exitCount = 0;
    for (long w : exits) {
      exitCount += Long.bitCount(w);
    }
    return !internal || exitCount > MAX_EXITS
        ? null
        : new LoopRegion(size, Arrays.copyOf(form, p), exits);
  }

  /** The canonical form as a table: entry {@code q * 256 + b} is the target of byte b from q. */
  private int[] table() {
    int[] t = table;
    if (t == null) {
      t = new int[size * 256];
      int p = 0;
      for (int q = 0; q < size; q++) {
        int runs = form[p++];
        for (int r = 0; r < runs; r++) {
          int from = form[p + 2 * r];
          int to = r + 1 < runs ? form[p + 2 * r + 2] : 256;
          Arrays.fill(t, q * 256 + from, q * 256 + to, form[p + 2 * r + 1]);
        }
        p += 2 * runs;
      }
      table = t;
    }
    return t;
  }

  /**
   * The region's state after byte {@code b} from its state {@code q} (canonical numbers), or -1.
   */
  int target(int q, int b) {
    return table()[q * 256 + b];
  }

  /** States in the region. */
  public int size() {
    return size;
  }

  /**
   * The bytes that take a state of the region to a live state outside it (four words, a 256-bit
   * set). Shared: do not modify.
   */
  public long[] exits() {
    return exits;
  }

  /**
   * The tokens of {@code v} whose whole walk from the region's state stays inside the region:
   * computed on first use per vocabulary and canonical form, then shared (do not modify).
   */
  public long[] stay(SortedVocabulary v, int vocabSize) {
    Map<LoopRegion, long[]> cache = STAY.computeIfAbsent(v, k -> lru());
    long[] s;
    synchronized (cache) {
      s = cache.get(this);
    }
    if (s == null) {
      s = computeStay(v, vocabSize);
      synchronized (cache) {
        long[] prev = cache.putIfAbsent(this, s);
        s = prev == null ? s : prev;
      }
    }
    return s;
  }

  /** The walk behind {@link #stay}, over the region's own table (the naive-twin tests call it). */
  long[] computeStay(SortedVocabulary v, int vocabSize) {
    int[] identity = new int[256];
    Arrays.setAll(identity, b -> b);
    long[] all = new long[(size + 63) >>> 6];
    Arrays.fill(all, -1L);
    Dfa local = new Dfa(size, identity, 256, table(), all);
    VocabView view = VocabView.of(v, loopBytes(local::step, 0, Dfa.DEAD, 256), vocabSize);
    long[] mask = view.loopOnly == null ? new long[(vocabSize + 63) >>> 6] : view.loopOnly.clone();
    SortedWalk.walk(view.tokens, new DfaWalk(local, 0, v.maxLength(), mask));
    return mask;
  }

  /**
   * A byte set {@code L} (four words, a 256-bit set) such that every token made only of bytes in
   * {@code L} stays alive from {@code state}: the bytes {@code b < limit} with {@code step(state,
   * b) = t} and {@code step(t, b) = t} for one successor {@code t}, the one with the most such
   * bytes. A nonempty token of {@code L} bytes goes to {@code t} on its first byte and stays there.
   * With {@code t = state} these are the state's self-loop bytes (inside a string, an identifier);
   * with another {@code t}, the state just before such a loop (right after a string's opening
   * quote).
   *
   * @param step the transition function
   * @param dead the value {@code step} returns for the dead state
   * @param limit bytes from here up are not text (256 for a DFA's masks; a grammar's rule automata
   *     use the top bytes for rule calls)
   */
  public static long[] loopBytes(IntBinaryOperator step, int state, int dead, int limit) {
    int[] target = new int[limit];
    int best = dead;
    int bestCount = 0;
    for (int b = 0; b < limit; b++) {
      int t = step.applyAsInt(state, b);
      target[b] = t != dead && step.applyAsInt(t, b) == t ? t : dead;
    }
    for (int b = 0; b < limit && bestCount < limit - b; b++) {
      int t = target[b];
      if (t == dead || t == best) {
        continue;
      }
      int c = 0;
      for (int x = b; x < limit; x++) {
        c += target[x] == t ? 1 : 0;
      }
      if (c > bestCount) {
        best = t;
        bestCount = c;
      }
    }
    long[] loop = new long[4];
    for (int b = 0; b < limit; b++) {
      if (best != dead && target[b] == best) {
        loop[b >>> 6] |= 1L << b;
      }
    }
    return loop;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoopRegion r
        && r.hash == hash
        && r.size == size
        && Arrays.equals(r.form, form);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  private static Map<LoopRegion, long[]> lru() {
    return new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<LoopRegion, long[]> e) {
        return size() > CACHE_PER_VOCABULARY;
      }
    };
  }

  /** One byte of each byte class of {@code dfa}. */
  private static int[] classRepresentatives(Dfa dfa) {
    int[] rep = new int[dfa.classCount()];
    Arrays.fill(rep, -1);
    int k = 0;
    for (int b = 0; b < 256 && k < rep.length; b++) {
      int c = dfa.classOf(b);
      if (rep[c] < 0) {
        rep[c] = b;
        k++;
      }
    }
    return Arrays.stream(rep).filter(b -> b >= 0).toArray();
  }

  /**
   * The one state all of {@code state}'s live non-quote bytes lead to (inside a JSON Unicode
   * escape, each hexadecimal digit's state), or {@link Dfa#DEAD} if none or several.
   */
  private static int soleSuccessor(Dfa dfa, int state, int[] rep, int[] classOf, int quoteClass) {
    int sole = Dfa.DEAD;
    for (int b : rep) {
      int t = dfa.step(state, b);
      if (t == Dfa.DEAD || classOf[b] == quoteClass) {
        continue;
      }
      if (sole != Dfa.DEAD && t != sole) {
        return Dfa.DEAD;
      }
      sole = t;
    }
    return sole;
  }

  /** Whether {@code state} or one of its direct successors has a self-loop. */
  private static boolean selfLoopNear(Dfa dfa, int state, int[] rep) {
    int last = Dfa.DEAD;
    for (int b : rep) {
      int t = dfa.step(state, b);
      if (t == state) {
        return true;
      }
      if (t != Dfa.DEAD && t != last) {
        last = t;
        for (int c : rep) {
          if (dfa.step(t, c) == t) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean[] cyclicComponents(int[] component, int[][] succ) {
    int count = 0;
    for (int c : component) {
      count = Math.max(count, c + 1);
    }
    int[] members = new int[count];
    for (int c : component) {
      members[c]++;
    }
    boolean[] cyclic = new boolean[count];
    for (int i = 0; i < succ.length; i++) {
      if (members[component[i]] > 1) {
        cyclic[component[i]] = true;
      }
      for (int t : succ[i]) {
        if (t == i) {
          cyclic[component[i]] = true;
        }
      }
    }
    return cyclic;
  }

  private static void markComponent(int[] component, boolean[] cyclic, int c, boolean[] in) {
    if (!cyclic[c]) {
      return;
    }
    for (int i = 0; i < component.length; i++) {
      if (component[i] == c) {
        in[i] = true;
      }
    }
  }

  /** State number to explored index, open addressing (at most {@link #EXPLORE_LIMIT} entries). */
  private static final class SmallIndex {
    private final int[] keys = new int[4 * EXPLORE_LIMIT];
    private final int[] values = new int[4 * EXPLORE_LIMIT];

    SmallIndex() {
      Arrays.fill(keys, -1);
    }

    void put(int key, int value) {
      int i = slot(key);
      keys[i] = key;
      values[i] = value;
    }

    /** The index of {@code key}, or -1. */
    int get(int key) {
      int i = slot(key);
      return keys[i] == key ? values[i] : -1;
    }

    private int slot(int key) {
      int mask = keys.length - 1;
      int i = (key * 0x9E3779B9) >>> 24 & mask;
      while (keys[i] != -1 && keys[i] != key) {
        i = (i + 1) & mask;
      }
      return i;
    }
  }

  /** Tarjan's strongly connected components of a small graph (recursive: at most 64 nodes). */
  private static final class Tarjan {
    private final int[][] succ;
    private final int[] low;
    private final int[] order;
    private final int[] component;
    private final int[] stack;
    private final boolean[] onStack;
    private int next;
    private int top;
    private int components;

    Tarjan(int[][] succ) {
      int n = succ.length;
      this.succ = succ;
      this.low = new int[n];
      this.order = new int[n];
      this.component = new int[n];
      this.stack = new int[n];
      this.onStack = new boolean[n];
      Arrays.fill(order, -1);
    }

    int[] components() {
      for (int i = 0; i < succ.length; i++) {
        if (order[i] < 0) {
          visit(i);
        }
      }
      return component;
    }

    private void visit(int v) {
      order[v] = low[v] = next++;
      stack[top++] = v;
      onStack[v] = true;
      for (int w : succ[v]) {
        if (order[w] < 0) {
          visit(w);
          low[v] = Math.min(low[v], low[w]);
        } else if (onStack[w]) {
          low[v] = Math.min(low[v], order[w]);
        }
      }
      if (low[v] == order[v]) {
        int w;
        do {
          w = stack[--top];
          onStack[w] = false;
          component[w] = components;
        } while (w != v);
        components++;
      }
    }
  }
}
