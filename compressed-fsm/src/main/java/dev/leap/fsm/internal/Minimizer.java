package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import java.util.Arrays;
import java.util.HashMap;

/**
 * DFA minimization by partition refinement after Valmari and Lehtinen ("Efficient minimization of
 * DFAs with partial transition functions", 2008): O(m log n) for m defined transitions, whatever
 * the number of byte classes. Then canonical renumbering.
 *
 * <p>The raw DFA comes as rows of class runs ({@link Determinizer.Runs}). Classes whose columns are
 * equal (no state tells them apart: a JSON automaton's string states take dozens of classes that
 * only a few key or pattern states distinguish, and in the raw DFA about a quarter of them turn out
 * equal) are refined as one class ({@link #equalColumns}), which the final merge of equal columns
 * would do anyway: fewer transitions, the same result. An element alone in its set is never marked
 * (its set cannot split).
 *
 * <p>The raw DFA is first trimmed: states that cannot reach acceptance are dropped and transitions
 * into them become undefined ({@link Dfa#DEAD}); refinement runs on that partial DFA, with no
 * explicit sink. Two partitions are refined together: the states into <em>blocks</em>, and the
 * transitions into <em>cords</em> (initially one per byte class; a cord is later the transitions of
 * one class into a union of blocks). Processing a cord splits the blocks by which states have a
 * transition in it; a new block splits the cords by which transitions lead into it. A split always
 * makes the smaller part the new set, and each new set is processed once (Hopcroft's "smaller
 * half"), which gives the bound. The initial cords hold every transition of their class, so a state
 * with a transition on a class never shares a block with one that has none.
 *
 * <p>The blocks are numbered in breadth-first order from the initial state (so equal languages give
 * equal tables), and byte classes are re-merged where the minimal table no longer tells them apart.
 */
public final class Minimizer {
  private Minimizer() {}

  /**
   * A refinable partition of {@code 0..n-1}: {@code elems} groups the elements by set, set {@code
   * s} occupies {@code [first[s], past[s])} with its marked elements first ({@code marked[s]} of
   * them), {@code loc[e]} is the index of {@code e} in {@code elems}, {@code setOf[e]} its set.
   */
  private static final class Partition {
    int sets;
    final int[] elems;
    final int[] loc;
    final int[] setOf;
    final int[] first;
    final int[] past;
    final int[] marked;

    /** Sets with marked elements, {@code touched[0, touchedCount)}. */
    final int[] touched;

    int touchedCount;

    Partition(int n) {
      elems = new int[n];
      loc = new int[n];
      setOf = new int[n];
      first = new int[n + 1];
      past = new int[n + 1];
      marked = new int[n + 1];
      touched = new int[n + 1];
      for (int i = 0; i < n; i++) {
        elems[i] = i;
        loc[i] = i;
      }
      sets = n > 0 ? 1 : 0;
      past[0] = n;
    }

    /**
     * Marks {@code e} (each element at most once between splits). An element alone in its set is
     * not marked: its set cannot split, and {@link #split} would only unmark it.
     */
    void mark(int e) {
      int s = setOf[e];
      if (past[s] - first[s] == 1) {
        return;
      }
      int i = loc[e];
      int j = first[s] + marked[s];
      elems[i] = elems[j];
      loc[elems[i]] = i;
      elems[j] = e;
      loc[e] = j;
      if (marked[s]++ == 0) {
        touched[touchedCount++] = s;
      }
    }

    /**
     * Splits every touched set into its marked and unmarked parts; the smaller part becomes a new
     * set.
     */
    void split() {
      while (touchedCount > 0) {
        int s = touched[--touchedCount];
        int j = first[s] + marked[s];
        if (j == past[s]) {
          marked[s] = 0;
          continue;
        }
        int z = sets++;
        if (marked[s] <= past[s] - j) {
          first[z] = first[s];
          past[z] = j;
          first[s] = j;
        } else {
          past[z] = past[s];
          first[z] = j;
          past[s] = j;
        }
        for (int i = first[z]; i < past[z]; i++) {
          setOf[elems[i]] = z;
        }
        marked[s] = 0;
        marked[z] = 0;
      }
    }
  }

  /** The minimal trimmed DFA, or {@code null} if the language is empty. */
  public static Dfa minimize(Determinizer.RawDfa raw) {
    return minimize(Determinizer.Runs.of(raw));
  }

  /** As {@link #minimize(Determinizer.RawDfa)}, from the rows as runs. */
  static Dfa minimize(Determinizer.Runs raw) {
    int rawStates = raw.states();
    int[] runStart = raw.rowStart();
    int[] runLo = raw.lo();
    int[] runHi = raw.hi();
    int[] runTarget = raw.target();
    // Classes with equal columns (no state tells them apart) are refined as one: the class of the
    // first of them. The result's classes are merged by equal columns in the end anyway, numbered
    // in order of first occurrence, so the same table comes out with fewer transitions to refine.
    int[] sameAs = equalColumns(raw);
    int k = 0;
    int[] merged = new int[raw.classes()];
    int[] repsBefore = new int[raw.classes() + 1];
    for (int c = 0; c < raw.classes(); c++) {
      merged[c] = sameAs[c] == c ? k++ : merged[sameAs[c]];
      repsBefore[c + 1] = k;
    }
    int[] classOf = new int[256];
    for (int b = 0; b < 256; b++) {
      classOf[b] = merged[raw.classOf()[b]];
    }
    // The defined transitions, row by row (by state, then class): everything after this works on
    // these lists (a JSON DFA's state defines a few of its dozens of classes).
    int defined = 0;
    for (int r = 0; r < runLo.length; r++) {
      defined += repsBefore[runHi[r] + 1] - repsBefore[runLo[r]];
    }
    int[] rowStart = new int[rawStates + 1];
    int[] edgeClass = new int[defined];
    int[] edgeTo = new int[defined];
    for (int s = 0, e = 0; s < rawStates; s++) {
      rowStart[s] = e;
      for (int r = runStart[s]; r < runStart[s + 1]; r++) {
        int t = runTarget[r];
        for (int c = runLo[r]; c <= runHi[r]; c++) {
          if (sameAs[c] == c) {
            edgeClass[e] = merged[c];
            edgeTo[e++] = t;
          }
        }
      }
      rowStart[s + 1] = e;
    }
    boolean[] live = liveStates(raw, rowStart, edgeTo);
    int n = 0;
    int[] id = new int[rawStates];
    for (int s = 0; s < rawStates; s++) {
      id[s] = live[s] ? n++ : -1;
    }
    if (n == 0 || id[0] < 0) {
      return null;
    }
    // The live states' transitions into live states, by state then class (outStart, outClass,
    // outTo), counted per class.
    boolean[] acceptingState = new boolean[n];
    int[] outStart = new int[n + 1];
    int[] outClass = new int[defined];
    int[] outTo = new int[defined];
    int m = 0;
    int[] perClass = new int[k + 1];
    for (int s = 0; s < rawStates; s++) {
      int q = id[s];
      if (q < 0) {
        continue;
      }
      acceptingState[q] = raw.accepting()[s];
      outStart[q] = m;
      for (int e = rowStart[s]; e < rowStart[s + 1]; e++) {
        int d = id[edgeTo[e]];
        if (d >= 0) {
          outClass[m] = edgeClass[e];
          outTo[m++] = d;
          perClass[edgeClass[e] + 1]++;
        }
      }
    }
    outStart[n] = m;
    // Transitions (tail, class), numbered by head (a counting sort): a state's incoming
    // transitions are inStart[s]..inStart[s + 1] - 1, so a new block marks runs of consecutive
    // transitions in the cords (the refinement is bound by memory).
    int[] inStart = new int[n + 1];
    for (int e = 0; e < m; e++) {
      inStart[outTo[e] + 1]++;
    }
    for (int s = 0; s < n; s++) {
      inStart[s + 1] += inStart[s];
    }
    int[] tail = new int[m];
    int[] label = new int[m];
    int[] fill = Arrays.copyOf(inStart, n);
    for (int s = 0; s < n; s++) {
      for (int e = outStart[s]; e < outStart[s + 1]; e++) {
        int i = fill[outTo[e]]++;
        tail[i] = s;
        label[i] = outClass[e];
      }
    }

    Partition blocks = new Partition(n);
    for (int s = 0; s < n; s++) {
      if (acceptingState[s]) {
        blocks.mark(s);
      }
    }
    blocks.split();
    // The initial cords: the transitions grouped by class.
    Partition cords = new Partition(m);
    if (m > 0) {
      for (int c = 0; c < k; c++) {
        perClass[c + 1] += perClass[c];
      }
      int[] next = Arrays.copyOf(perClass, k);
      for (int i = 0; i < m; i++) {
        int at = next[label[i]]++;
        cords.elems[at] = i;
        cords.loc[i] = at;
      }
      cords.sets = 0;
      for (int c = 0; c < k; c++) {
        if (perClass[c + 1] > perClass[c]) {
          int z = cords.sets++;
          cords.first[z] = perClass[c];
          cords.past[z] = perClass[c + 1];
          for (int at = perClass[c]; at < perClass[c + 1]; at++) {
            cords.setOf[cords.elems[at]] = z;
          }
        }
      }
    }
    // Cords in order of creation, and the blocks made since (block 0, the larger part of the
    // first split, is covered by the initial cords, which stand for transitions into any block).
    int b = 1;
    for (int c = 0; c < cords.sets; c++) {
      for (int i = cords.first[c]; i < cords.past[c]; i++) {
        blocks.mark(tail[cords.elems[i]]);
      }
      blocks.split();
      for (; b < blocks.sets; b++) {
        for (int i = blocks.first[b]; i < blocks.past[b]; i++) {
          int s = blocks.elems[i];
          for (int j = inStart[s]; j < inStart[s + 1]; j++) {
            cords.mark(j);
          }
        }
        cords.split();
      }
    }
    // Renumber blocks breadth-first from the initial state's block.
    int[] newId = new int[blocks.sets];
    Arrays.fill(newId, -2);
    int[] order = new int[blocks.sets];
    int count = 0;
    newId[blocks.setOf[id[0]]] = count;
    order[count++] = blocks.setOf[id[0]];
    for (int q = 0; q < count; q++) {
      int rep = blocks.elems[blocks.first[order[q]]];
      for (int e = outStart[rep]; e < outStart[rep + 1]; e++) {
        int blk = blocks.setOf[outTo[e]];
        if (newId[blk] == -2) {
          newId[blk] = count;
          order[count++] = blk;
        }
      }
    }
    int[] table = new int[count * k];
    Arrays.fill(table, Dfa.DEAD);
    long[] accepting = new long[(count + 63) >>> 6];
    for (int q = 0; q < count; q++) {
      int rep = blocks.elems[blocks.first[order[q]]];
      for (int e = outStart[rep]; e < outStart[rep + 1]; e++) {
        table[q * k + outClass[e]] = newId[blocks.setOf[outTo[e]]];
      }
      if (acceptingState[rep]) {
        accepting[q >>> 6] |= 1L << q;
      }
    }
    return mergeClasses(count, k, classOf, table, accepting);
  }

  /**
   * Per class, the first class with an equal column in {@code raw}'s table (itself if none): two
   * sums over every column's defined entries, hashed, found with difference arrays over each run's
   * classes in one pass over the runs; then checked exactly (each entry against the first class's
   * entry in its row, and equal counts of defined entries), and if a hash ever collided, no class
   * is merged.
   */
  static int[] equalColumns(Determinizer.Runs raw) {
    return equalColumns(raw, -1L);
  }

  /** As {@link #equalColumns(Determinizer.Runs)}, the hashes cut to {@code hashBits} (tests). */
  static int[] equalColumns(Determinizer.Runs raw, long hashBits) {
    int k = raw.classes();
    int[] runStart = raw.rowStart();
    int[] lo = raw.lo();
    int[] hi = raw.hi();
    int[] target = raw.target();
    long[] h1 = new long[k + 1];
    long[] h2 = new long[k + 1];
    int[] count = new int[k + 1];
    for (int s = 0; s < raw.states(); s++) {
      for (int r = runStart[s]; r < runStart[s + 1]; r++) {
        long v = ((long) s << 32) | (target[r] & 0xFFFFFFFFL);
        long v1 = mix(v * 0x9E3779B97F4A7C15L) & hashBits;
        long v2 = mix(v ^ 0xC2B2AE3D27D4EB4FL) & hashBits;
        h1[lo[r]] += v1;
        h1[hi[r] + 1] -= v1;
        h2[lo[r]] += v2;
        h2[hi[r] + 1] -= v2;
        count[lo[r]]++;
        count[hi[r] + 1]--;
      }
    }
    int[] sameAs = new int[k];
    boolean any = false;
    for (int c = 0; c < k; c++) {
      if (c > 0) {
        h1[c] += h1[c - 1];
        h2[c] += h2[c - 1];
        count[c] += count[c - 1];
      }
      sameAs[c] = c;
      for (int d = 0; d < c; d++) {
        if (sameAs[d] == d && h1[d] == h1[c] && h2[d] == h2[c] && count[d] == count[c]) {
          sameAs[c] = d;
          any = true;
          break;
        }
      }
    }
    if (!any) {
      return sameAs;
    }
    // Every defined entry of a merged class equals its first class's entry in the row; with equal
    // counts of defined entries, the columns are equal. (Only the merged classes are looked at:
    // mergedBefore[c] of them come before class c.)
    int[] mergedBefore = new int[k + 1];
    int[] mergedClasses = new int[k];
    for (int c = 0; c < k; c++) {
      mergedBefore[c + 1] = mergedBefore[c];
      if (sameAs[c] != c) {
        mergedClasses[mergedBefore[c + 1]++] = c;
      }
    }
    int[] row = new int[k];
    Arrays.fill(row, -1);
    boolean equal = true;
    for (int s = 0; s < raw.states() && equal; s++) {
      for (int r = runStart[s]; r < runStart[s + 1]; r++) {
        Arrays.fill(row, lo[r], hi[r] + 1, target[r]);
      }
      for (int r = runStart[s]; r < runStart[s + 1] && equal; r++) {
        for (int i = mergedBefore[lo[r]]; i < mergedBefore[hi[r] + 1]; i++) {
          if (row[sameAs[mergedClasses[i]]] != target[r]) {
            equal = false;
            break;
          }
        }
      }
      for (int r = runStart[s]; r < runStart[s + 1]; r++) {
        Arrays.fill(row, lo[r], hi[r] + 1, -1);
      }
    }
    if (!equal) {
      for (int c = 0; c < k; c++) {
        sameAs[c] = c;
      }
    }
    return sameAs;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }

  /**
   * The states that are reachable from the initial state and can reach an accepting state (the raw
   * DFA's states are all reachable; co-reachability is a backward search over the defined
   * transitions, {@code edgeTo} in rows {@code rowStart}).
   */
  private static boolean[] liveStates(Determinizer.Runs raw, int[] rowStart, int[] edgeTo) {
    int n = raw.states();
    int[] predStart = new int[n + 1];
    for (int t : edgeTo) {
      predStart[t + 1]++;
    }
    for (int i = 0; i < n; i++) {
      predStart[i + 1] += predStart[i];
    }
    int[] pred = new int[edgeTo.length];
    int[] fill = Arrays.copyOf(predStart, n);
    for (int s = 0; s < n; s++) {
      for (int e = rowStart[s]; e < rowStart[s + 1]; e++) {
        pred[fill[edgeTo[e]]++] = s;
      }
    }
    boolean[] live = new boolean[n];
    int[] stack = new int[n];
    int sp = 0;
    for (int s = 0; s < n; s++) {
      if (raw.accepting()[s]) {
        live[s] = true;
        stack[sp++] = s;
      }
    }
    while (sp > 0) {
      int t = stack[--sp];
      for (int j = predStart[t]; j < predStart[t + 1]; j++) {
        int s = pred[j];
        if (!live[s]) {
          live[s] = true;
          stack[sp++] = s;
        }
      }
    }
    return live;
  }

  /** Merges byte classes whose table columns are identical. */
  static Dfa mergeClasses(int states, int k, int[] classOf, int[] table, long[] accepting) {
    int[] newClass = columnClasses(states, k, table);
    int merged = 0;
    for (int c : newClass) {
      merged = Math.max(merged, c + 1);
    }
    int[] newClassOf = new int[256];
    for (int b = 0; b < 256; b++) {
      newClassOf[b] = newClass[classOf[b]];
    }
    int[] newTable = new int[states * merged];
    for (int s = 0; s < states; s++) {
      for (int c = 0; c < k; c++) {
        newTable[s * merged + newClass[c]] = table[s * k + c];
      }
    }
    return new Dfa(states, newClassOf, merged, newTable, accepting);
  }

  /**
   * The classes of identical columns of {@code table} ({@code states} rows of {@code k}), numbered
   * in order of first occurrence: column {@code c} belongs to class {@code result[c]}. Two hashes
   * of every column in one row-major pass, then one pass that checks each column against the first
   * column with its hashes; on a collision the exact grouping, {@link #columnClassesExact}. (Taking
   * a column at a time strides across the whole table once per class.)
   */
  static int[] columnClasses(int states, int k, int[] table) {
    long[] h1 = new long[k];
    long[] h2 = new long[k];
    for (int s = 0; s < states; s++) {
      int row = s * k;
      for (int c = 0; c < k; c++) {
        int v = table[row + c];
        h1[c] = h1[c] * 0x9E3779B97F4A7C15L + v;
        h2[c] = (h2[c] ^ v) * 0xC2B2AE3D27D4EB4FL + 1;
      }
    }
    int[] rep = new int[k];
    int[] reps = new int[k];
    int[] newClass = new int[k];
    int merged = 0;
    boolean anyMerged = false;
    for (int c = 0; c < k; c++) {
      rep[c] = c;
      for (int i = 0; i < merged; i++) {
        int d = reps[i];
        if (h1[d] == h1[c] && h2[d] == h2[c]) {
          rep[c] = d;
          break;
        }
      }
      if (rep[c] == c) {
        reps[merged] = c;
        newClass[c] = merged++;
      } else {
        newClass[c] = newClass[rep[c]];
        anyMerged = true;
      }
    }
    if (anyMerged) {
      for (int s = 0; s < states; s++) {
        int row = s * k;
        for (int c = 0; c < k; c++) {
          if (table[row + c] != table[row + rep[c]]) {
            return columnClassesExact(states, k, table);
          }
        }
      }
    }
    return newClass;
  }

  /** {@link #columnClasses} by comparing whole columns (its twin, and the collision fallback). */
  static int[] columnClassesExact(int states, int k, int[] table) {
    int[] newClass = new int[k];
    int merged = 0;
    HashMap<ColumnKey, Integer> seen = new HashMap<>();
    for (int c = 0; c < k; c++) {
      int[] col = new int[states];
      for (int s = 0; s < states; s++) {
        col[s] = table[s * k + c];
      }
      Integer id = seen.putIfAbsent(new ColumnKey(col), merged);
      if (id == null) {
        newClass[c] = merged++;
      } else {
        newClass[c] = id;
      }
    }
    return newClass;
  }

  private record ColumnKey(int[] col) {
    @Override
    public boolean equals(Object o) {
      return o instanceof ColumnKey c && Arrays.equals(c.col, col);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(col);
    }
  }
}
