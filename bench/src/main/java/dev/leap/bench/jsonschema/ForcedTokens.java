package dev.leap.bench.jsonschema;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.retokenize.JumpPlan;
import dev.leap.retokenize.JumpRetokenizer;
import dev.leap.retokenize.Tokenizer;
import dev.leap.vocab.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * How many of an instance's tokens a constraint (compressed FSM or grammar, {@link Forcing})
 * forces, against a real tokenizer, counted two ways.
 *
 * <ul>
 *   <li><b>Forced tokens</b> (MaskBench's "fast-forward" share): of the instance's canonical tokens
 *       ({@code encode(text)}), those whose every byte lies on a jump edge of the walk through the
 *       FSM.
 *   <li><b>Replay</b>: the instance decoded as Leap's runtime decodes, by a model that always picks
 *       the instance's next canonical token (an oracle; where the output's token boundary is not a
 *       canonical one, the longest token that continues the text). At the start and after every
 *       sampled token, where the state has a jump of two or more characters, {@link
 *       JumpRetokenizer} plans the jump (window re-encoding and boundary healing), as the scheduler
 *       does. Counts the tokens the model had to sample (EOS not counted) against the tokens of the
 *       finished output, and whether the output's token ids are the canonical encoding of its text.
 * </ul>
 *
 * Not thread-safe (one instance per tokenizer and thread).
 */
final class ForcedTokens {
  /** Counts for one instance. */
  record Counts(
      int canonicalTokens,
      int forcedTokens,
      int outputTokens,
      int sampledTokens,
      int jumps,
      boolean outputCanonical) {}

  private final Tokenizer tokenizer;

  /** Token bytes (as ISO-8859-1 strings) to id, for the longest-prefix oracle. */
  private final Map<String, Integer> idOfBytes = new HashMap<>();

  private int longestToken;

  ForcedTokens(Tokenizer tokenizer) {
    this.tokenizer = tokenizer;
    for (int id = 0; id < tokenizer.size(); id++) {
      byte[] b = tokenizer.tokenBytes(id);
      if (b != null && b.length > 0 && !tokenizer.isSpecial(id)) {
        idOfBytes.putIfAbsent(new String(b, StandardCharsets.ISO_8859_1), id);
        longestToken = Math.max(longestToken, b.length);
      }
    }
  }

  /** Both counts for {@code text}, which the FSM must accept. */
  Counts measure(Forcing fsm, JumpRetokenizer retokenizer, byte[] text) {
    ByteAutomaton dfa = fsm.automaton();
    boolean[] forced = forcedBytes(fsm, text);
    int[] canon = tokenizer.encode(new String(text, StandardCharsets.UTF_8));
    int[] startIndex = new int[text.length + 1];
    Arrays.fill(startIndex, -1);
    int forcedTokens = 0;
    int at = 0;
    for (int i = 0; i < canon.length; i++) {
      startIndex[at] = i;
      byte[] b = tokenizer.tokenBytes(canon[i]);
      boolean all = true;
      for (int k = 0; k < b.length; k++) {
        all &= forced[at + k];
      }
      forcedTokens += all ? 1 : 0;
      at += b.length;
    }
    if (at != text.length) {
      throw new IllegalStateException("the tokenizer does not round-trip the instance");
    }

    // Replay: a jump at the start, then sample, jump, sample, ...
    int[] out = new int[text.length + 1];
    int[] states = new int[text.length + 2];
    states[0] = dfa.initialState();
    int[] len = {0};
    int sampled = 0;
    int jumps = jump(fsm, retokenizer, out, states, len) ? 1 : 0;
    int pos = tokenizer.bytes(out, 0, len[0]).length;
    while (pos < text.length) {
      int t = startIndex[pos] >= 0 ? canon[startIndex[pos]] : longestPrefixToken(text, pos);
      byte[] tb = tokenizer.tokenBytes(t);
      out[len[0]] = t;
      states[len[0] + 1] = dfa.walk(states[len[0]], tb, 0, tb.length);
      len[0]++;
      pos += tb.length;
      sampled++;
      if (states[len[0]] == ByteAutomaton.DEAD) {
        throw new IllegalStateException("the instance leaves the language at byte " + pos);
      }
      if (pos < text.length && jump(fsm, retokenizer, out, states, len)) {
        jumps++;
        pos = tokenizer.bytes(out, 0, len[0]).length;
      }
    }
    int[] output = Arrays.copyOf(out, len[0]);
    if (!Arrays.equals(tokenizer.bytes(output, 0, len[0]), text)) {
      throw new IllegalStateException("the replayed output is not the instance");
    }
    return new Counts(
        canon.length, forcedTokens, len[0], sampled, jumps, Arrays.equals(output, canon));
  }

  /**
   * Jumps where the runtime would (a jump of two or more characters, planned by the retokenizer):
   * replaces {@code out[keep, len)} by the plan's tokens; whether it did.
   */
  private static boolean jump(
      Forcing fsm, JumpRetokenizer retokenizer, int[] out, int[] states, int[] len) {
    byte[] jump = fsm.forced(states[len[0]]);
    if (Utf8.codePoints(jump) <= 1) {
      return false;
    }
    JumpPlan plan = retokenizer.plan(out, len[0], states, jump);
    if (plan == null) {
      return false;
    }
    len[0] = plan.keep();
    for (int i = 0; i < plan.append().length; i++) {
      out[len[0]] = plan.append()[i];
      states[len[0] + 1] = plan.statesAfterEach()[i];
      len[0]++;
    }
    return true;
  }

  /** Which bytes of {@code text} jump edges cover when it is walked through the FSM. */
  static boolean[] forcedBytes(Forcing fsm, byte[] text) {
    boolean[] forced = new boolean[text.length];
    ByteAutomaton dfa = fsm.automaton();
    int state = dfa.initialState();
    int i = 0;
    while (i < text.length && state != ByteAutomaton.DEAD) {
      byte[] jump = fsm.forced(state);
      if (jump.length > 0
          && i + jump.length <= text.length
          && Arrays.equals(jump, 0, jump.length, text, i, i + jump.length)) {
        Arrays.fill(forced, i, i + jump.length, true);
        i += jump.length;
        state = fsm.afterForced(state);
        continue;
      }
      state = dfa.walk(state, text, i, i + 1);
      i++;
    }
    return forced;
  }

  /** The longest non-special token whose bytes start {@code text[pos..]}. */
  private int longestPrefixToken(byte[] text, int pos) {
    for (int n = Math.min(longestToken, text.length - pos); n >= 1; n--) {
      Integer id = idOfBytes.get(new String(text, pos, n, StandardCharsets.ISO_8859_1));
      if (id != null) {
        return id;
      }
    }
    throw new IllegalStateException("no token starts with byte " + (text[pos] & 0xFF));
  }
}
