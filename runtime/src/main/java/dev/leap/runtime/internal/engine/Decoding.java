package dev.leap.runtime.internal.engine;

import dev.leap.retokenize.JumpPlan;
import dev.leap.runtime.FinishReason;
import dev.leap.runtime.SamplingParams;
import dev.leap.vocab.Utf8;
import java.util.Arrays;

/**
 * What happens to one sequence when its output grows: a sampled token is accepted by the constraint
 * and the stop-string matcher; then the end checks (EOS in an accepting state, a stop string, the
 * constraint's end, maxTokens, the context); then, where the constraint forces text, a jump: the
 * forced bytes are re-tokenized with the last output tokens ({@link ConstraintState#planJump}),
 * retracted tokens lose their K/V ({@link KvLedger#truncate}) and the new ones become the
 * sequence's next input, prefilled in the same batch as everyone's next token.
 *
 * <p>Scheduler thread only.
 */
final class Decoding {
  private final KvLedger ledger;
  private final Results results;
  private final int[] eos;
  private final int maxPositions;
  private final boolean jumpForward;
  private final boolean checkInvariants;

  Decoding(
      KvLedger ledger,
      Results results,
      int[] eos,
      int maxPositions,
      boolean jumpForward,
      boolean checkInvariants) {
    this.ledger = ledger;
    this.results = results;
    this.eos = eos;
    this.maxPositions = maxPositions;
    this.jumpForward = jumpForward;
    this.checkInvariants = checkInvariants;
  }

  /** Handles one sampled token; returns the finish reason if the sequence is done, else null. */
  FinishReason onToken(Sequence s, int token) {
    ConstraintState c = s.constraint;
    if (isEos(token) && (c == null || c.canStop())) {
      return FinishReason.STOP;
    }
    s.output.append(token, results.tokenBytes(token));
    if (s.stops != null) {
      s.stops.grew(s.output.byteArray(), s.output.length());
    }
    s.tokensSampled++;
    if (s.firstTokenNanos == 0) {
      s.firstTokenNanos = System.nanoTime();
    }
    if (c != null) {
      c.accept(token);
    }
    FinishReason r = afterAppend(s);
    if (r != null) {
      return r;
    }
    if (c != null && jumps(s)) {
      r = jump(s);
      if (r != null) {
        return r;
      }
    }
    if (s.length() == s.kvLen) {
      // Everything has K/V but the last logits were dropped by a jump: recompute the last token.
      ledger.truncate(s, s.kvLen - 1);
    }
    return null;
  }

  /** The checks after output grew: stop strings, the constraint's end, maxTokens, the context. */
  private FinishReason afterAppend(Sequence s) {
    SamplingParams p = s.request.params();
    if (s.stops != null && s.stops.firstMatch() >= 0) {
      return FinishReason.STOP;
    }
    if (s.constraint != null && s.constraint.mustStop()) {
      return FinishReason.STOP;
    }
    if (s.output.tokenCount() >= p.maxTokens() || s.length() >= maxPositions) {
      return FinishReason.LENGTH;
    }
    return null;
  }

  /**
   * At admission: a forced start (a JSON object's opening and first key, say) is jumped before any
   * token is sampled, so its tokens are prefilled with the prompt. Returns the finish reason if
   * that ends the request (the whole output was forced, or cut by maxTokens), else null.
   */
  FinishReason start(Sequence s) {
    return s.constraint != null && jumps(s) ? jump(s) : null;
  }

  /** Whether {@code s} jumps over forced text: its request's own setting, else the runtime's. */
  private boolean jumps(Sequence s) {
    Boolean own = s.request.jumpForward();
    return own != null ? own : jumpForward;
  }

  private FinishReason jump(Sequence s) {
    ConstraintState c = s.constraint;
    byte[] j = c.forcedBytes();
    if (j.length == 0 || Utf8.codePoints(j) <= 1) {
      return null;
    }
    int outLen = s.output.tokenCount();
    JumpPlan plan = c.planJump(s.output.tokenArray(), outLen);
    if (plan == null) {
      return null;
    }
    int keep = plan.keep();
    int[] append = plan.append();
    int maxOut = s.request.params().maxTokens();
    boolean truncated = false;
    if (keep + append.length > maxOut) {
      append = Arrays.copyOf(append, Math.max(0, maxOut - keep));
      truncated = true;
    }
    // Drop output tokens [keep, outLen) and their K/V (the request owns output slots).
    long droppedBytes = s.output.length() - s.output.byteOffset(keep);
    ledger.truncate(s, s.prompt.length + keep);
    s.output.truncate(keep);
    c.jump(plan, append.length); // the DFA states after the appended tokens come from the plan
    for (int t : append) {
      s.output.append(t, results.tokenBytes(t));
    }
    long appendedBytes = s.output.length() - s.output.byteOffset(keep);
    if (s.stops != null) {
      s.stops.truncate(s.output.byteOffset(keep));
      s.stops.grew(s.output.byteArray(), s.output.length());
    }
    // Output bytes the jump added: what it appended less what it retracted (a cut by maxTokens or
    // bytes held back by healing are not counted).
    s.tokensJumped += append.length;
    s.bytesJumped += Math.max(0, appendedBytes - droppedBytes);
    s.jumps++;
    if (checkInvariants) {
      checkState(s);
    }
    if (truncated) {
      return FinishReason.LENGTH;
    }
    return afterAppend(s);
  }

  private void checkState(Sequence s) {
    s.constraint.check(s.output.slice(0, s.output.length()));
  }

  private boolean isEos(int token) {
    for (int e : eos) {
      if (e == token) {
        return true;
      }
    }
    return false;
  }
}
