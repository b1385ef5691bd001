package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import java.util.Arrays;

/**
 * The minimizer as it was before it read the raw table once into lists of defined transitions
 * (issue 27): every step on the dense table ({@code states x classes}). The twin {@code
 * MinimizerTest} compares {@link Minimizer#minimize} against; the partition refinement is the same
 * (Valmari and Lehtinen, see {@link Minimizer}).
 */
final class DenseMinimizer {
  private DenseMinimizer() {}

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

    /** Marks {@code e} (each element at most once between splits). */
    void mark(int e) {
      int s = setOf[e];
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
  static Dfa minimize(Determinizer.RawDfa raw) {
    int k = raw.classes();
    int[] live = liveStates(raw);
    int n = 0;
    int[] id = new int[raw.states()];
    for (int s = 0; s < raw.states(); s++) {
      id[s] = live[s] == 1 ? n++ : -1;
    }
    if (n == 0 || id[0] < 0) {
      return null;
    }
    boolean[] acceptingState = new boolean[n];
    int[] delta = new int[n * k];
    int m = 0;
    int[] perClass = new int[k + 1];
    for (int s = 0; s < raw.states(); s++) {
      if (id[s] < 0) {
        continue;
      }
      acceptingState[id[s]] = raw.accepting()[s];
      for (int c = 0; c < k; c++) {
        int t = raw.table()[s * k + c];
        int d = t < 0 ? -1 : id[t];
        delta[id[s] * k + c] = d;
        if (d >= 0) {
          m++;
          perClass[c + 1]++;
        }
      }
    }
    // Transitions (tail, class, head), numbered by class (a counting sort): the initial cords.
    for (int c = 0; c < k; c++) {
      perClass[c + 1] += perClass[c];
    }
    int[] tail = new int[m];
    int[] head = new int[m];
    int[] next = Arrays.copyOf(perClass, k);
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < k; c++) {
        int t = delta[s * k + c];
        if (t >= 0) {
          int i = next[c]++;
          tail[i] = s;
          head[i] = t;
        }
      }
    }
    // Incoming transitions per state (CSR).
    int[] inStart = new int[n + 1];
    for (int i = 0; i < m; i++) {
      inStart[head[i] + 1]++;
    }
    for (int s = 0; s < n; s++) {
      inStart[s + 1] += inStart[s];
    }
    int[] incoming = new int[m];
    int[] fill = Arrays.copyOf(inStart, n);
    for (int i = 0; i < m; i++) {
      incoming[fill[head[i]]++] = i;
    }

    Partition blocks = new Partition(n);
    for (int s = 0; s < n; s++) {
      if (acceptingState[s]) {
        blocks.mark(s);
      }
    }
    blocks.split();
    Partition cords = new Partition(m);
    if (m > 0) {
      cords.sets = 0;
      for (int c = 0; c < k; c++) {
        if (perClass[c + 1] > perClass[c]) {
          int z = cords.sets++;
          cords.first[z] = perClass[c];
          cords.past[z] = perClass[c + 1];
          for (int i = perClass[c]; i < perClass[c + 1]; i++) {
            cords.setOf[i] = z;
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
            cords.mark(incoming[j]);
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
      for (int c = 0; c < k; c++) {
        int t = delta[rep * k + c];
        if (t >= 0 && newId[blocks.setOf[t]] == -2) {
          newId[blocks.setOf[t]] = count;
          order[count++] = blocks.setOf[t];
        }
      }
    }
    int[] table = new int[count * k];
    long[] accepting = new long[(count + 63) >>> 6];
    for (int q = 0; q < count; q++) {
      int rep = blocks.elems[blocks.first[order[q]]];
      for (int c = 0; c < k; c++) {
        int t = delta[rep * k + c];
        table[q * k + c] = t < 0 ? Dfa.DEAD : newId[blocks.setOf[t]];
      }
      if (acceptingState[rep]) {
        accepting[q >>> 6] |= 1L << q;
      }
    }
    return Minimizer.mergeClasses(count, k, raw.classOf(), table, accepting);
  }

  /**
   * 1 for the states that are reachable from the initial state and can reach an accepting state,
   * else 0 (the raw DFA's states are all reachable; co-reachability is a backward search).
   */
  private static int[] liveStates(Determinizer.RawDfa raw) {
    int n = raw.states();
    int k = raw.classes();
    int[] predStart = new int[n + 1];
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < k; c++) {
        int t = raw.table()[s * k + c];
        if (t >= 0) {
          predStart[t + 1]++;
        }
      }
    }
    for (int i = 0; i < n; i++) {
      predStart[i + 1] += predStart[i];
    }
    int[] pred = new int[predStart[n]];
    int[] fill = Arrays.copyOf(predStart, n);
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < k; c++) {
        int t = raw.table()[s * k + c];
        if (t >= 0) {
          pred[fill[t]++] = s;
        }
      }
    }
    int[] live = new int[n];
    int[] stack = new int[n];
    int sp = 0;
    for (int s = 0; s < n; s++) {
      if (raw.accepting()[s]) {
        live[s] = 1;
        stack[sp++] = s;
      }
    }
    while (sp > 0) {
      int t = stack[--sp];
      for (int j = predStart[t]; j < predStart[t + 1]; j++) {
        int s = pred[j];
        if (live[s] == 0) {
          live[s] = 1;
          stack[sp++] = s;
        }
      }
    }
    return live;
  }
}
