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
 *
 * <p>Per DFA state the classes are cut into segments at the bounds of the state's edges; the
 * classes of a segment have the same NFA targets, so each segment takes one closure and one look-up
 * (a string's content is one segment, not dozens of classes), and a segment whose targets equal the
 * previous segment's takes its state. The table is the one computing every class's closure would
 * give ({@code DeterminizerTest} keeps that twin).
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
    int[] found = new int[nStates];
    int[] stampHolder = {0};

    Map<SetKey, Integer> ids = new HashMap<>();
    // The table row by row, grown by doubling (a large DFA's table is millions of entries).
    int[] table = new int[classes * 64];
    int tableSize = 0;
    ArrayList<int[]> sets = new ArrayList<>();
    IntArrayList acceptingList = new IntArrayList();

    int[] startSet = closure(nfa, new int[] {nfa.start}, 1, stamp, stack, found, stampHolder);
    ids.put(new SetKey(startSet), 0);
    long work = startSet.length;
    sets.add(startSet);

    // Per DFA state, the classes are cut into segments at the state's edge bounds: every class of
    // a segment has the same NFA targets (its bucket), so a segment needs one closure.
    IntArrayList[] buckets = new IntArrayList[classes];
    for (int c = 0; c < classes; c++) {
      buckets[c] = new IntArrayList();
    }
    boolean[] cut = new boolean[classes + 1];
    int[] segStart = new int[classes + 1];
    int[] segOf = new int[classes];
    for (int d = 0; d < sets.size(); d++) {
      int[] set = sets.get(d);
      acceptingList.add(Arrays.binarySearch(set, nfa.accept) >= 0 ? 1 : 0);
      cut[0] = true;
      for (int s : set) {
        for (int e = nfa.firstEdge(s); e >= 0; e = nfa.nextEdge(e)) {
          cut[classOf[nfa.edgeLo(e)]] = true;
          cut[classOf[nfa.edgeHi(e)] + 1] = true;
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
      for (int s : set) {
        for (int e = nfa.firstEdge(s); e >= 0; e = nfa.nextEdge(e)) {
          int hi = classOf[nfa.edgeHi(e)];
          int to = nfa.edgeTo(e);
          for (int i = segOf[classOf[nfa.edgeLo(e)]]; segStart[i] <= hi; i++) {
            buckets[i].add(to);
          }
        }
      }
      if (tableSize + classes > table.length) {
        table = Arrays.copyOf(table, Math.max(2 * table.length, tableSize + classes));
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
        } else {
          int[] target = closure(nfa, b.elements(), b.size(), stamp, stack, found, stampHolder);
          SetKey key = new SetKey(target);
          Integer known = ids.get(key);
          if (known == null) {
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
          } else {
            id = known;
          }
        }
        Arrays.fill(table, tableSize + segStart[i], tableSize + segStart[i + 1], id);
        previous = id;
      }
      tableSize += classes;
    }
    boolean[] accepting = new boolean[sets.size()];
    for (int i = 0; i < accepting.length; i++) {
      accepting[i] = acceptingList.getInt(i) == 1;
    }
    return new RawDfa(sets.size(), classes, classOf, Arrays.copyOf(table, tableSize), accepting);
  }

  /**
   * The sorted epsilon closure of {@code seeds[0..n)}, kept to the states that matter: those with
   * byte edges, and the accepting state ({@code found}: scratch space, one entry per NFA state).
   */
  private static int[] closure(
      Nfa nfa, int[] seeds, int n, int[] stamp, int[] stack, int[] found, int[] stampHolder) {
    int mark = ++stampHolder[0];
    int sp = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
      int s = seeds[i];
      if (stamp[s] != mark) {
        stamp[s] = mark;
        stack[sp++] = s;
      }
    }
    while (sp > 0) {
      int s = stack[--sp];
      if (nfa.firstEdge(s) >= 0 || s == nfa.accept) {
        found[k++] = s;
      }
      for (int e = nfa.firstEps(s); e >= 0; e = nfa.nextEps(e)) {
        int t = nfa.epsTo(e);
        if (stamp[t] != mark) {
          stamp[t] = mark;
          stack[sp++] = t;
        }
      }
    }
    int[] a = Arrays.copyOf(found, k);
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
