package dev.leap.fsm.grammar;

import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.LoopRegion;
import dev.leap.fsm.internal.RuleCalls;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One compiled rule: a minimal byte DFA whose edges may also <em>call</em> another compiled rule.
 *
 * <p>How calls get into a DFA built by the ordinary pipeline: a call of compiled rule {@code k} is
 * a {@link dev.leap.fsm.internal.Re.Call} node of the rule's tree, which the NFA builder writes as
 * a four-byte <em>marker</em> ({@link RuleCalls}, the one place of the encoding) {@code FF d2 d1
 * d0} (the decimal digits of {@code k} as bytes {@code F5..FE}): the automata stay over bytes.
 * Bytes {@code F5..FF} never occur in UTF-8, and a grammar's text is UTF-8 (literals and classes
 * are code points), so markers cannot collide with text. After determinization and minimization,
 * this class decodes them: a marker path {@code s -FF-> x -d2-> y -d1-> z -d0-> t} is read back as
 * the call edge {@code s --k--> t}; the inner states {@code x, y, z} are never entered by {@link
 * #step} (which rejects bytes {@code F5..FF}, so a token holding such a byte is rejected as it must
 * be).
 *
 * <p>Invariants: state 0 is the initial state; accepting means the rule may end (return) there;
 * every state reachable from 0 can reach acceptance, given that every called rule can finish (the
 * grammar checks guarantee that). Immutable.
 */
final class RuleAutomaton {
  /** First byte of a call marker ({@link RuleCalls}). */
  static final int MARK = RuleCalls.MARK;

  /** Digit bytes are {@code DIGIT0 .. DIGIT0 + 9}. */
  static final int DIGIT0 = RuleCalls.DIGIT0;

  /** Most compiled rules a grammar may have (three decimal digits). */
  static final int MAX_RULES = RuleCalls.MAX_RULES;

  final String name;
  final Dfa dfa;

  /**
   * Call edges of state s: {@code callee[i], callTarget[i]} for {@code i in [callStart[s],
   * callStart[s+1])}.
   */
  final int[] callStart;

  final int[] callee;
  final int[] callTarget;

  /** Per state, the text bytes (0..F4) with a transition: four words per state. */
  final long[] byteSets;

  /** States reachable from 0 through text bytes and whole calls (marker inner states excluded). */
  final int liveStates;

  /**
   * Per state: {@link #HAS_CALLS}, {@link #HAS_BYTES}, {@link #ACCEPTING} bits (one load on hot
   * paths).
   */
  final byte[] kind;

  static final int HAS_CALLS = 1;
  static final int HAS_BYTES = 2;
  static final int ACCEPTING = 4;

  RuleAutomaton(String name, Dfa dfa) {
    this.name = name;
    this.dfa = dfa;
    int n = dfa.stateCount();
    loops = new AtomicReferenceArray<>(n);
    callStart = new int[n + 1];
    IntArrayList callees = new IntArrayList();
    IntArrayList targets = new IntArrayList();
    byteSets = new long[4 * n];
    for (int s = 0; s < n; s++) {
      callStart[s] = callees.size();
      int base = 4 * s;
      dfa.forEachRange(
          s,
          (lo, hi, t) -> {
            for (int b = lo; b <= Math.min(hi, DIGIT0 - 1); b++) {
              byteSets[base + (b >>> 6)] |= 1L << b;
            }
          });
      int x = dfa.step(s, MARK);
      if (x != Dfa.DEAD) {
        for (int d2 = 0; d2 < 10; d2++) {
          int y = dfa.step(x, DIGIT0 + d2);
          if (y == Dfa.DEAD) {
            continue;
          }
          for (int d1 = 0; d1 < 10; d1++) {
            int z = dfa.step(y, DIGIT0 + d1);
            if (z == Dfa.DEAD) {
              continue;
            }
            for (int d0 = 0; d0 < 10; d0++) {
              int t = dfa.step(z, DIGIT0 + d0);
              if (t != Dfa.DEAD) {
                callees.add(100 * d2 + 10 * d1 + d0);
                targets.add(t);
              }
            }
          }
        }
      }
    }
    callStart[n] = callees.size();
    callee = callees.toIntArray();
    callTarget = targets.toIntArray();
    // Live states: from 0 through text bytes and whole calls.
    boolean[] seen = new boolean[n];
    int[] todo = new int[n];
    int tail = 0;
    todo[tail++] = 0;
    seen[0] = true;
    for (int head = 0; head < tail; head++) {
      int s = todo[head];
      for (int w = 0; w < 4; w++) {
        for (long bits = byteSets[4 * s + w]; bits != 0; bits &= bits - 1) {
          int t = dfa.step(s, 64 * w + Long.numberOfTrailingZeros(bits));
          if (!seen[t]) {
            seen[t] = true;
            todo[tail++] = t;
          }
        }
      }
      for (int i = callStart[s]; i < callStart[s + 1]; i++) {
        if (!seen[callTarget[i]]) {
          seen[callTarget[i]] = true;
          todo[tail++] = callTarget[i];
        }
      }
    }
    liveStates = tail;
    kind = new byte[n];
    for (int s = 0; s < n; s++) {
      kind[s] =
          (byte)
              ((callStart[s] < callStart[s + 1] ? HAS_CALLS : 0)
                  | (hasBytes(s) ? HAS_BYTES : 0)
                  | (dfa.isAccepting(s) ? ACCEPTING : 0));
    }
  }

  int stateCount() {
    return dfa.stateCount();
  }

  /** The state after text byte {@code b}, or {@link Dfa#DEAD} (always for bytes F5..FF). */
  int step(int state, int b) {
    b &= 0xFF;
    return b >= DIGIT0 ? Dfa.DEAD : dfa.step(state, b);
  }

  boolean isAccepting(int state) {
    return dfa.isAccepting(state);
  }

  /** Whether some text byte leads out of {@code state}. */
  boolean hasBytes(int state) {
    int base = 4 * state;
    return (byteSets[base] | byteSets[base + 1] | byteSets[base + 2] | byteSets[base + 3]) != 0;
  }

  /**
   * Text bytes {@code L} (four words, a 256-bit set) such that a token made only of them leaves
   * {@code state} alive in this rule: the bytes {@code b} with {@code step(state, b) = t} and
   * {@code step(t, b) = t} for one successor {@code t} (the one with the most), so such a token
   * goes to {@code t} and stays there. With {@code t = state}, the state's self-loop bytes (inside
   * a string, an identifier); otherwise the state just before such a loop (after an opening quote).
   * Computed once per state and shared: do not modify.
   */
  long[] loopBytes(int state) {
    long[] l = loops.get(state);
    if (l == null) {
      l = LoopRegion.loopBytes(dfa::step, state, Dfa.DEAD, DIGIT0);
      if (!loops.compareAndSet(state, null, l)) {
        l = loops.get(state);
      }
    }
    return l;
  }

  /** {@link #loopBytes} per state, filled on first use (the same from any thread). */
  private final AtomicReferenceArray<long[]> loops;

  /**
   * The loop region of {@code state} ({@link LoopRegion}) over this rule's text alone, or null:
   * null also when the state may end the rule or calls one, and the region never holds such a
   * state. So a token that stays in the region stays alive in this rule and cannot end it, and a
   * token that leaves it holds an exit byte; one that does neither dies inside the rule without its
   * end: rejected whatever the stack.
   */
  LoopRegion region(int state) {
    if ((kind[state] & (HAS_CALLS | ACCEPTING)) != 0) {
      return null;
    }
    LoopRegion.Finder f = regions;
    if (f == null) {
      f = LoopRegion.finder(textOnly());
      regions = f;
    }
    return f.of(state);
  }

  /** Built on first use by {@link #region} (the same from any thread). */
  private volatile LoopRegion.Finder regions;

  /**
   * This rule's DFA without calls and without the edges out of the states that may end the rule or
   * call one (every state accepting, so the result is a valid DFA): a loop found in it is a loop of
   * plain text in which the rule can neither end nor call.
   */
  private Dfa textOnly() {
    int n = dfa.stateCount();
    int classes = dfa.classCount() + 1;
    int[] classOf = new int[256];
    int[] rep = new int[classes];
    java.util.Arrays.fill(rep, -1);
    for (int b = 0; b < 256; b++) {
      classOf[b] = b < DIGIT0 ? dfa.classOf(b) : classes - 1;
      if (rep[classOf[b]] < 0) {
        rep[classOf[b]] = b;
      }
    }
    int[] table = new int[n * classes];
    for (int s = 0; s < n; s++) {
      boolean stops = (kind[s] & (HAS_CALLS | ACCEPTING)) != 0;
      for (int c = 0; c < classes; c++) {
        table[s * classes + c] =
            stops || rep[c] < 0 || c == classes - 1 ? Dfa.DEAD : dfa.step(s, rep[c]);
      }
    }
    long[] all = new long[(n + 63) >>> 6];
    java.util.Arrays.fill(all, -1L);
    return new Dfa(n, classOf, classes, table, all);
  }

  boolean hasByte(int state, int b) {
    return (byteSets[4 * state + ((b & 0xFF) >>> 6)] & (1L << b)) != 0;
  }
}
