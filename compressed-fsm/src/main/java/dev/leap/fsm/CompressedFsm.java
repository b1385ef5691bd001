package dev.leap.fsm;

import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.RegexParser;
import dev.leap.vocab.Utf8;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A regex compiled to a minimal byte-level DFA plus its <em>jump edges</em>, after SGLang's
 * compressed finite-state machine.
 *
 * <p>Pipeline: regex &rarr; syntax tree ({@link RegexParser}) &rarr; UTF-8 byte NFA ({@link Nfa})
 * &rarr; subset construction with a state limit ({@link Determinizer}) &rarr; Hopcroft minimization
 * and trimming ({@link Minimizer}) &rarr; jump edges.
 *
 * <p>Jump edges: a state is <em>singular</em> when it is not accepting (stopping would be the other
 * choice) and exactly one byte value leads out of it. From every state, the maximal chain of
 * singular states spells the state's forced bytes; the chain is cut back so that it never ends
 * inside a UTF-8 sequence (the state where it ends expects a new code point or may stop). A trimmed
 * DFA has no cycle of singular states (every state reaches acceptance), so chains are finite. Jump
 * bytes and targets are precomputed for every state at compile time.
 *
 * <p>Immutable and thread-safe.
 */
public final class CompressedFsm {
  /** Default limit on DFA states during determinization. */
  public static final int DEFAULT_MAX_DFA_STATES = 10_000;

  private static final byte[] NONE = new byte[0];

  private final String source;
  private final Dfa dfa;
  private final byte[][] jumpBytes;
  private final int[] jumpTarget;

  private CompressedFsm(String source, Dfa dfa) {
    this.source = source;
    this.dfa = dfa;
    int n = dfa.stateCount();
    this.jumpBytes = new byte[n][];
    this.jumpTarget = new int[n];
    computeJumps();
  }

  /** Compiles {@code regex} with the default state limit ({@value #DEFAULT_MAX_DFA_STATES}). */
  public static CompressedFsm compile(String regex) {
    return compile(regex, DEFAULT_MAX_DFA_STATES);
  }

  /**
   * Compiles {@code regex}.
   *
   * @throws RegexSyntaxException bad syntax or a feature outside the dialect
   * @throws AutomatonTooLargeException determinization needs more than {@code maxDfaStates} states
   * @throws EmptyLanguageException the regex matches nothing
   */
  public static CompressedFsm compile(String regex, int maxDfaStates) {
    return new CompressedFsm(
        regex, Automata.compileNonEmpty(RegexParser.parse(regex), regex, maxDfaStates));
  }

  /** Wraps an existing minimal, trimmed DFA (tests, or automata built elsewhere). */
  public static CompressedFsm of(Dfa dfa, String source) {
    return new CompressedFsm(source, dfa);
  }

  private void computeJumps() {
    int n = dfa.stateCount();
    int k = dfa.classCount();
    // Class sizes, to tell a single-byte class from a wider one.
    int[] classSize = new int[k];
    int[] classByte = new int[k];
    for (int b = 0; b < 256; b++) {
      int c = dfa.classOf(b);
      classSize[c]++;
      classByte[c] = b;
    }
    // forced[s] = the single byte out of a singular state, else -1.
    int[] forced = new int[n];
    for (int s = 0; s < n; s++) {
      forced[s] = -1;
      if (dfa.isAccepting(s)) {
        continue;
      }
      int live = 0;
      int only = -1;
      for (int c = 0; c < k && live <= 1; c++) {
        if (dfa.step(s, classByte[c]) != Dfa.DEAD) {
          live += classSize[c];
          only = classByte[c];
        }
      }
      if (live == 1) {
        forced[s] = only;
      }
    }
    ByteArrayOutputStream chain = new ByteArrayOutputStream();
    for (int s = 0; s < n; s++) {
      if (forced[s] < 0) {
        jumpBytes[s] = NONE;
        jumpTarget[s] = s;
        continue;
      }
      chain.reset();
      int t = s;
      int steps = 0;
      while (forced[t] >= 0 && steps <= n) {
        chain.write(forced[t]);
        t = dfa.step(t, forced[t]);
        steps++;
      }
      if (steps > n) {
        throw new IllegalStateException(
            "cycle of singular states at state " + s + " (DFA not trimmed?)");
      }
      byte[] bytes = chain.toByteArray();
      int cut = bytes.length;
      if (expectsContinuation(t)) {
        // The chain ends inside a UTF-8 sequence: cut back before its lead byte.
        cut = Utf8.lastCodePointStart(bytes);
      }
      if (cut == 0) {
        jumpBytes[s] = NONE;
        jumpTarget[s] = s;
      } else {
        jumpBytes[s] = cut == bytes.length ? bytes : Arrays.copyOf(bytes, cut);
        jumpTarget[s] = dfa.walk(s, jumpBytes[s]);
      }
    }
  }

  /**
   * Whether {@code state} is inside a UTF-8 sequence: not accepting and only continuation bytes
   * lead out.
   */
  private boolean expectsContinuation(int state) {
    if (dfa.isAccepting(state)) {
      return false;
    }
    boolean any = false;
    for (int b = 0; b < 256; b++) {
      if (dfa.step(state, b) != Dfa.DEAD) {
        if (!Utf8.isContinuation(b)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  /** The regex (or other source) this was compiled from. */
  public String source() {
    return source;
  }

  public Dfa dfa() {
    return dfa;
  }

  public int stateCount() {
    return dfa.stateCount();
  }

  /**
   * The forced bytes from {@code state}: empty when the state is accepting or has a choice. The
   * returned array is shared: do not modify it. It never ends inside a UTF-8 sequence, but starts
   * with continuation bytes when {@code state} itself is inside one.
   */
  public byte[] jumpBytes(int state) {
    return jumpBytes[state];
  }

  /** The state after {@link #jumpBytes(int)}; {@code state} itself when there is no jump. */
  public int jumpTarget(int state) {
    return jumpTarget[state];
  }

  /** Whether {@code state} has a jump edge. */
  public boolean hasJump(int state) {
    return jumpBytes[state].length > 0;
  }

  /**
   * The jump bytes as text. Leading continuation bytes (when {@code state} is inside a UTF-8
   * sequence) have no text of their own and are shown as U+FFFD; this is for display, the runtime
   * uses {@link #jumpBytes(int)}.
   */
  public String jumpString(int state) {
    CharsetDecoder d =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    try {
      return d.decode(ByteBuffer.wrap(jumpBytes[state])).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A Graphviz rendering: states, accepting states doubled, byte ranges on edges, jump edges
   * dashed.
   */
  public String toDot() {
    StringBuilder sb = new StringBuilder("digraph fsm {\n  rankdir=LR;\n");
    for (int s = 0; s < dfa.stateCount(); s++) {
      sb.append("  ")
          .append(s)
          .append(dfa.isAccepting(s) ? " [shape=doublecircle];\n" : " [shape=circle];\n");
      int from = s;
      dfa.forEachRange(
          s,
          (lo, hi, t) ->
              sb.append("  ")
                  .append(from)
                  .append(" -> ")
                  .append(t)
                  .append(" [label=\"")
                  .append(byteLabel(lo))
                  .append(hi > lo ? "-" + byteLabel(hi) : "")
                  .append("\"];\n"));
      if (hasJump(s)) {
        sb.append("  ")
            .append(s)
            .append(" -> ")
            .append(jumpTarget[s])
            .append(" [style=dashed, label=\"")
            .append(
                jumpString(s).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\\\n"))
            .append("\"];\n");
      }
    }
    return sb.append("}\n").toString();
  }

  private static String byteLabel(int b) {
    if (b > 0x20 && b < 0x7F && b != '"' && b != '\\') {
      return String.valueOf((char) b);
    }
    return String.format("\\\\x%02X", b);
  }

  /** Rough heap footprint in bytes. */
  public long ramBytesUsed() {
    long bytes =
        64L + (long) dfa.stateCount() * dfa.classCount() * 4 + 256 * 4 + dfa.stateCount() / 8;
    for (byte[] j : jumpBytes) {
      bytes += 16 + j.length;
    }
    return bytes + jumpTarget.length * 4L;
  }
}
