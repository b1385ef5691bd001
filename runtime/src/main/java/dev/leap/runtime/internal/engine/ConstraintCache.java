package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDManager;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.internal.Errors;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Compiled constraints by source text ({@link Constraint#cacheKey()}), compiled off the step loop
 * on a small pool of daemon threads ({@code leap-constraint-compiler-N}) shared by every request,
 * the least recently used dropped past a size. A compilation gets {@code timeoutMs}: past it the
 * waiting requests fail with a message naming the limit, and its thread is interrupted, which ends
 * the compilation at its next new automaton state ({@code Interrupts}); so a slow schema delays
 * only the requests that use it, and occupies a compiler thread for at most its limit. The failure
 * is cached like any other (the same schema fails at once next time).
 *
 * <p>A dropped constraint may still be used by running requests, so its device masks are released
 * only between steps ({@link #closeRetired}); a request that uses it after that makes them again.
 * {@link #get} is called by submitters under the scheduler's gate, never after {@link #close}.
 */
final class ConstraintCache implements AutoCloseable {
  private final Tokenizer tokenizer;
  private final boolean healing;
  private final int logitsVocab;
  private final NDManager manager;
  private final ExecutorService compiler;
  private final Map<String, CompletableFuture<CompiledConstraint>> byKey;
  private final ConcurrentLinkedQueue<CompiledConstraint> retired = new ConcurrentLinkedQueue<>();

  /** Default compiler threads. */
  static final int DEFAULT_THREADS = 2;

  /** Default time limit of one compilation, in milliseconds. */
  static final long DEFAULT_TIMEOUT_MS = 10_000;

  /** Stack of a compiler thread (the JVM's default is 1 MB). */
  static final long COMPILER_STACK_BYTES = 64L << 20;

  private final long timeoutMs;
  private final ScheduledExecutorService timer;

  ConstraintCache(
      Tokenizer tokenizer, boolean healing, int logitsVocab, NDManager manager, int size) {
    this(tokenizer, healing, logitsVocab, manager, size, DEFAULT_THREADS, DEFAULT_TIMEOUT_MS);
  }

  ConstraintCache(
      Tokenizer tokenizer,
      boolean healing,
      int logitsVocab,
      NDManager manager,
      int size,
      int threads,
      long timeoutMs) {
    this.timeoutMs = timeoutMs;
    this.tokenizer = tokenizer;
    this.healing = healing;
    this.logitsVocab = logitsVocab;
    this.manager = manager;
    this.byKey =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(
              Map.Entry<String, CompletableFuture<CompiledConstraint>> e) {
            if (size() > size) {
              e.getValue().thenAccept(retired::add);
              return true;
            }
            return false;
          }
        };
    AtomicInteger n = new AtomicInteger();
    this.compiler =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              // A deep stack: the passes over a constraint's tree and a grammar's rule graph
              // recurse per level.
              Thread t =
                  new Thread(
                      null,
                      r,
                      "leap-constraint-compiler-" + n.incrementAndGet(),
                      COMPILER_STACK_BYTES);
              t.setDaemon(true);
              return t;
            });
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "leap-constraint-timer");
              t.setDaemon(true);
              return t;
            });
  }

  /** The compiled form of {@code c}, compiling it (asynchronously) on first use. */
  CompletableFuture<CompiledConstraint> get(Constraint c) {
    String key = c.cacheKey();
    synchronized (byKey) {
      CompletableFuture<CompiledConstraint> f = byKey.get(key);
      if (f == null) {
        f = compile(c);
        byKey.put(key, f);
      }
      return f;
    }
  }

  private CompletableFuture<CompiledConstraint> compile(Constraint c) {
    CompletableFuture<CompiledConstraint> f = new CompletableFuture<>();
    Future<?> task =
        compiler.submit(
            () -> {
              try {
                f.complete(ConstraintCompiler.compile(c, tokenizer, healing, logitsVocab, manager));
              } catch (StackOverflowError e) {
                f.completeExceptionally(
                    new IllegalArgumentException(
                        "the constraint nests too deeply to compile (groups inside "
                            + "groups, or rules calling rules, too many levels down): simplify it"));
              } catch (Throwable t) {
                f.completeExceptionally(t);
              }
            });
    if (timeoutMs > 0) {
      ScheduledFuture<?> limit =
          timer.schedule(
              () -> {
                if (f.completeExceptionally(
                    new IllegalArgumentException(
                        "the constraint did not compile within the time limit of "
                            + timeoutMs
                            + " ms per compilation; simplify it (fewer or shorter bounded repetitions, a smaller schema)"))) {
                  task.cancel(true); // interrupts the compilation: it stops at its next new state
                }
              },
              timeoutMs,
              TimeUnit.MILLISECONDS);
      f.whenComplete((v, e) -> limit.cancel(false));
    }
    return f;
  }

  /**
   * Releases the device masks of constraints dropped from the cache (scheduler thread, between
   * steps).
   */
  void closeRetired() {
    CompiledConstraint c;
    while ((c = retired.poll()) != null) {
      c.close();
    }
  }

  /** The one-line error text for a compilation that failed with {@code e}. */
  static String errorMessage(Throwable e) {
    return Errors.oneLine(e, "constraint compilation failed");
  }

  /**
   * Stops the compiler (queued compilations never complete) and releases every cached constraint's
   * masks.
   */
  @Override
  public void close() {
    compiler.shutdownNow();
    timer.shutdownNow();
    synchronized (byKey) {
      for (CompletableFuture<CompiledConstraint> f : byKey.values()) {
        f.thenAccept(CompiledConstraint::close);
      }
      byKey.clear();
    }
    closeRetired();
  }
}
