package dev.leap.runtime.internal.engine;

import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * One request's state inside the scheduler. Owned by the scheduler thread (no locking).
 *
 * <p>Invariants between steps, for a running sequence:
 * <ul>
 *   <li>{@code tokens} = prompt ++ output; {@code slots.size() == kvLen <= tokens.size()}: the
 *       first {@code kvLen} tokens have their K/V in the pool at {@code slots}; the rest are the
 *       next step's input (at least one: a sampled token whose K/V is not computed yet, and any
 *       tokens a jump appended).
 *   <li>{@code slots[0, treeOwned)} belong to the radix cache (pinned by {@code lockedNode}); the
 *       rest belong to this request, which frees or inserts them.
 *   <li>For a constrained request, {@code constraint} is the state reached by walking the output's
 *       bytes from the constraint's start.
 * </ul>
 */
final class Sequence {
  final GenerationRequest request;
  /** Completed exactly once, through the scheduler's callback executor (see {@code Scheduler#deliver}). */
  final CompletableFuture<Generation> future;
  /** Set by any thread that cancels; the scheduler ends the request at its next iteration. */
  volatile boolean cancelled;
  final long submitNanos;
  final SplittableRandom rng;

  int[] prompt;
  /** Where the output stands in its constraint; null for an unconstrained request. */
  ConstraintState constraint;
  CompletableFuture<CompiledConstraint> compiled;

  final IntArrayList tokens = new IntArrayList();
  final IntArrayList output = new IntArrayList();
  final IntArrayList slots = new IntArrayList();
  /** The output's stop strings, matched as it grows; null when the request has none. */
  final StopMatcher stops;
  int kvLen;
  int treeOwned;
  dev.leap.radix.RadixCache.Node lockedNode;
  /** KV slots this request may still allocate (its reservation less what it holds). */
  int reservation;

  // stats
  int forwardPasses;
  int tokensSampled;
  int tokensJumped;
  int tokensRetracted;
  long bytesJumped;
  int jumps;
  int cachedPromptTokens;
  long firstTokenNanos;
  /** When the request entered the running batch (0 while queued). */
  long admittedNanos;

  /** Where the output goes as it grows; null when the request is not streamed. */
  final dev.leap.runtime.OutputListener listener;
  /** Output bytes delivered to {@link #listener} so far. */
  long streamedBytes;
  /** Bytes of the output tokens (kept up to date by {@link Decoding}). */
  long outputBytes;

  Sequence(GenerationRequest request, CompletableFuture<Generation> future, long submitNanos) {
    this(request, future, submitNanos, null);
  }

  Sequence(GenerationRequest request, CompletableFuture<Generation> future, long submitNanos,
      dev.leap.runtime.OutputListener listener) {
    this.listener = listener;
    this.request = request;
    this.future = future;
    this.submitNanos = submitNanos;
    this.rng = new SplittableRandom(request.params().seed());
    this.stops = request.params().stop().isEmpty() ? null : new StopMatcher(request.params().stop());
  }

  int promptLength() {
    return prompt.length;
  }


}
