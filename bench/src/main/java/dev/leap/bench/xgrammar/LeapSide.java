package dev.leap.bench.xgrammar;

import dev.leap.vocab.TokenizerJsonVocabulary;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Leap's side: compiles with the same limit, on a worker thread (a compile past the limit is waited
 * for, not counted).
 */
final class LeapSide implements AutoCloseable {
  private final TokenizerJsonVocabulary vocab;
  private final int limitS;
  private final boolean eager;
  private final ExecutorService pool =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "leap-compile");
            t.setDaemon(true);
            return t;
          });

  LeapSide(TokenizerJsonVocabulary vocab, int limitS, boolean eager) {
    this.vocab = vocab;
    this.limitS = limitS;
    this.eager = eager;
  }

  Outcome run(Case c, List<int[]> ids) throws InterruptedException {
    Outcome o = new Outcome();
    long t0 = System.nanoTime();
    Future<LeapEngine> job =
        pool.submit(() -> LeapEngine.compile(c.kind(), c.source(), vocab, eager));
    LeapEngine engine;
    try {
      engine = job.get(limitS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      o.error = "over " + limitS + " s";
      try {
        job.get(300, TimeUnit.SECONDS); // let it finish (not counted), or it slows the next case
      } catch (ExecutionException | TimeoutException ignored) {
        // already counted as over the limit
      }
      return o;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      o.error =
          cause.getClass().getSimpleName()
              + ": "
              + String.valueOf(cause.getMessage()).lines().findFirst().orElse("");
      if (o.error.length() > 200) {
        o.error = o.error.substring(0, 200);
      }
      return o;
    }
    o.compileMs = (System.nanoTime() - t0) / 1e6;
    LeapEngine.Walk first = engine.newWalk();
    first.mask(first.initial());
    o.firstMaskMs = (System.nanoTime() - t0) / 1e6;
    o.compiled = true;
    for (int[] tok : ids) {
      engine.walk(tok, o);
    }
    return o;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
