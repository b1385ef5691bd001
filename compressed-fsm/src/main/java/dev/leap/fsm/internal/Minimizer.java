package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/**
 * Hopcroft's DFA minimization (partition refinement with the "smaller half" rule, O(k n log n)),
 * then trimming and canonical renumbering.
 *
 * <p>The raw DFA is completed with an explicit sink; after refinement the block of the sink holds
 * every state that cannot reach acceptance, and becomes {@link Dfa#DEAD}. The remaining blocks are
 * numbered in breadth-first order from the initial state (so equal languages give equal tables),
 * and byte classes are re-merged where the minimal table no longer tells them apart.
 *
 * <p>Partition structure (Valmari-Lehtinen style arrays): {@code elems} is a permutation of the
 * states grouped by block, {@code loc[s]} the index of {@code s} in it, block {@code b} occupies
 * {@code [first[b], end[b])} and its marked states are {@code [first[b], mid[b])}.
 */
public final class Minimizer {
  private Minimizer() {}

  /** The minimal trimmed DFA, or {@code null} if the language is empty. */
  public static Dfa minimize(Determinizer.RawDfa raw) {
    int n = raw.states() + 1; // + sink
    int sink = raw.states();
    int k = raw.classes();
    int[] delta = new int[n * k];
    for (int s = 0; s < raw.states(); s++) {
      for (int c = 0; c < k; c++) {
        int t = raw.table()[s * k + c];
        delta[s * k + c] = t < 0 ? sink : t;
      }
    }
    for (int c = 0; c < k; c++) {
      delta[sink * k + c] = sink;
    }
    // Inverse transitions in CSR form per (class, target).
    int[] invStart = new int[n * k + 1];
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < k; c++) {
        invStart[c * n + delta[s * k + c] + 1]++;
      }
    }
    for (int i = 0; i < n * k; i++) {
      invStart[i + 1] += invStart[i];
    }
    int[] inv = new int[n * k];
    int[] fill = Arrays.copyOf(invStart, n * k);
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < k; c++) {
        inv[fill[c * n + delta[s * k + c]]++] = s;
      }
    }

    int[] elems = new int[n];
    int[] loc = new int[n];
    int[] blockOf = new int[n];
    int[] first = new int[n + 1];
    int[] end = new int[n + 1];
    int[] mid = new int[n + 1];
    int blocks = 0;
    // Initial partition: accepting, non-accepting (the sink is non-accepting).
    int p = 0;
    for (int pass = 0; pass < 2; pass++) {
      int startP = p;
      for (int s = 0; s < n; s++) {
        boolean acc = s < raw.states() && raw.accepting()[s];
        if (acc == (pass == 0)) {
          elems[p] = s;
          loc[s] = p;
          blockOf[s] = blocks;
          p++;
        }
      }
      if (p > startP) {
        first[blocks] = startP;
        end[blocks] = p;
        mid[blocks] = startP;
        blocks++;
      }
    }
    // Worklist of splitters (block, class); inWork[b * k + c].
    boolean[] inWork = new boolean[(n + 1) * k];
    IntArrayList work = new IntArrayList();
    for (int b = 0; b < blocks; b++) {
      for (int c = 0; c < k; c++) {
        inWork[b * k + c] = true;
        work.add(b * k + c);
      }
    }
    IntArrayList touched = new IntArrayList();
    int[] splitter = new int[n];
    while (!work.isEmpty()) {
      int item = work.popInt();
      int a = item / k;
      int c = item % k;
      inWork[item] = false;
      int size = end[a] - first[a];
      System.arraycopy(elems, first[a], splitter, 0, size);
      touched.clear();
      for (int i = 0; i < size; i++) {
        int t = splitter[i];
        for (int j = invStart[c * n + t]; j < invStart[c * n + t + 1]; j++) {
          int s = inv[j];
          int b = blockOf[s];
          int ls = loc[s];
          if (ls < mid[b]) {
            continue; // already marked
          }
          if (mid[b] == first[b]) {
            touched.add(b);
          }
          int other = elems[mid[b]];
          elems[ls] = other;
          loc[other] = ls;
          elems[mid[b]] = s;
          loc[s] = mid[b];
          mid[b]++;
        }
      }
      for (int ti = 0; ti < touched.size(); ti++) {
        int b = touched.getInt(ti);
        if (mid[b] == end[b]) {
          mid[b] = first[b]; // all marked: no split
          continue;
        }
        // New block z = the marked part [first, mid); b keeps [mid, end).
        int z = blocks++;
        first[z] = first[b];
        end[z] = mid[b];
        mid[z] = first[z];
        first[b] = mid[b];
        mid[b] = first[b];
        for (int i = first[z]; i < end[z]; i++) {
          blockOf[elems[i]] = z;
        }
        int sizeZ = end[z] - first[z];
        int sizeB = end[b] - first[b];
        for (int d = 0; d < k; d++) {
          if (inWork[b * k + d]) {
            inWork[z * k + d] = true;
            work.add(z * k + d);
          } else {
            int pick = sizeZ <= sizeB ? z : b;
            inWork[pick * k + d] = true;
            work.add(pick * k + d);
          }
        }
      }
    }
    int deadBlock = blockOf[sink];
    if (blockOf[0] == deadBlock) {
      return null;
    }
    // Renumber live blocks breadth-first from the initial state's block.
    int[] newId = new int[blocks];
    Arrays.fill(newId, -2);
    newId[deadBlock] = Dfa.DEAD;
    int[] order = new int[blocks];
    int count = 0;
    newId[blockOf[0]] = count;
    order[count++] = blockOf[0];
    for (int q = 0; q < count; q++) {
      int rep = elems[first[order[q]]];
      for (int c = 0; c < k; c++) {
        int tb = blockOf[delta[rep * k + c]];
        if (newId[tb] == -2) {
          newId[tb] = count;
          order[count++] = tb;
        }
      }
    }
    int[] table = new int[count * k];
    long[] accepting = new long[(count + 63) >>> 6];
    for (int q = 0; q < count; q++) {
      int rep = elems[first[order[q]]];
      for (int c = 0; c < k; c++) {
        table[q * k + c] = newId[blockOf[delta[rep * k + c]]];
      }
      if (rep < raw.states() && raw.accepting()[rep]) {
        accepting[q >>> 6] |= 1L << q;
      }
    }
    return mergeClasses(count, k, raw.classOf(), table, accepting);
  }

  /** Merges byte classes whose table columns are identical. */
  static Dfa mergeClasses(int states, int k, int[] classOf, int[] table, long[] accepting) {
    int[] newClass = new int[k];
    int merged = 0;
    java.util.HashMap<ColumnKey, Integer> seen = new java.util.HashMap<>();
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
    int[] newClassOf = new int[256];
    for (int b = 0; b < 256; b++) {
      newClassOf[b] = newClass[classOf[b]];
    }
    int[] newTable = new int[states * merged];
    for (int c = 0; c < k; c++) {
      int nc = newClass[c];
      for (int s = 0; s < states; s++) {
        newTable[s * merged + nc] = table[s * k + c];
      }
    }
    return new Dfa(states, newClassOf, merged, newTable, accepting);
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
