package dev.leap.runtime.internal.engine;

import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.FinishReason;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationStats;
import dev.leap.vocab.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A token's bytes, and a request's {@link Generation} from its sequence: the text is the output's
 * bytes ({@link OutputBuffer}) cut before the first stop string and before an incomplete UTF-8
 * character at the end (a cut by maxTokens), and {@code complete} says whether that text fully
 * matches the constraint.
 */
final class Results {
  private static final byte[] NO_BYTES = new byte[0];

  private final Tokenizer tokenizer;

  Results(Tokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** A token's bytes; none for a special token or without a tokenizer. */
  byte[] tokenBytes(int token) {
    byte[] b = tokenizer == null ? null : tokenizer.tokenBytes(token);
    return b == null ? NO_BYTES : b;
  }

  /** The result of a request that ran (and ended for {@code reason}). */
  Generation finished(Sequence s, FinishReason reason) {
    int stopAt = s.stops == null ? -1 : s.stops.firstMatch();
    byte[] bytes = s.output.slice(0, stopAt >= 0 ? stopAt : s.output.length());
    bytes = Arrays.copyOf(bytes, Utf8.completeLength(bytes));
    boolean complete = s.constraint == null || s.constraint.matches(bytes);
    return new Generation(
        new String(bytes, StandardCharsets.UTF_8),
        s.output.tokensCopy(),
        reason,
        complete,
        stats(s),
        null);
  }

  /** The result of a request cancelled before it ran: no output. */
  static Generation cancelledBeforeRunning(Sequence s) {
    return new Generation("", new int[0], FinishReason.CANCELLED, false, stats(s), null);
  }

  static Generation error(Sequence s, String message) {
    return Generation.error(message, stats(s));
  }

  static GenerationStats stats(Sequence s) {
    long now = System.nanoTime();
    double ttft = s.firstTokenNanos == 0 ? 0 : (s.firstTokenNanos - s.submitNanos) / 1e6;
    return new GenerationStats(
        s.forwardPasses,
        s.tokensSampled,
        s.tokensJumped,
        s.bytesJumped,
        s.jumps,
        s.prompt == null ? 0 : s.prompt.length,
        s.cachedPromptTokens,
        ttft,
        (now - s.submitNanos) / 1e6,
        ((s.admittedNanos == 0 ? now : s.admittedNanos) - s.submitNanos) / 1e6);
  }
}
