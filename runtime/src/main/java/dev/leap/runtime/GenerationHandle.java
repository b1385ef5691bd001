package dev.leap.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * A submitted request: the future of its {@link Generation}, and the way to cancel it.
 *
 * <p>Completion: exactly once, with a result, an error result ({@link FinishReason#ERROR}) or a
 * cancelled result ({@link FinishReason#CANCELLED}); never exceptionally, unless {@link
 * #cancel(boolean)} was called. It completes on the runtime's callback threads (daemon threads
 * named {@code leap-callback-N}), never on the scheduler thread, so a dependent stage ({@code
 * thenApply}, ...) may block, even on the same runtime; an error result that {@code submit} can
 * give at once (the runtime is closed, the prompt is too long, ...) is complete before {@code
 * submit} returns.
 *
 * <p>Cancellation, two ways; either ends the request at the runtime's next step and returns its KV
 * slots:
 *
 * <ul>
 *   <li>{@link #cancel()}: the handle then completes normally with finish reason {@link
 *       FinishReason#CANCELLED} and the text generated so far.
 *   <li>{@link #cancel(boolean)} ({@link java.util.concurrent.Future}'s contract): the handle is
 *       cancelled at once and {@code get()} throws {@link
 *       java.util.concurrent.CancellationException}.
 * </ul>
 *
 * Cancelling a dependent future ({@code handle.thenApply(..)}) does not reach the request.
 */
public final class GenerationHandle extends CompletableFuture<Generation> {
  private volatile Runnable canceller;

  GenerationHandle() {}

  /** Called once by the runtime after queueing the request: how to reach its scheduler. */
  void bind(Runnable canceller) {
    this.canceller = canceller;
  }

  /**
   * Asks the runtime to end this request at its next step; the handle then completes with finish
   * reason {@link FinishReason#CANCELLED} and the output so far (or empty, if it had not run yet).
   *
   * @return false if the request had already completed; true otherwise (a request that ends on its
   *     own before the scheduler sees the cancel still completes with its normal result)
   */
  public boolean cancel() {
    if (isDone()) {
      return false;
    }
    Runnable c = canceller;
    if (c != null) {
      c.run();
    }
    return true;
  }

  /**
   * Cancels this future ({@link CompletableFuture#cancel(boolean)}) and asks the runtime to end the
   * request at its next step, returning its KV slots. {@code mayInterruptIfRunning} has no effect:
   * no thread is interrupted.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    Runnable c = canceller;
    if (c != null) {
      c.run();
    }
    return cancelled;
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }
}
