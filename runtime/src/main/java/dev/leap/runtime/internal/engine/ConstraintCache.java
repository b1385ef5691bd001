package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDManager;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.internal.Errors;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Compiled constraints by source text ({@link Constraint#cacheKey()}), compiled off the step loop on
 * one daemon thread ({@code leap-constraint-compiler}), the least recently used dropped past a size.
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

  ConstraintCache(Tokenizer tokenizer, boolean healing, int logitsVocab, NDManager manager, int size) {
    this.tokenizer = tokenizer;
    this.healing = healing;
    this.logitsVocab = logitsVocab;
    this.manager = manager;
    this.byKey = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<CompiledConstraint>> e) {
        if (size() > size) {
          e.getValue().thenAccept(retired::add);
          return true;
        }
        return false;
      }
    };
    this.compiler = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "leap-constraint-compiler");
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
        f = CompletableFuture.supplyAsync(
            () -> CompiledConstraint.compile(key, c, tokenizer, healing, logitsVocab, manager), compiler);
        byKey.put(key, f);
      }
      return f;
    }
  }

  /** Releases the device masks of constraints dropped from the cache (scheduler thread, between steps). */
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

  /** Stops the compiler (queued compilations never complete) and releases every cached constraint's masks. */
  @Override
  public void close() {
    compiler.shutdownNow();
    synchronized (byKey) {
      for (CompletableFuture<CompiledConstraint> f : byKey.values()) {
        f.thenAccept(CompiledConstraint::close);
      }
      byKey.clear();
    }
    closeRetired();
  }
}
