package dev.leap.fsm;

import java.util.Arrays;

/**
 * A deterministic finite automaton over bytes, compiled to a dense table.
 *
 * <p>Encoding: states are ints {@code 0 .. stateCount()-1}, the initial state is {@code 0}, and the
 * implicit reject state is {@link #DEAD} ({@code -1}). The 256 byte values are partitioned into
 * {@code classCount()} equivalence classes ({@code classOf[b]}); the transition of state {@code s}
 * on byte {@code b} is {@code table[s * classCount + classOf[b & 0xFF]]}. Accepting states are a
 * bitset, bit {@code s} of {@code accepting[s >>> 6]}.
 *
 * <p>Invariants (for automata built by {@link CompressedFsm}): minimal and trimmed, so every state
 * can reach an accepting state and no transition leads to a dead state other than {@link #DEAD}.
 * Instances are immutable and thread-safe. As a {@link ByteAutomaton}, its states are the table's
 * rows.
 */
public final class Dfa implements ByteAutomaton {
  /** The implicit reject state (equal to {@link ByteAutomaton#DEAD}). */
  public static final int DEAD = -1;

  private final int stateCount;
  private final int classCount;
  private final int[] classOf;
  private final int[] table;
  private final long[] accepting;

  /** Maximal runs of bytes with one class: {@code lo, hi, class} triples in byte order. */
  private final int[] classRuns;

  /**
   * @param stateCount number of states
   * @param classOf 256 entries, byte value to class {@code 0 .. classCount-1}
   * @param classCount number of byte classes
   * @param table {@code stateCount * classCount} targets, each a state or {@link #DEAD}
   * @param accepting bitset of accepting states, at least {@code ceil(stateCount / 64)} words
   */
  public Dfa(int stateCount, int[] classOf, int classCount, int[] table, long[] accepting) {
    if (stateCount < 1) {
      throw new IllegalArgumentException("a DFA needs at least one state, got " + stateCount);
    }
    if (classOf.length != 256) {
      throw new IllegalArgumentException("classOf must have 256 entries, got " + classOf.length);
    }
    for (int c : classOf) {
      if (c < 0 || c >= classCount) {
        throw new IllegalArgumentException("byte class " + c + " outside 0.." + (classCount - 1));
      }
    }
    if (table.length != stateCount * classCount) {
      throw new IllegalArgumentException(
          "table has " + table.length + " entries, expected " + stateCount * classCount);
    }
    for (int t : table) {
      if (t < DEAD || t >= stateCount) {
        throw new IllegalArgumentException(
            "transition target " + t + " outside -1.." + (stateCount - 1));
      }
    }
    if (accepting.length < (stateCount + 63) >>> 6) {
      throw new IllegalArgumentException(
          "accepting bitset too short: " + accepting.length + " words");
    }
    this.stateCount = stateCount;
    this.classCount = classCount;
    this.classOf = classOf.clone();
    this.table = table.clone();
    this.accepting = Arrays.copyOf(accepting, (stateCount + 63) >>> 6);
    int[] runs = new int[3 * 256];
    int r = 0;
    for (int b = 0; b < 256; b++) {
      if (b == 0 || classOf[b] != classOf[b - 1]) {
        runs[r++] = b;
        runs[r++] = b;
        runs[r++] = classOf[b];
      } else {
        runs[r - 2] = b;
      }
    }
    this.classRuns = Arrays.copyOf(runs, r);
  }

  @Override
  public int initialState() {
    return 0;
  }

  public int stateCount() {
    return stateCount;
  }

  public int classCount() {
    return classCount;
  }

  /** The equivalence class of byte {@code b} (only its low 8 bits are used). */
  public int classOf(int b) {
    return classOf[b & 0xFF];
  }

  /**
   * The state after byte {@code b} from {@code state}, or {@link #DEAD}. {@code state} must be
   * live.
   */
  public int step(int state, int b) {
    return table[state * classCount + classOf[b & 0xFF]];
  }

  /**
   * The state after the bytes {@code [from, to)} from {@code state}, or {@link #DEAD} once it dies.
   */
  @Override
  public int walk(int state, byte[] bytes, int from, int to) {
    int s = state;
    for (int i = from; i < to && s != DEAD; i++) {
      s = table[s * classCount + classOf[bytes[i] & 0xFF]];
    }
    return s;
  }

  /** The state after all of {@code bytes} from {@code state}, or {@link #DEAD}. */
  @Override
  public int walk(int state, byte[] bytes) {
    return walk(state, bytes, 0, bytes.length);
  }

  @Override
  public boolean isAccepting(int state) {
    return state >= 0 && (accepting[state >>> 6] & (1L << state)) != 0;
  }

  /** Whether the whole of {@code input} is in the language. */
  public boolean matches(byte[] input) {
    return isAccepting(walk(0, input));
  }

  /** Receives one maximal run of bytes {@code lo..hi} with the same live target. */
  @FunctionalInterface
  public interface RangeConsumer {
    void accept(int lo, int hi, int target);
  }

  /** The live transitions of {@code state} as maximal byte runs with one target, in byte order. */
  public void forEachRange(int state, RangeConsumer out) {
    int base = state * classCount;
    int lo = 0;
    int target = table[base + classRuns[2]];
    for (int r = 3; r < classRuns.length; r += 3) {
      int t = table[base + classRuns[r + 2]];
      if (t != target) {
        if (target != DEAD) {
          out.accept(lo, classRuns[r] - 1, target);
        }
        lo = classRuns[r];
        target = t;
      }
    }
    if (target != DEAD) {
      out.accept(lo, 255, target);
    }
  }

  /** Whether {@code state} has at least one live outgoing byte. */
  @Override
  public boolean hasTransitions(int state) {
    int base = state * classCount;
    for (int c = 0; c < classCount; c++) {
      if (table[base + c] != DEAD) {
        return true;
      }
    }
    return false;
  }
}
