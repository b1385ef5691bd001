package dev.leap.fsm.internal;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.Excerpt;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Subset construction from an {@link Nfa} to a DFA over byte equivalence classes, with a state
 * limit. The classes are the coarsest partition of the 256 byte values such that every NFA edge
 * covers whole classes. The result is complete-with-dead: {@code table[s * classes + c]} is a DFA
 * state or {@code -1}; state 0 is initial. Every state is reachable; not every state can reach an
 * accepting one (the minimizer trims those).
 */
public final class Determinizer {
  private Determinizer() {}

  /** A DFA before minimization. */
  public record RawDfa(int states, int classes, int[] classOf, int[] table, boolean[] accepting) {}

  /** Most NFA-state entries summed over all DFA states' subsets (a memory and time limit). */
  public static final long MAX_SUBSET_WORK = 20_000_000L;

  public static RawDfa determinize(Nfa nfa, int maxStates, String source) {
    int[] classOf = byteClasses(nfa);
    int classes = 0;
    for (int c : classOf) {
      classes = Math.max(classes, c + 1);
    }
    int[] representative = new int[classes];
    for (int b = 255; b >= 0; b--) {
      representative[classOf[b]] = b;
    }
    int nStates = nfa.stateCount();
    int[] stamp = new int[nStates];
    int[] stack = new int[nStates];
    int[] stampHolder = {0};

    Map<SetKey, Integer> ids = new HashMap<>();
    IntArrayList table = new IntArrayList();
    ArrayList<int[]> sets = new ArrayList<>();
    IntArrayList acceptingList = new IntArrayList();

    int[] startSet = closure(nfa, new int[] {nfa.start}, 1, stamp, stack, stampHolder);
    ids.put(new SetKey(startSet), 0);
    long work = startSet.length;
    sets.add(startSet);

    IntArrayList[] buckets = new IntArrayList[classes];
    for (int c = 0; c < classes; c++) {
      buckets[c] = new IntArrayList();
    }
    for (int d = 0; d < sets.size(); d++) {
      int[] set = sets.get(d);
      acceptingList.add(Arrays.binarySearch(set, nfa.accept) >= 0 ? 1 : 0);
      for (int c = 0; c < classes; c++) {
        buckets[c].clear();
      }
      for (int s : set) {
        for (int e = nfa.firstEdge(s); e >= 0; e = nfa.nextEdge(e)) {
          int lo = classOf[nfa.edgeLo(e)];
          int hi = classOf[nfa.edgeHi(e)];
          int to = nfa.edgeTo(e);
          for (int c = lo; c <= hi; c++) {
            buckets[c].add(to);
          }
        }
      }
      for (int c = 0; c < classes; c++) {
        IntArrayList b = buckets[c];
        if (b.isEmpty()) {
          table.add(-1);
          continue;
        }
        int[] target = closure(nfa, b.elements(), b.size(), stamp, stack, stampHolder);
        SetKey key = new SetKey(target);
        Integer id = ids.get(key);
        if (id == null) {
          id = sets.size();
          if ((id & 63) == 0) {
            Interrupts.check();
          }
          if (id >= maxStates) {
            throw new AutomatonTooLargeException(source, maxStates, id + 1);
          }
          work += target.length;
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
          ids.put(key, id);
          sets.add(target);
        }
        table.add(id.intValue());
      }
    }
    boolean[] accepting = new boolean[sets.size()];
    for (int i = 0; i < accepting.length; i++) {
      accepting[i] = acceptingList.getInt(i) == 1;
    }
    return new RawDfa(sets.size(), classes, classOf, table.toIntArray(), accepting);
  }

  /** The sorted epsilon closure of {@code seeds[0..n)}. */
  private static int[] closure(
      Nfa nfa, int[] seeds, int n, int[] stamp, int[] stack, int[] stampHolder) {
    int mark = ++stampHolder[0];
    int sp = 0;
    IntArrayList out = new IntArrayList();
    for (int i = 0; i < n; i++) {
      int s = seeds[i];
      if (stamp[s] != mark) {
        stamp[s] = mark;
        stack[sp++] = s;
      }
    }
    while (sp > 0) {
      int s = stack[--sp];
      out.add(s);
      for (int e = nfa.firstEps(s); e >= 0; e = nfa.nextEps(e)) {
        int t = nfa.epsTo(e);
        if (stamp[t] != mark) {
          stamp[t] = mark;
          stack[sp++] = t;
        }
      }
    }
    int[] a = out.toIntArray();
    // Keep only states that matter: those with byte edges, and the accepting state.
    int k = 0;
    for (int s : a) {
      if (nfa.firstEdge(s) >= 0 || s == nfa.accept) {
        a[k++] = s;
      }
    }
    a = Arrays.copyOf(a, k);
    Arrays.sort(a);
    return a;
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

  private static final class SetKey {
    final int[] set;
    final int hash;

    SetKey(int[] set) {
      this.set = set;
      this.hash = Arrays.hashCode(set);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SetKey k && k.hash == hash && Arrays.equals(k.set, set);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
