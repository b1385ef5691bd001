package dev.leap.fsm.internal;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.Excerpt;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/**
 * Subset construction from an {@link Nfa} to a DFA over byte equivalence classes, with a state
 * limit. The classes are the coarsest partition of the 256 byte values such that every NFA edge
 * covers whole classes. The result is complete-with-dead: {@code table[s * classes + c]} is a DFA
 * state or {@code -1}; state 0 is initial. Every state is reachable; not every state can reach an
 * accepting one (the minimizer trims those). The minimizer takes the rows as runs of classes
 * ({@link Runs}), which is what the construction writes: the dense table ({@link #determinize}) is
 * for tests.
 *
 * <p>Per DFA state the classes are cut into segments at the bounds of the state's edges; the
 * classes of a segment have the same NFA targets, so each segment takes one closure and one look-up
 * (a string's content is one segment, not dozens of classes), and a segment whose targets equal the
 * previous segment's takes its state. A segment with a single NFA target (most of them in a JSON
 * automaton, whose NFA is mostly embedded DFAs) takes the DFA state found for that target before,
 * without a closure. Subsets are kept sorted in one pool and found by content through an
 * open-addressing table (no object per subset). DFA states are numbered in the order they are
 * found, breadth first, so the state count at which the limit stops the construction does not
 * depend on these shortcuts: the table is the one computing every class's closure would give
 * ({@code DeterminizerTest} keeps that twin and checks where the limit stops).
 */
public final class Determinizer {
  private Determinizer() {}

  /** A DFA before minimization. */
  public record RawDfa(int states, int classes, int[] classOf, int[] table, boolean[] accepting) {}

  /**
   * A DFA before minimization, its rows as runs of classes (most of a JSON automaton's table is
   * undefined): state {@code d}'s defined transitions are the runs {@code [rowStart[d], rowStart[d
   * + 1])}, run {@code r} taking classes {@code lo[r]..hi[r]} to {@code target[r]}, in class order,
   * a run's neighbours in its row with other targets or not adjacent.
   */
  record Runs(
      int states,
      int classes,
      int[] classOf,
      int[] rowStart,
      int[] lo,
      int[] hi,
      int[] target,
      boolean[] accepting) {

    /** The same DFA as a dense table. */
    RawDfa dense() {
      int[] table = new int[states * classes];
      Arrays.fill(table, -1);
      for (int d = 0; d < states; d++) {
        for (int r = rowStart[d]; r < rowStart[d + 1]; r++) {
          Arrays.fill(table, d * classes + lo[r], d * classes + hi[r] + 1, target[r]);
        }
      }
      return new RawDfa(states, classes, classOf, table, accepting);
    }

    /** The runs of a dense table. */
    static Runs of(RawDfa raw) {
      int k = raw.classes();
      int[] table = raw.table();
      IntArrayList lo = new IntArrayList();
      IntArrayList hi = new IntArrayList();
      IntArrayList target = new IntArrayList();
      int[] rowStart = new int[raw.states() + 1];
      for (int d = 0; d < raw.states(); d++) {
        rowStart[d] = lo.size();
        int row = d * k;
        for (int c = 0; c < k; c++) {
          int t = table[row + c];
          if (t < 0) {
            continue;
          }
          int n = lo.size();
          if (n > rowStart[d] && hi.getInt(n - 1) == c - 1 && target.getInt(n - 1) == t) {
            hi.set(n - 1, c);
          } else {
            lo.add(c);
            hi.add(c);
            target.add(t);
          }
        }
      }
      rowStart[raw.states()] = lo.size();
      return new Runs(
          raw.states(),
          k,
          raw.classOf(),
          rowStart,
          lo.toIntArray(),
          hi.toIntArray(),
          target.toIntArray(),
          raw.accepting());
    }
  }

  /** Most NFA-state entries summed over all DFA states' subsets (a memory and time limit). */
  public static final long MAX_SUBSET_WORK = 20_000_000L;

  /**
   * The subset construction of {@code nfa} as a dense table (tests and twins; see {@link #runs}).
   */
  public static RawDfa determinize(Nfa nfa, int maxStates, String source) {
    return runs(nfa, maxStates, source).dense();
  }

  /**
   * The subset construction of {@code nfa}, its rows as runs.
   *
   * @throws AutomatonTooLargeException past {@code maxStates} DFA states or {@link
   *     #MAX_SUBSET_WORK}
   */
  static Runs runs(Nfa nfa, int maxStates, String source) {
    int[] classOf = byteClasses(nfa);
    int classes = 0;
    for (int c : classOf) {
      classes = Math.max(classes, c + 1);
    }
    Construction k = new Construction(new Flat(nfa, classOf), maxStates, source);
    Subsets subsets = k.subsets;
    Flat f = k.f;
    subsets.closure(f, new int[] {nfa.start}, 1);
    subsets.add();
    k.work = subsets.size(0);

    // Per DFA state, the classes are cut into segments at the state's edge bounds: every class of
    // a segment has the same NFA targets (its bucket), so a segment needs one closure.
    IntArrayList[] buckets = new IntArrayList[classes];
    for (int c = 0; c < classes; c++) {
      buckets[c] = new IntArrayList();
    }
    boolean[] cut = new boolean[classes + 1];
    int[] segStart = new int[classes + 1];
    int[] segOf = new int[classes];
    for (int d = 0; d < subsets.count; d++) {
      int from = subsets.start[d];
      int past = subsets.start[d + 1];
      k.startRow(d, classes);
      if (past - from == 1 && f.disjoint[subsets.pool[from]]) {
        // One NFA state whose edges do not overlap: its edges are the segments.
        int s = subsets.pool[from];
        for (int e = f.edgeStart[s]; e < f.edgeStart[s + 1]; e++) {
          k.run(f.loClass[e], f.hiClass[e], k.single(f.to[e]));
        }
        continue;
      }
      cut[0] = true;
      for (int x = from; x < past; x++) {
        int s = subsets.pool[x];
        for (int e = f.edgeStart[s]; e < f.edgeStart[s + 1]; e++) {
          cut[f.loClass[e]] = true;
          cut[f.hiClass[e] + 1] = true;
        }
      }
      int segs = 0;
      for (int c = 0; c < classes; c++) {
        if (cut[c]) {
          cut[c] = false;
          buckets[segs].clear();
          segStart[segs++] = c;
        }
        segOf[c] = segs - 1;
      }
      cut[classes] = false;
      segStart[segs] = classes;
      for (int x = from; x < past; x++) {
        int s = subsets.pool[x];
        for (int e = f.edgeStart[s]; e < f.edgeStart[s + 1]; e++) {
          int hi = f.hiClass[e];
          int to = f.to[e];
          for (int i = segOf[f.loClass[e]]; segStart[i] <= hi; i++) {
            buckets[i].add(to);
          }
        }
      }
      int previous = -1;
      for (int i = 0; i < segs; i++) {
        IntArrayList b = buckets[i];
        int id;
        if (b.isEmpty()) {
          id = -1;
        } else if (i > 0 && b.equals(buckets[i - 1])) {
          // Same targets as the segment before (two edges that meet, with the same targets).
          id = previous;
        } else if (b.size() == 1) {
          id = k.single(b.getInt(0));
        } else {
          id = k.state(b.elements(), b.size());
        }
        if (id >= 0) {
          k.run(segStart[i], segStart[i + 1] - 1, id);
        }
        previous = id;
      }
    }
    return k.result(nfa, classes, classOf);
  }

  /**
   * The construction's state: the subsets found, the single-target look-up, the rows written so far
   * as runs, the work done against the limits.
   */
  private static final class Construction {
    final Flat f;
    final Subsets subsets;
    final int maxStates;
    final String source;

    /**
     * Per NFA state t, the DFA state of closure({t}) once known (-1 before): most segments of a
     * JSON automaton's subsets have one target, and most targets recur.
     */
    final int[] single;

    long work;

    // The rows as runs, grown by doubling; the open row is rowStart[row].
    int[] rowStart = new int[65];
    int[] runLo = new int[256];
    int[] runHi = new int[256];
    int[] runTarget = new int[256];
    int runs;
    int row;

    Construction(Flat f, int maxStates, String source) {
      this.f = f;
      this.subsets = new Subsets(f.edgeStart.length - 1);
      this.maxStates = maxStates;
      this.source = source;
      this.single = new int[f.edgeStart.length - 1];
      Arrays.fill(single, -1);
    }

    /** Opens row {@code d}, which has at most {@code classes} runs. */
    void startRow(int d, int classes) {
      if (runs + classes > runLo.length) {
        int size = Math.max(2 * runLo.length, runs + classes);
        runLo = Arrays.copyOf(runLo, size);
        runHi = Arrays.copyOf(runHi, size);
        runTarget = Arrays.copyOf(runTarget, size);
      }
      if (d + 2 > rowStart.length) {
        rowStart = Arrays.copyOf(rowStart, 2 * rowStart.length);
      }
      rowStart[d] = runs;
      row = d;
    }

    /**
     * Classes {@code lo..hi} go to {@code id}: a run of the open row, or the end of its last run
     * when that one ends at {@code lo - 1} with the same target.
     */
    void run(int lo, int hi, int id) {
      if (runs > rowStart[row] && runHi[runs - 1] == lo - 1 && runTarget[runs - 1] == id) {
        runHi[runs - 1] = hi;
      } else {
        runLo[runs] = lo;
        runHi[runs] = hi;
        runTarget[runs++] = id;
      }
    }

    /** The DFA state of the closure of NFA state {@code t}. */
    int single(int t) {
      int id = single[t];
      if (id < 0) {
        id = state(new int[] {t}, 1);
        single[t] = id;
      }
      return id;
    }

    /** The DFA state of the closure of {@code seeds[0, n)}, added if new. */
    int state(int[] seeds, int n) {
      subsets.closure(f, seeds, n);
      int id = subsets.find();
      if (id >= 0) {
        return id;
      }
      id = subsets.count;
      if ((id & 63) == 0) {
        Interrupts.check();
      }
      if (id >= maxStates) {
        throw new AutomatonTooLargeException(source, maxStates, id + 1);
      }
      work += subsets.found;
      if (work > MAX_SUBSET_WORK) {
        // Subsets this large mean the DFA would not fit the state limit's memory either.
        throw new AutomatonTooLargeException(
            source,
            maxStates,
            id + 1,
            "determinization would hold more than "
                + MAX_SUBSET_WORK
                + " NFA states in its subsets (at "
                + (id + 1)
                + " DFA states); simplify the"
                + " constraint: "
                + Excerpt.around(source, -1));
      }
      subsets.add();
      return id;
    }

    Runs result(Nfa nfa, int classes, int[] classOf) {
      int count = subsets.count;
      rowStart[count] = runs;
      boolean[] accepting = new boolean[count];
      for (int d = 0; d < count; d++) {
        accepting[d] =
            Arrays.binarySearch(subsets.pool, subsets.start[d], subsets.start[d + 1], nfa.accept)
                >= 0;
      }
      return new Runs(
          count,
          classes,
          classOf,
          Arrays.copyOf(rowStart, count + 1),
          Arrays.copyOf(runLo, runs),
          Arrays.copyOf(runHi, runs),
          Arrays.copyOf(runTarget, runs),
          accepting);
    }
  }

  /**
   * The NFA's edges in flat arrays for the construction: a state's byte edges {@code [edgeStart[s],
   * edgeStart[s + 1])} with their class bounds and targets (in the order added), its epsilon
   * targets {@code eps[epsStart[s], epsStart[s + 1])}.
   */
  private static final class Flat {
    final int[] edgeStart;
    final int[] loClass;
    final int[] hiClass;
    final int[] to;
    final int[] epsStart;
    final int[] eps;
    final int accept;

    /**
     * Whether a state's edges are in ascending order of classes and do not overlap (an embedded
     * automaton's state, a literal's): then a subset of that state alone is cut at its edges.
     */
    final boolean[] disjoint;

    Flat(Nfa nfa, int[] classOf) {
      int n = nfa.stateCount();
      accept = nfa.accept;
      edgeStart = new int[n + 1];
      epsStart = new int[n + 1];
      int edges = 0;
      int epsEdges = 0;
      for (int s = 0; s < n; s++) {
        edgeStart[s] = edges;
        for (int e = nfa.firstEdge(s); e >= 0; e = nfa.nextEdge(e)) {
          edges++;
        }
        epsStart[s] = epsEdges;
        for (int e = nfa.firstEps(s); e >= 0; e = nfa.nextEps(e)) {
          epsEdges++;
        }
      }
      edgeStart[n] = edges;
      epsStart[n] = epsEdges;
      loClass = new int[edges];
      hiClass = new int[edges];
      to = new int[edges];
      eps = new int[epsEdges];
      disjoint = new boolean[n];
      for (int s = 0; s < n; s++) {
        // The list is newest first: written from the end, the edges are in the order added.
        int i = edgeStart[s + 1] - 1;
        for (int e = nfa.firstEdge(s); e >= 0; e = nfa.nextEdge(e), i--) {
          loClass[i] = classOf[nfa.edgeLo(e)];
          hiClass[i] = classOf[nfa.edgeHi(e)];
          to[i] = nfa.edgeTo(e);
        }
        boolean ascending = true;
        for (int j = edgeStart[s] + 1; j < edgeStart[s + 1] && ascending; j++) {
          ascending = loClass[j] > hiClass[j - 1];
        }
        disjoint[s] = ascending;
        i = epsStart[s];
        for (int e = nfa.firstEps(s); e >= 0; e = nfa.nextEps(e), i++) {
          eps[i] = nfa.epsTo(e);
        }
      }
    }

    /** Whether a subset keeps {@code s}: it has byte edges, or it is the accepting state. */
    boolean kept(int s) {
      return edgeStart[s + 1] > edgeStart[s] || s == accept;
    }
  }

  /**
   * The DFA states' subsets, sorted, one after another in {@code pool} (subset {@code d} is {@code
   * pool[start[d], start[d + 1])}), found by content through an open-addressing table of ids; the
   * subset being looked up is built in {@code scratch[0, found)}. No object per subset.
   */
  private static final class Subsets {
    int[] pool = new int[256];
    int[] start = new int[65];
    int[] hashes = new int[65];
    int count;

    /** Ids + 1 by hash, linear probing, 0 free; at most half full. */
    int[] slots = new int[128];

    final int[] scratch;
    int found;
    int scratchHash;
    private final int[] stamp;
    private final int[] stack;
    private int mark;

    Subsets(int nfaStates) {
      scratch = new int[nfaStates];
      stamp = new int[nfaStates];
      stack = new int[nfaStates];
    }

    int size(int d) {
      return start[d + 1] - start[d];
    }

    /**
     * The sorted epsilon closure of {@code seeds[0, n)} into {@code scratch[0, found)}, kept to the
     * states that matter ({@link Flat#kept}), and its hash.
     */
    void closure(Flat f, int[] seeds, int n) {
      int m = ++mark;
      int sp = 0;
      int k = 0;
      for (int i = 0; i < n; i++) {
        int s = seeds[i];
        if (stamp[s] != m) {
          stamp[s] = m;
          stack[sp++] = s;
        }
      }
      while (sp > 0) {
        int s = stack[--sp];
        if (f.kept(s)) {
          scratch[k++] = s;
        }
        for (int e = f.epsStart[s]; e < f.epsStart[s + 1]; e++) {
          int t = f.eps[e];
          if (stamp[t] != m) {
            stamp[t] = m;
            stack[sp++] = t;
          }
        }
      }
      Arrays.sort(scratch, 0, k);
      int h = 1;
      for (int i = 0; i < k; i++) {
        h = 31 * h + scratch[i];
      }
      found = k;
      scratchHash = h;
    }

    /** The id of the subset in {@code scratch}, or -1. */
    int find() {
      int mask = slots.length - 1;
      for (int i = mix(scratchHash) & mask; ; i = (i + 1) & mask) {
        int v = slots[i];
        if (v == 0) {
          return -1;
        }
        int d = v - 1;
        if (hashes[d] == scratchHash
            && Arrays.equals(pool, start[d], start[d + 1], scratch, 0, found)) {
          return d;
        }
      }
    }

    /** Adds the subset in {@code scratch} (not present) as id {@code count}. */
    void add() {
      int d = count++;
      if (start.length < count + 1) {
        start = Arrays.copyOf(start, 2 * start.length);
        hashes = Arrays.copyOf(hashes, start.length);
      }
      int at = start[d];
      if (at + found > pool.length) {
        pool = Arrays.copyOf(pool, Math.max(2 * pool.length, at + found));
      }
      System.arraycopy(scratch, 0, pool, at, found);
      start[d + 1] = at + found;
      hashes[d] = scratchHash;
      if (2 * count > slots.length) {
        int[] old = slots;
        slots = new int[2 * old.length];
        for (int v : old) {
          if (v != 0) {
            insert(v - 1);
          }
        }
      }
      insert(d);
    }

    private void insert(int d) {
      int mask = slots.length - 1;
      int i = mix(hashes[d]) & mask;
      while (slots[i] != 0) {
        i = (i + 1) & mask;
      }
      slots[i] = d + 1;
    }

    private static int mix(int h) {
      h *= 0x9E3779B9;
      return h ^ (h >>> 16);
    }
  }

  /** The coarsest byte partition compatible with every edge's range. */
  private static int[] byteClasses(Nfa nfa) {
    boolean[] boundary = new boolean[257];
    boundary[0] = true;
    for (int e = 0; e < nfa.edgeCount(); e++) {
      boundary[nfa.edgeLo(e)] = true;
      boundary[nfa.edgeHi(e) + 1] = true;
    }
    // Bytes in the same interval between boundaries may still differ by which edges cover them
    // only at the boundaries, so intervals are exactly the classes.
    int[] classOf = new int[256];
    int c = -1;
    for (int b = 0; b < 256; b++) {
      if (boundary[b]) {
        c++;
      }
      classOf[b] = c;
    }
    return classOf;
  }
}
