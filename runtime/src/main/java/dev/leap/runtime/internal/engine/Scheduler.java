package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDManager;
import dev.leap.fsm.ConstraintException;
import dev.leap.model.LlamaModel;
import dev.leap.radix.RadixCache;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.FinishReason;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.OutputListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Continuous batching with constrained sampling and jump-forward: the loop, on one scheduler
 * thread.
 *
 * <p>Each iteration: <b>drain</b> the submitted requests (their constraints compile off the loop,
 * {@link ConstraintCache}); end the cancelled ones; <b>admit</b> waiting requests while the batch
 * has room and their KV slots can be reserved ({@link KvLedger}; a forced start is jumped at once);
 * <b>step</b>: one forward pass over every running sequence — a chunk of a prompt, a single decode
 * token, or a multi-token extension after a jump — and one token sampled per sequence whose input
 * is complete, under its {@link ConstraintState}'s mask ({@link ForwardStep}); {@link Decoding}
 * then accepts it, checks the ends and jumps where the constraint forces text; <b>finish</b> the
 * ended ones ({@link Results}, their K/V into the radix cache). Submission checks are {@link
 * Admission}'s.
 *
 * <p>Chunked prefill ({@link ForwardStep}): long pending inputs share {@link
 * Options#prefillChunk()} tokens per step; each chunk attends to the K/V the earlier chunks left in
 * the pool, and only the last chunk's logits are sampled, so a step's memory is bounded and the
 * others' decode steps go on between chunks.
 *
 * <p>Lifecycle: every accepted request completes exactly once (a result, an error result, or a
 * cancelled result) on the callback executor ({@code leap-callback-N} daemon threads, never this
 * thread); a cancelled request ends at the next iteration; {@link #close()} fails every request it
 * accepted and has not finished, and refuses later ones with an error result.
 *
 * <p>KV slots: a request reserves, at admission, the slots it could ever hold (its uncached prompt
 * plus {@code maxTokens}); allocation inside a step therefore never fails, and a request that does
 * not fit waits in the queue (the radix cache is asked to evict first). Slot ownership: every slot
 * is free, owned by the radix cache, or owned by exactly one running request ({@link
 * KvLedger#verify}, after every step with {@link Options#checkInvariants()}).
 */
public final class Scheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

  /** Default {@link Options#smallReserve()}: an eighth of the KV capacity. */
  public static int defaultSmallReserve(int kvCapacity) {
    return kvCapacity / 8;
  }

  /** Default {@link Options#compileThreads()}. */
  public static final int DEFAULT_COMPILE_THREADS = ConstraintCache.DEFAULT_THREADS;

  /** Default {@link Options#compileTimeoutMs()}. */
  public static final long DEFAULT_COMPILE_TIMEOUT_MS = ConstraintCache.DEFAULT_TIMEOUT_MS;

  /**
   * Default {@link Options#constraintCacheSize()}: compiled constraints kept, the least recently
   * used dropped past it.
   */
  public static final int DEFAULT_CONSTRAINT_CACHE_SIZE = 64;

  /** Default {@link Options#prefillChunk()}: tokens of long prefills per step. */
  public static final int DEFAULT_PREFILL_CHUNK = 512;

  /**
   * Scheduler options.
   *
   * @param constraintCacheSize compiled constraints kept by source text (their device masks
   *     released when one is dropped)
   * @param prefillChunk tokens of long prefills (prompts, long jump extensions) fed per step,
   *     shared by the sequences that have them; bounds a step's memory (linear in the context, not
   *     quadratic)
   * @param smallReserve KV slots (and one batch place in eight) that only small requests may use: a
   *     request whose reservation fits in a quarter of it; big requests wait for the rest, so a
   *     small one starts while a big one runs ({@link #admit})
   * @param compileThreads threads compiling constraints, shared by all requests
   * @param compileTimeoutMs time limit of one constraint's compilation (0: none); past it the
   *     requests that wait for it fail, naming the limit
   */
  public record Options(
      int kvCapacity,
      int maxBatch,
      boolean jumpForward,
      boolean prefixCache,
      boolean healing,
      boolean checkInvariants,
      int constraintCacheSize,
      int prefillChunk,
      int smallReserve,
      int compileThreads,
      long compileTimeoutMs) {
    public Options {
      if (compileThreads < 1) {
        throw new IllegalArgumentException(
            "constraint compiler threads must be >= 1, got " + compileThreads);
      }
      if (smallReserve < 0 || smallReserve >= kvCapacity) {
        throw new IllegalArgumentException(
            "the KV reserve for small requests must be within 0.."
                + (kvCapacity - 1)
                + " slots, got "
                + smallReserve);
      }
      if (prefillChunk < 1) {
        throw new IllegalArgumentException("prefill chunk must be >= 1 token, got " + prefillChunk);
      }
      if (kvCapacity < 1) {
        throw new IllegalArgumentException("KV capacity must be >= 1 slot, got " + kvCapacity);
      }
      if (maxBatch < 1) {
        throw new IllegalArgumentException("max batch must be >= 1, got " + maxBatch);
      }
    }
  }

  private final Options options;
  private final KvLedger ledger;
  private final NDManager manager;

  private final ConcurrentLinkedQueue<Sequence> incoming = new ConcurrentLinkedQueue<>();
  private final List<Sequence> compiling = new ArrayList<>();
  private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
  private final List<Sequence> running = new ArrayList<>();
  private final ConstraintCache constraints;
  private final Admission admission;
  private final Results results;
  private final Decoding decoding;
  private final Streaming streaming;
  private final ForwardStep forward;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final Thread thread;
  private final ExecutorService callbacks;
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  private volatile boolean closed;
  private volatile boolean cancelsPending;

  // queue lengths as of the loop's last iteration, for metrics
  private volatile int runningCount;
  private volatile int queuedCount;

  public Scheduler(LlamaModel model, Tokenizer tokenizer, Options options) {
    this.options = options;
    this.ledger = new KvLedger(options.kvCapacity(), options.prefixCache());
    this.manager = model.manager().newSubManager();
    this.forward = new ForwardStep(model, ledger, manager, options.prefillChunk());
    int logitsVocab = model.config().vocabSize();
    int maxPositions = model.config().maxPositionEmbeddings();
    this.constraints =
        new ConstraintCache(
            tokenizer,
            options.healing(),
            logitsVocab,
            manager,
            options.constraintCacheSize(),
            options.compileThreads(),
            options.compileTimeoutMs());
    this.results = new Results(tokenizer);
    this.streaming = new Streaming();
    this.decoding =
        new Decoding(
            ledger,
            results,
            tokenizer == null ? new int[0] : tokenizer.eosIds(),
            maxPositions,
            options.jumpForward(),
            options.checkInvariants());
    this.admission =
        new Admission(
            tokenizer, logitsVocab, maxPositions, options.kvCapacity(), options.smallReserve());
    AtomicInteger callbackThreads = new AtomicInteger();
    // A cached pool: a callback that blocks (even on this runtime) holds only its own thread.
    this.callbacks =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "leap-callback-" + callbackThreads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.thread = new Thread(this::loop, "leap-scheduler");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /**
   * Queues a request whose result will complete {@code result}: exactly once, with a result, an
   * error result or a cancelled result, on the callback executor (never on the scheduler thread),
   * except that an error found here (the runtime is closed, a bad prompt, ...) completes it on the
   * calling thread before this returns. Never throws for a bad request or a closed scheduler. The
   * output streams to {@code listener} as it grows (null: not streamed).
   *
   * @return what cancels the request: it ends at the scheduler's next iteration, its KV slots
   *     return and {@code result} completes with finish reason {@link FinishReason#CANCELLED}
   */
  public Runnable submit(
      GenerationRequest request, CompletableFuture<Generation> result, OutputListener listener) {
    Sequence s = new Sequence(request, result, System.nanoTime(), listener);
    Runnable canceller = () -> cancel(s);
    String problem;
    // The whole submission holds the gate's read side; close() takes its write side to set
    // `closed`.
    // So a request is either queued before the loop's final drain (and failed there) or refused
    // here,
    // never lost; the compiler is shut down only after `closed` is set, so handing it a compilation
    // cannot be rejected; and no submission is still encoding its prompt when close() returns and
    // the runtime closes the tokenizer.
    gate.readLock().lock();
    try {
      if (closed) {
        problem = "the runtime is closed";
      } else {
        problem = admission.prepare(s);
        if (problem == null) {
          if (s.request.constraint().kind() != Constraint.Kind.NONE) {
            s.compiled = constraints.get(request.constraint());
          }
          incoming.add(s);
        }
      }
    } catch (RuntimeException e) {
      LOG.error("could not prepare a request", e);
      problem = "the request could not be prepared: " + e;
    } finally {
      gate.readLock().unlock();
    }
    if (problem != null) {
      result.complete(Results.error(s, problem));
      return canceller;
    }
    signal();
    return canceller;
  }

  private void cancel(Sequence s) {
    s.cancelled = true;
    cancelsPending = true;
    signal();
  }

  /**
   * Completes a request's future on the callback executor (on this thread if that is shut down).
   */
  private void deliver(Sequence s, Generation g) {
    try {
      callbacks.execute(() -> s.future.complete(g));
    } catch (RejectedExecutionException e) {
      s.future.complete(g);
    }
  }

  /** Slots free in the allocator (for leak checks: equals the capacity when idle with no cache). */
  public int freeSlots() {
    return ledger.freeSlots();
  }

  /** Slots held by the radix cache. */
  public int cachedSlots() {
    return ledger.cachedSlots();
  }

  public int kvCapacity() {
    return ledger.capacity();
  }

  /**
   * NDArrays alive in the scheduler's native memory scope (masks of cached constraints; for leak
   * checks).
   */
  public int liveNativeArrays() {
    return manager.getManagedArrays().size();
  }

  public long totalForwardPasses() {
    return forward.passes();
  }

  /** Forward passes whose tokens were sampled from the allowed tokens' logits alone. */
  public long sparseLogitsPasses() {
    return forward.sparseSteps();
  }

  /** Requests in the running batch (as of the scheduler's last iteration). */
  public int runningRequests() {
    return runningCount;
  }

  /**
   * Requests submitted but not yet running: compiling their constraint, or waiting for a batch
   * place or KV slots.
   */
  public int waitingRequests() {
    return queuedCount + incoming.size();
  }

  private void publishCounts() {
    runningCount = running.size();
    queuedCount = compiling.size() + waiting.size();
  }

  private void signal() {
    lock.lock();
    try {
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The loop (scheduler thread only below this line)

  private void loop() {
    while (!closed) {
      try {
        drainIncoming();
        promoteCompiled();
        if (cancelsPending) {
          endCancelled();
        }
        admit();
        publishCounts();
        if (running.isEmpty()) {
          lock.lock();
          try {
            if (incoming.isEmpty() && !closed && !cancelsPending && !anyCompiled()) {
              wake.await(compiling.isEmpty() ? 1000 : 2, TimeUnit.MILLISECONDS);
            }
          } finally {
            lock.unlock();
          }
          continue;
        }
        step();
        publishCounts();
        if (options.checkInvariants()) {
          ledger.verify(running);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Throwable t) {
        LOG.error("scheduler step failed; failing the running requests", t);
        for (Sequence s : new ArrayList<>(running)) {
          abort(s, "internal error in the scheduler step: " + t);
        }
        running.clear();
      }
    }
    failAll("the runtime is closed");
  }

  /** Ends every cancelled request: running ones keep their output so far, queued ones have none. */
  private void endCancelled() {
    cancelsPending = false;
    for (List<Sequence> queue : List.of(new ArrayList<>(compiling), new ArrayList<>(waiting))) {
      for (Sequence s : queue) {
        if (s.cancelled) {
          compiling.remove(s);
          waiting.remove(s);
          deliver(s, Results.cancelledBeforeRunning(s));
        }
      }
    }
    for (Iterator<Sequence> it = running.iterator(); it.hasNext(); ) {
      Sequence s = it.next();
      if (s.cancelled) {
        it.remove();
        finish(s, FinishReason.CANCELLED);
      }
    }
  }

  private boolean anyCompiled() {
    for (Sequence s : compiling) {
      if (s.compiled.isDone()) {
        return true;
      }
    }
    return false;
  }

  private void drainIncoming() {
    Sequence s;
    while ((s = incoming.poll()) != null) {
      if (s.compiled == null) {
        waiting.add(s);
      } else {
        compiling.add(s);
      }
    }
  }

  private void promoteCompiled() {
    for (Iterator<Sequence> it = compiling.iterator(); it.hasNext(); ) {
      Sequence s = it.next();
      if (!s.compiled.isDone()) {
        continue;
      }
      it.remove();
      try {
        s.constraint = s.compiled.join().newState();
        waiting.add(s);
      } catch (RuntimeException e) {
        deliver(s, Results.error(s, ConstraintCache.errorMessage(e)));
      }
    }
  }

  /**
   * Admits waiting requests in arrival order while the batch has room and their KV slots can be
   * reserved. Fairness between sizes: a <em>big</em> request (its reservation is over a quarter of
   * {@link Options#smallReserve()}) must leave that reserve and one batch place in eight free, so a
   * small request finds room while big ones run; a big request that cannot start does not hold up
   * the small ones behind it (first come, first served within each size).
   */
  private void admit() {
    List<int[]> admittedPrompts = new ArrayList<>();
    int reserve = options.smallReserve();
    int bigBatch = options.maxBatch() - (reserve > 0 ? Math.max(1, options.maxBatch() / 8) : 0);
    boolean bigBlocked = false;
    for (Iterator<Sequence> it = waiting.iterator();
        it.hasNext() && running.size() < options.maxBatch(); ) {
      Sequence s = it.next();
      int n = s.prompt.length;
      boolean big = isBig(s);
      if (big && (bigBlocked || running.size() >= bigBatch)) {
        bigBlocked = true;
        continue;
      }
      RadixCache.Match m =
          ledger.matchAndLock(s.prompt, n - 1); // the last prompt token runs for its logits
      if (options.prefixCache() && Admission.deferForSharedPrefix(s, m.length(), admittedPrompts)) {
        ledger.unlock(m);
        continue; // waits one step for the prefix to be cached
      }
      if (!ledger.admit(s, m, (n - m.length()) + admission.maxOutput(s), big ? reserve : 0)) {
        ledger.unlock(m);
        if (big) {
          bigBlocked = true;
          continue; // small ones behind it may still fit
        }
        break; // first come, first served: wait until slots come back
      }
      it.remove();
      s.admittedNanos = System.nanoTime();
      s.cachedPromptTokens = m.length();
      admittedPrompts.add(s.prompt);
      FinishReason r;
      try {
        r = decoding.start(s); // a forced start is jumped now and prefilled with the prompt
      } catch (ConstraintException e) {
        abort(s, e.getMessage());
        continue;
      }
      if (r != null) {
        finish(s, r); // the whole output was forced (or cut by maxTokens): no forward pass at all
        continue;
      }
      running.add(s);
    }
  }

  /**
   * Whether {@code s} is a big request: its reservation without any cache hit is over a quarter of
   * the small-request reserve.
   */
  private boolean isBig(Sequence s) {
    int reserve = options.smallReserve();
    return reserve > 0 && s.prompt.length + admission.maxOutput(s) > reserve / 4;
  }

  /** One forward pass ({@link ForwardStep}), then what each sampled token does to its sequence. */
  private void step() {
    List<Sequence> ended = new ArrayList<>();
    for (ForwardStep.Result r : forward.run(running)) {
      Sequence s = r.sequence();
      if (r.partial()) {
        continue;
      }
      if (r.failure() != null) {
        abort(s, r.failure());
        ended.add(s);
        continue;
      }
      if (r.token() < 0) {
        abort(
            s,
            "no token of the vocabulary can continue the constraint from "
                + s.constraint.describe());
        ended.add(s);
        continue;
      }
      FinishReason done;
      try {
        done = decoding.onToken(s, r.token());
      } catch (ConstraintException e) {
        abort(s, e.getMessage());
        ended.add(s);
        continue;
      }
      if (done != null) {
        finish(s, done);
        ended.add(s);
      } else if (s.listener != null) {
        streaming.deliver(s);
      }
    }
    running.removeAll(ended);
    constraints.closeRetired();
  }

  private void finish(Sequence s, FinishReason reason) {
    Generation g = results.finished(s, reason);
    ledger.releaseAll(s);
    deliver(s, g);
  }

  private void abort(Sequence s, String message) {
    try {
      ledger.releaseAll(s);
    } catch (RuntimeException e) {
      LOG.error("could not release the KV slots of a failed request", e);
    }
    deliver(s, Results.error(s, message));
  }

  private void failAll(String message) {
    Sequence s;
    while ((s = incoming.poll()) != null) {
      deliver(s, Results.error(s, message));
    }
    for (Sequence q : compiling) {
      deliver(q, Results.error(q, message));
    }
    compiling.clear();
    for (Sequence q : waiting) {
      deliver(q, Results.error(q, message));
    }
    waiting.clear();
    for (Sequence q : running) {
      abort(q, message);
    }
    running.clear();
  }

  private void joinLoop() {
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Ends the loop, failing what it had not finished; idempotent (a second call only waits for the
   * loop).
   */
  @Override
  public void close() {
    boolean first;
    gate.writeLock().lock(); // waits for submissions in progress
    try {
      first = !closed;
      closed = true;
    } finally {
      gate.writeLock().unlock();
    }
    if (!first) {
      joinLoop();
      return;
    }
    signal();
    joinLoop();
    constraints.close();
    manager.close();
    callbacks
        .shutdown(); // the results failAll delivered still run; later ones complete on their caller
  }
}
