package dev.leap.retokenize;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.Utf8;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns a jump string into the tokens the model would have written itself (SGLang's compressed-FSM
 * jump with retokenization, with llguidance-style boundary healing).
 *
 * <p>For output tokens {@code O} and jump bytes {@code J}:
 *
 * <ol>
 *   <li>Re-encode a bounded window: the bytes of the last {@value #WINDOW} output tokens (moved
 *       back to a character boundary) followed by {@code J}. If even the window's first token
 *       changes, the window grows (up to the whole output): a first token that survives means the
 *       window started at a point the pre-tokenizer splits, so the result agrees with re-encoding
 *       everything.
 *   <li>{@code k} = where the old and the new tokens first differ: {@code O[k:]} is dropped, the
 *       new tokens after {@code k} are appended.
 *   <li>Boundary healing: of the last (up to {@value #HEAL_LOOKBACK}) appended tokens, the longest
 *       suffix whose bytes are a proper prefix of a longer token that the automaton allows from the
 *       same point is held back: the model may cover those bytes with a longer token (e.g. {@code
 *       "} then {@code name} vs {@code "name}). The held-back bytes stay forced by the mask.
 * </ol>
 *
 * Only output tokens are ever re-encoded, never the prompt. Thread-safe (no mutable state).
 */
public final class JumpRetokenizer {
  /** Output tokens re-encoded with the jump string at first. */
  public static final int WINDOW = 8;

  /** Most trailing tokens boundary healing may hold back. */
  public static final int HEAL_LOOKBACK = 4;

  private final Tokenizer tokenizer;
  private final ByteAutomaton dfa;
  private final boolean healing;
  private final SortedVocabulary sorted;
  private final int window;

  public JumpRetokenizer(Tokenizer tokenizer, ByteAutomaton dfa, boolean healing) {
    this(tokenizer, dfa, healing, WINDOW);
  }

  private JumpRetokenizer(JumpRetokenizer base, ByteAutomaton automaton) {
    this.window = base.window;
    this.tokenizer = base.tokenizer;
    this.dfa = automaton;
    this.healing = base.healing;
    this.sorted = base.sorted;
  }

  /**
   * The same retokenizer over another automaton with the same vocabulary (a grammar request's own
   * matcher), sharing the sorted vocabulary: cheap, unlike the constructor.
   */
  public JumpRetokenizer with(ByteAutomaton automaton) {
    return new JumpRetokenizer(this, automaton);
  }

  /**
   * With a given window; {@code Integer.MAX_VALUE} re-encodes the whole output (the naive twin in
   * tests).
   */
  JumpRetokenizer(Tokenizer tokenizer, ByteAutomaton dfa, boolean healing, int window) {
    this.window = window;
    this.tokenizer = tokenizer;
    this.dfa = dfa;
    this.healing = healing;
    this.sorted = healing ? SortedVocabulary.of(tokenizer) : null;
  }

  /**
   * Plans a jump.
   *
   * @param output the output tokens, {@code output[0, length)}
   * @param states the automaton state (a {@link dev.leap.fsm.Dfa} row or a grammar matcher state)
   *     before each output token; {@code states[length]} is the current state
   * @param jump the forced bytes from the current state
   * @return the plan, or {@code null} when the jump would change nothing (everything held back) or
   *     the text cannot be re-encoded exactly (then the mask forces the bytes token by token)
   */
  public JumpPlan plan(int[] output, int length, int[] states, byte[] jump) {
    if (jump.length == 0) {
      return null;
    }
    int w = window >= length ? 0 : length - window;
    int[] fresh;
    int common;
    while (true) {
      w = charBoundary(output, w);
      byte[] window = concat(tokenizer.bytes(output, w, length), jump);
      String text = strictUtf8(window);
      if (text == null) {
        return null;
      }
      fresh = tokenizer.encode(text);
      if (!Arrays.equals(tokenizer.bytes(fresh, 0, fresh.length), window)) {
        return null; // the tokenizer does not round-trip these bytes
      }
      common = 0;
      while (common < fresh.length && w + common < length && fresh[common] == output[w + common]) {
        common++;
      }
      if (common > 0 || w == 0) {
        break;
      }
      w = Math.max(0, w - 2 * (length - w));
    }
    int keep = w + common;
    int[] append = Arrays.copyOfRange(fresh, common, fresh.length);
    int[] after = new int[append.length];
    int s = states[keep];
    for (int i = 0; i < append.length; i++) {
      byte[] b = tokenizer.tokenBytes(append[i]);
      s = dfa.walk(s, b, 0, b.length);
      if (s == ByteAutomaton.DEAD) {
        return null;
      }
      after[i] = s;
    }
    int hold = append.length;
    if (healing) {
      hold = holdFrom(append, after, states[keep]);
    }
    int[] committed = Arrays.copyOf(append, hold);
    int droppedBytes = tokenizer.bytes(output, keep, length).length;
    int appendedBytes = tokenizer.bytes(committed, 0, committed.length).length;
    int jumped = appendedBytes - droppedBytes;
    if (jumped <= 0) {
      return null;
    }
    int stateAfter = hold == 0 ? states[keep] : after[hold - 1];
    return new JumpPlan(
        keep, committed, stateAfter, Arrays.copyOf(after, hold), jumped, jump.length - jumped);
  }

  /** The index in {@code append} from which tokens are held back ({@code append.length} = none). */
  private int holdFrom(int[] append, int[] after, int stateBefore) {
    int n = append.length;
    int hold = n;
    byte[] suffix = new byte[0];
    for (int i = n - 1; i >= Math.max(0, n - HEAL_LOOKBACK); i--) {
      suffix = concat(tokenizer.tokenBytes(append[i]), suffix);
      int q = i == 0 ? stateBefore : after[i - 1];
      if (longerAllowed(q, suffix)) {
        hold = i;
      }
    }
    return hold;
  }

  /**
   * Whether some token longer than {@code prefix} starts with it and is allowed from {@code state}.
   */
  private boolean longerAllowed(int state, byte[] prefix) {
    for (int j = sorted.lowerBound(prefix); j < sorted.size(); j++) {
      byte[] b = sorted.bytesAt(j);
      if (!SortedVocabulary.startsWith(b, prefix)) {
        break;
      }
      if (b.length > prefix.length && dfa.walk(state, b, 0, b.length) != ByteAutomaton.DEAD) {
        return true;
      }
    }
    return false;
  }

  /**
   * Moves {@code w} back so that output token {@code w} starts a character (not a continuation
   * byte).
   */
  private int charBoundary(int[] output, int w) {
    while (w > 0) {
      byte[] b = tokenizer.tokenBytes(output[w]);
      if (b != null && b.length > 0 && !Utf8.isContinuation(b[0])) {
        break;
      }
      w--;
    }
    return w;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static String strictUtf8(byte[] b) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
