package dev.leap.fsm.internal;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.Excerpt;
import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Thompson NFA over bytes, built from a {@link Re} tree: code point sets become UTF-8 byte-range
 * paths ({@link Utf8Ranges}). Stored in flat arrays: per state a linked list of byte-range edges
 * ({@code lo, hi, target}) and of epsilon edges. State {@link #start} is initial, {@link #accept}
 * the single accepting state.
 *
 * <p>A grammar rule's tree may hold calls ({@link Re.Call}): a resolved call is built as the path
 * of its marker bytes ({@link RuleCalls}), so the automata stay over bytes; an unresolved one is an
 * error.
 *
 * <p>The tree may be a DAG: a node object that occurs several times is built once per exit state
 * and entered by an epsilon edge from each use. That is exact because a Thompson fragment is
 * entered only at its entry and left only at its exit, so the language from its entry to a given
 * exit is the node's language wherever the path came from. The JSON Schema compiler relies on it:
 * the members after an optional one are one node in tail position of both the "present" and
 * "absent" choices, so they are built once instead of once per path (linear instead of quadratic).
 */
public final class Nfa {
  /** Most NFA states before compilation gives up (a repetition of a repetition can explode). */
  public static final int MAX_STATES = 1_000_000;

  private int states;
  // byte edges: linked list per state
  private int[] edgeHead = new int[64];
  private final IntArrayList edgeNext = new IntArrayList();
  private final IntArrayList edgeLo = new IntArrayList();
  private final IntArrayList edgeHi = new IntArrayList();
  private final IntArrayList edgeTo = new IntArrayList();
  // epsilon edges: linked list per state
  private int[] epsHead = new int[64];
  private final IntArrayList epsNext = new IntArrayList();
  private final IntArrayList epsTo = new IntArrayList();

  final int start;
  final int accept;
  private final String source;

  /** Nodes that occur more than once in the tree (by identity). */
  private final Set<Re> shared = Collections.newSetFromMap(new IdentityHashMap<>());

  /** Per shared node: exit state -> entry state of the fragment already built. */
  private final Map<Re, Int2IntOpenHashMap> built = new IdentityHashMap<>();

  private Nfa(String source, Map<Dfa, int[]> embeddings) {
    this.source = source;
    this.embeddings = embeddings;
    Arrays.fill(edgeHead, -1);
    Arrays.fill(epsHead, -1);
    this.start = newState();
    this.accept = newState();
  }

  /** Builds the NFA of {@code re}; {@code source} names the constraint in errors. */
  public static Nfa build(Re re, String source) {
    return build(re, source, new IdentityHashMap<>());
  }

  /**
   * As {@link #build(Re, String)}, reading the embedded automata's {@link #embedding}s from {@code
   * embeddings} and adding those it computes (a cache kept across the builds of one document).
   */
  public static Nfa build(Re re, String source, Map<Dfa, int[]> embeddings) {
    Nfa nfa = new Nfa(source, embeddings);
    nfa.findShared(re);
    nfa.add(re, nfa.start, nfa.accept);
    return nfa;
  }

  /** Marks the composite nodes reachable more than once from {@code root} (each visited once). */
  private void findShared(Re root) {
    Set<Re> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    ArrayDeque<Re> stack = new ArrayDeque<>();
    stack.push(root);
    while (!stack.isEmpty()) {
      Re re = stack.pop();
      if (re instanceof Re.Empty || re instanceof Re.Chars) {
        continue; // cheaper to build again than to enter by an epsilon edge
      }
      if (!seen.add(re)) {
        shared.add(re);
        continue;
      }
      if (re instanceof Re.Concat c) {
        c.items().forEach(stack::push);
      } else if (re instanceof Re.Alt a) {
        a.options().forEach(stack::push);
      } else if (re instanceof Re.Repeat r) {
        stack.push(r.item());
      }
    }
  }

  int stateCount() {
    return states;
  }

  private int newState() {
    if ((states & 1023) == 0) {
      Interrupts.check();
    }
    if (states == edgeHead.length) {
      int n = states * 2;
      edgeHead = Arrays.copyOf(edgeHead, n);
      epsHead = Arrays.copyOf(epsHead, n);
      Arrays.fill(edgeHead, states, n, -1);
      Arrays.fill(epsHead, states, n, -1);
    }
    if (states >= MAX_STATES) {
      throw new AutomatonTooLargeException(
          source,
          MAX_STATES,
          states,
          "the NFA would exceed its limit of "
              + MAX_STATES
              + " states: the constraint is too large to compile (a repetition of a large part, or a very large"
              + " schema): "
              + Excerpt.around(source, -1));
    }
    return states++;
  }

  private void edge(int from, int lo, int hi, int to) {
    int e = edgeTo.size();
    edgeLo.add(lo);
    edgeHi.add(hi);
    edgeTo.add(to);
    edgeNext.add(edgeHead[from]);
    edgeHead[from] = e;
  }

  private void eps(int from, int to) {
    int e = epsTo.size();
    epsTo.add(to);
    epsNext.add(epsHead[from]);
    epsHead[from] = e;
  }

  private void add(Re re, int from, int to) {
    if (shared.contains(re)) {
      Int2IntOpenHashMap byExit = built.computeIfAbsent(re, k -> new Int2IntOpenHashMap());
      int entry = byExit.getOrDefault(to, -1);
      if (entry < 0) {
        entry = newState();
        byExit.put(to, entry);
        addNode(re, entry, to);
      }
      eps(from, entry);
      return;
    }
    addNode(re, from, to);
  }

  private void addNode(Re re, int from, int to) {
    if (re instanceof Re.Empty) {
      eps(from, to);
    } else if (re instanceof Re.Chars c) {
      addChars(c.ranges(), from, to);
    } else if (re instanceof Re.Concat c) {
      addConcat(c.items(), from, to);
    } else if (re instanceof Re.Alt a) {
      for (Re o : a.options()) {
        int s = newState();
        eps(from, s);
        add(o, s, to);
      }
    } else if (re instanceof Re.Repeat r) {
      addRepeat(r, from, to);
    } else if (re instanceof Re.Automaton a) {
      addAutomaton(a.dfa(), from, to);
    } else if (re instanceof Re.Call c) {
      addCall(c, from, to);
    } else {
      throw new IllegalStateException("unknown node " + re);
    }
  }

  /**
   * A concatenation. A run of items {@code X} followed by {@code (S X)*} (a repetition, at least
   * zero times and unbounded, whose item ends with the same node objects as the run, nested
   * concatenations read flat: a list with separators, as JSON arrays and objects write it) is built
   * with {@code X} once: {@code cur -ε-> a -X-> l -S-> a}, and {@code l} goes on. The two copies of
   * {@code X} would otherwise have different exit states, be built twice, and double the subset
   * construction's states for the minimizer to merge again. Exact because a fragment never adds
   * edges into its entry state nor out of its exit state, so {@code a} and {@code l} are entered
   * and left only as written.
   */
  private void addConcat(List<Re> items, int from, int to) {
    int n = items.size();
    // runEnd[i] = j: items[i, j) is X and items[j] is (S X)*, the longest such X for that j;
    // separator[i] is S.
    int[] runEnd = null;
    List<Re>[] separator = null;
    for (int j = 1; j < n; j++) {
      if (items.get(j) instanceof Re.Repeat r
          && r.min() == 0
          && r.max() == -1
          && r.item() instanceof Re.Concat body) {
        List<Re> b = flat(body.items());
        int run = 0;
        while (run < b.size() - 1
            && run < j
            && b.get(b.size() - 1 - run) == items.get(j - 1 - run)) {
          run++;
        }
        if (run > 0) {
          if (runEnd == null) {
            runEnd = new int[n];
            @SuppressWarnings("unchecked")
            List<Re>[] seps = new List[n];
            separator = seps;
          }
          if (runEnd[j - run] == 0) {
            runEnd[j - run] = j;
            separator[j - run] = b.subList(0, b.size() - run);
          }
        }
      }
    }
    int cur = from;
    for (int i = 0; i < n; i++) {
      if (runEnd != null && runEnd[i] > 0) {
        int j = runEnd[i];
        List<Re> sep = separator[i];
        int a = newState();
        int l = newState();
        eps(cur, a);
        addChain(items, i, j, a, l);
        addChain(sep, 0, sep.size(), l, a);
        i = j;
        int next = i == n - 1 ? to : newState();
        eps(l, next);
        cur = next;
        continue;
      }
      int next = i == n - 1 ? to : newState();
      add(items.get(i), cur, next);
      cur = next;
    }
  }

  /** {@code items} with nested concatenations replaced by their items (the same language). */
  private static List<Re> flat(List<Re> items) {
    for (Re r : items) {
      if (r instanceof Re.Concat) {
        List<Re> out = new ArrayList<>();
        flatInto(items, out);
        return out;
      }
    }
    return items;
  }

  private static void flatInto(List<Re> items, List<Re> out) {
    for (Re r : items) {
      if (r instanceof Re.Concat c) {
        flatInto(c.items(), out);
      } else {
        out.add(r);
      }
    }
  }

  /** {@code items[i, j)} in sequence from {@code from} to {@code to} ({@code j > i}). */
  private void addChain(List<Re> items, int i, int j, int from, int to) {
    int cur = from;
    for (int k = i; k < j; k++) {
      int next = k == j - 1 ? to : newState();
      add(items.get(k), cur, next);
      cur = next;
    }
  }

  private void addRepeat(Re.Repeat r, int from, int to) {
    int cur = from;
    for (int i = 0; i < r.min(); i++) {
      int next = newState();
      add(r.item(), cur, next);
      cur = next;
    }
    if (r.max() == -1) {
      int loop = newState();
      eps(cur, loop);
      int body = newState();
      add(r.item(), loop, body);
      eps(body, loop);
      eps(loop, to);
      return;
    }
    for (int i = r.min(); i < r.max(); i++) {
      eps(cur, to);
      int next = newState();
      add(r.item(), cur, next);
      cur = next;
    }
    eps(cur, to);
  }

  /**
   * A resolved call: the path of its marker bytes ({@link RuleCalls#marker}), the one place a call
   * becomes bytes. An unresolved call (a rule named only) has no automaton: an error.
   */
  private void addCall(Re.Call c, int from, int to) {
    if (!c.isResolved()) {
      throw new IllegalArgumentException(
          "the tree of "
              + Excerpt.around(source, -1)
              + " calls rule \""
              + Excerpt.around(c.name(), -1)
              + "\""
              + (c.line() > 0 ? " (line " + c.line() + ", column " + c.column() + ")" : "")
              + " by name only: a call must be resolved to a compiled rule before its automaton is"
              + " built (grammar.GrammarTrees)");
    }
    addAutomaton(RuleCalls.marker(c.rule()), from, to);
  }

  /**
   * One NFA state per DFA state; byte runs with the same target become one range edge (read from
   * the automaton's {@link #embedding}).
   */
  private void addAutomaton(Dfa dfa, int from, int to) {
    int n = dfa.stateCount();
    int[] map = new int[n];
    for (int s = 0; s < n; s++) {
      map[s] = newState();
    }
    int[] form = embeddings.computeIfAbsent(dfa, Nfa::embedding);
    eps(from, map[form[1]]);
    for (int s = 0; s < n; s++) {
      if (form[2 + s] == 1) {
        eps(map[s], to);
      }
      for (int i = form[2 + n + s]; i < form[2 + n + s + 1]; i += 3) {
        edge(map[s], form[i], form[i + 1], map[form[i + 2]]);
      }
    }
  }

  /**
   * Per embedded automaton, its {@link #embedding} (an automaton is embedded once per use of its
   * node, once per exit state of a shared one, and in many trees of one JSON Schema document).
   */
  private final Map<Dfa, int[]> embeddings;

  /**
   * What building an NFA reads of {@code dfa} where a tree embeds it ({@link #addAutomaton}): its
   * state count {@code n}, initial state, accepting states ({@code 1} or {@code 0} each), then
   * {@code n + 1} offsets into the same array, state {@code s}'s byte runs ({@link
   * Dfa#forEachRange}) being the triples {@code (lo, hi, target)} from offset {@code s} to offset
   * {@code s + 1}. Two automata with equal forms are built into equal NFAs (the JSON Schema
   * compiler's cache of trees keys embedded automata by it).
   */
  public static int[] embedding(Dfa dfa) {
    int n = dfa.stateCount();
    IntArrayList out = new IntArrayList();
    out.size(2 + n + n + 1);
    out.set(0, n);
    out.set(1, dfa.initialState());
    for (int s = 0; s < n; s++) {
      out.set(2 + s, dfa.isAccepting(s) ? 1 : 0);
    }
    for (int s = 0; s < n; s++) {
      out.set(2 + n + s, out.size());
      dfa.forEachRange(
          s,
          (lo, hi, t) -> {
            out.add(lo);
            out.add(hi);
            out.add(t);
          });
    }
    out.set(2 + n + n, out.size());
    return out.toIntArray();
  }

  /**
   * The byte paths of a code point set. Paths are built from their last byte backwards and their
   * inner states shared: a state that only reads bytes {@code lo..hi} into {@code target} is made
   * once per NFA ({@link #suffixes}), so the continuation bytes of every multi-byte sequence into
   * the same target share states (otherwise each lead byte range would get its own copies, and the
   * subset construction would carry them as distinct DFA states).
   */
  private void addChars(int[] ranges, int from, int to) {
    for (int[] seq : Utf8Ranges.sequences(ranges)) {
      int n = seq.length / 2;
      int next = to;
      for (int k = n - 1; k >= 1; k--) {
        next = suffixState(seq[2 * k], seq[2 * k + 1], next);
      }
      edge(from, seq[0], seq[1], next);
    }
  }

  /** Inner path states by (lo, hi, target): each has exactly one edge, {@code lo..hi -> target}. */
  private final Long2IntOpenHashMap suffixes = new Long2IntOpenHashMap();

  private int suffixState(int lo, int hi, int target) {
    long key = ((long) target << 16) | (lo << 8) | hi;
    int s = suffixes.getOrDefault(key, -1);
    if (s < 0) {
      s = newState();
      edge(s, lo, hi, target);
      suffixes.put(key, s);
    }
    return s;
  }

  // --- access for the determinizer

  int firstEdge(int state) {
    return edgeHead[state];
  }

  int nextEdge(int e) {
    return edgeNext.getInt(e);
  }

  int edgeLo(int e) {
    return edgeLo.getInt(e);
  }

  int edgeHi(int e) {
    return edgeHi.getInt(e);
  }

  int edgeTo(int e) {
    return edgeTo.getInt(e);
  }

  int firstEps(int state) {
    return epsHead[state];
  }

  int nextEps(int e) {
    return epsNext.getInt(e);
  }

  int epsTo(int e) {
    return epsTo.getInt(e);
  }

  int edgeCount() {
    return edgeTo.size();
  }
}
