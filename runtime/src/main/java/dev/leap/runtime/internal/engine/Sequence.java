package dev.leap.runtime.internal.engine;

import dev.leap.radix.RadixCache;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.OutputListener;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * One request's state inside the scheduler. Owned by the scheduler thread (no locking); each group
 * of fields below is written by the one role named above it, and read by the others.
 *
 * <p>Invariants between steps, for a running sequence:
 *
 * <ul>
 *   <li>its tokens are {@code prompt ++ output} ({@link #length()}, {@link #tokens}); {@code
 *       slots.size() == kvLen <= length()}: the first {@code kvLen} tokens have their K/V in the
 *       pool at {@code slots}; the rest are the next step's input (at least one: a sampled token
 *       whose K/V is not computed yet, and any tokens a jump appended).
 *   <li>{@code slots[0, treeOwned)} belong to the radix cache (pinned by {@code lockedNode}); the
 *       rest belong to this request, which frees or inserts them.
 *   <li>For a constrained request, {@code constraint} is the state reached by walking the output's
 *       bytes from the constraint's start.
 * </ul>
 */
final class Sequence {
  final GenerationRequest request;

  /**
   * Completed exactly once, through the scheduler's callback executor (see {@code
   * Scheduler#deliver}).
   */
  final CompletableFuture<Generation> future;

  /** Set by any thread that cancels; the scheduler ends the request at its next iteration. */
  volatile boolean cancelled;

  final long submitNanos;
  final SplittableRandom rng;

  /** Where the output goes as it grows; null when the request is not streamed. */
  final OutputListener listener;

  // Admission and the scheduler: the prompt, the constraint, when the request entered the batch.
  int[] prompt;

  /** Where the output stands in its constraint; null for an unconstrained request. */
  ConstraintState constraint;

  CompletableFuture<CompiledConstraint> compiled;
  int cachedPromptTokens;

  /** When the request entered the running batch (0 while queued). */
  long admittedNanos;

  // Decoding: the output (tokens and bytes, read by StopMatcher, Streaming, Results) and its stats.
  final OutputBuffer output = new OutputBuffer();

  /** The output's stop strings, matched as it grows; null when the request has none. */
  final StopMatcher stops;

  int tokensSampled;
  int tokensJumped;
  long bytesJumped;
  int jumps;
  long firstTokenNanos;

  // KvLedger: the K/V slots of the first kvLen tokens, the cached prefix's lock, the reservation.
  final IntArrayList slots = new IntArrayList();
  int kvLen;
  int treeOwned;
  RadixCache.Node lockedNode;

  /** KV slots this request may still allocate (its reservation less what it holds). */
  int reservation;

  // ForwardStep.
  int forwardPasses;

  // Streaming.
  /** Output bytes delivered to {@link #listener} so far. */
  long streamedBytes;

  Sequence(GenerationRequest request, CompletableFuture<Generation> future, long submitNanos) {
    this(request, future, submitNanos, null);
  }

  Sequence(
      GenerationRequest request,
      CompletableFuture<Generation> future,
      long submitNanos,
      OutputListener listener) {
    this.listener = listener;
    this.request = request;
    this.future = future;
    this.submitNanos = submitNanos;
    this.rng = new SplittableRandom(request.params().seed());
    this.stops =
        request.params().stop().isEmpty() ? null : new StopMatcher(request.params().stop());
  }

  /** Prompt and output tokens. */
  int length() {
    return prompt.length + output.tokenCount();
  }

  /** Tokens {@code [from, from + n)} of {@code prompt ++ output}, copied. */
  int[] tokens(int from, int n) {
    int[] out = new int[n];
    int fromPrompt = Math.max(0, Math.min(n, prompt.length - from));
    if (fromPrompt > 0) {
      System.arraycopy(prompt, from, out, 0, fromPrompt);
    }
    if (fromPrompt < n) {
      System.arraycopy(
          output.tokenArray(), from + fromPrompt - prompt.length, out, fromPrompt, n - fromPrompt);
    }
    return out;
  }
}
