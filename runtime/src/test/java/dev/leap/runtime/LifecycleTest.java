package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A request's life: cancellation ends it at the next step and frees its KV slots, {@code close()}
 * racing {@code submit} loses and throws nothing, and futures complete off the scheduler thread so
 * that a callback may block on the same runtime.
 */
class LifecycleTest {

  /** Long enough that a request left running would take thousands of milliseconds. */
  static final int LONG = 1500;

  /**
   * Unconstrained, so that nothing but maxTokens (or a cancel) ends it: greedy on the test model's
   * random weights never picks EOS in these prompts' first {@value #LONG} tokens (a constraint
   * would end it at its own length).
   */
  static GenerationRequest longRequest(String prompt) {
    return GenerationRequest.of(
        prompt, Constraint.none(), SamplingParams.builder().maxTokens(LONG).build());
  }

  static void awaitPasses(LeapRuntime rt, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (rt.forwardPasses() < atLeast) {
      if (System.nanoTime() > deadline) {
        fail("the runtime ran " + rt.forwardPasses() + " forward passes in 60 s");
      }
      Thread.sleep(2);
    }
  }

  /** Waits until every KV slot is free again; fails after 10 s. */
  static void awaitAllSlotsFree(LeapRuntime rt) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (rt.freeKvSlots() + rt.cachedKvSlots() != rt.kvCapacity()) {
      if (System.nanoTime() > deadline) {
        fail(
            (rt.kvCapacity() - rt.freeKvSlots() - rt.cachedKvSlots())
                + " KV slots still held 10 s after a cancel");
      }
      Thread.sleep(2);
    }
  }

  @Test
  void futureCancelEndsTheRequestAtTheNextStepAndFreesItsSlots() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optKvCapacity(4096).build()) {
      CompletableFuture<Generation> f = rt.submit(longRequest("Cancel me:"));
      awaitPasses(rt, 5);
      assertTrue(f.cancel(true));
      assertTrue(f.isCancelled());
      awaitAllSlotsFree(rt);
      long passes = rt.forwardPasses();
      Thread.sleep(200);
      assertEquals(
          passes,
          rt.forwardPasses(),
          "forward passes went on after the only request was cancelled");
      assertTrue(
          passes < LONG / 2, passes + " forward passes: the cancelled request was not ended early");
    }
  }

  @Test
  void handleCancelCompletesWithFinishReasonCancelledAndTheTextSoFar() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optKvCapacity(4096).build()) {
      GenerationHandle running = rt.submit(longRequest("Cancel me too:"));
      GenerationHandle other =
          rt.submit(
              GenerationRequest.of(
                  "Keep me:",
                  Constraint.regex("[a-z]{1,8}"),
                  SamplingParams.builder().maxTokens(8).build()));
      awaitPasses(rt, 5);
      assertTrue(running.cancel());
      Generation g = running.get(10, TimeUnit.SECONDS);
      assertEquals(FinishReason.CANCELLED, g.finishReason(), g.toString());
      assertEquals("cancelled", g.finishReason().jsonName());
      assertFalse(g.isError());
      assertTrue(g.tokenIds().length > 0 && g.tokenIds().length < LONG / 2, g.toString());
      assertFalse(g.text().isEmpty(), "the text so far is kept: " + g);
      assertFalse(running.cancel(), "a second cancel of a finished request reports nothing to do");
      assertNotEquals(
          FinishReason.CANCELLED,
          other.get(10, TimeUnit.SECONDS).finishReason(),
          "cancelling one request ended another");
      awaitAllSlotsFree(rt);

      // Cancelled before it ever ran: behind a full batch, or at once.
      GenerationHandle queued = rt.submit(longRequest("Queued:"));
      queued.cancel();
      Generation q = queued.get(10, TimeUnit.SECONDS);
      assertEquals(FinishReason.CANCELLED, q.finishReason(), q.toString());
      awaitAllSlotsFree(rt);
    }
  }

  @Test
  void aCallbackThatBlocksOnTheRuntimeDoesNotDeadlockIt() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      GenerationRequest a =
          GenerationRequest.of("First:", Constraint.regex("(yes|no)"), SamplingParams.greedy());
      GenerationRequest b =
          GenerationRequest.of("Second:", Constraint.regex("[0-9]{2}"), SamplingParams.greedy());
      AtomicReference<String> callbackThread = new AtomicReference<>();
      CompletableFuture<Generation> chained =
          rt.submit(a)
              .thenApply(
                  g -> {
                    callbackThread.set(Thread.currentThread().getName());
                    return rt.generate("Second:", b.constraint(), b.params());
                  });
      Generation g;
      try {
        g = chained.get(60, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        fail("a callback calling generate() on the same runtime did not finish in 60 s (deadlock)");
        return;
      }
      assertTrue(g.isComplete(), g.toString());
      assertNotEquals("leap-scheduler", callbackThread.get());
    }
  }

  @Test
  void submitRacingCloseNeverThrowsAndEveryRequestCompletes() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    for (int round = 0; round < 6; round++) {
      LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optKvCapacity(2048).build();
      List<CompletableFuture<Generation>> futures = Collections.synchronizedList(new ArrayList<>());
      List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> submitters = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int id = t;
        Thread th =
            new Thread(
                () -> {
                  int i = 0;
                  while (!stop.get()) {
                    try {
                      // A new regex each time, so every submit also hands a compilation to the
                      // compiler.
                      String regex = "(r" + round(id, i) + "|[0-9]{1,3})";
                      futures.add(
                          rt.submit(
                              GenerationRequest.of(
                                  "Submit " + i + " of thread " + id + ":",
                                  Constraint.regex(regex),
                                  SamplingParams.builder().maxTokens(3).build())));
                    } catch (Throwable e) {
                      thrown.add(e);
                    }
                    i++;
                  }
                });
        th.start();
        submitters.add(th);
      }
      Thread.sleep(100 + 40 * round);
      rt.close();
      Thread.sleep(20);
      stop.set(true);
      for (Thread th : submitters) {
        th.join();
      }
      assertEquals(List.of(), thrown, "submit threw");
      int closedErrors = 0;
      synchronized (futures) {
        for (CompletableFuture<Generation> f : futures) {
          Generation g;
          try {
            g = f.get(10, TimeUnit.SECONDS);
          } catch (TimeoutException e) {
            fail(
                "round "
                    + round
                    + ": a request accepted around close() never completed (of "
                    + futures.size()
                    + ")");
            return;
          }
          if (g.isError()) {
            assertTrue(g.error().contains("closed"), g.error());
            closedErrors++;
          }
        }
      }
      assertTrue(closedErrors > 0, "no submit met the closed runtime");
      Generation after =
          rt.submit(
                  GenerationRequest.of(
                      "late", Constraint.regex("late|later"), SamplingParams.greedy()))
              .get(1, TimeUnit.SECONDS);
      assertTrue(after.isError() && after.error().contains("closed"), after.toString());
    }
  }

  @Test
  void closeTwiceFromTwoThreadsIsSafe() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build();
    GenerationHandle h = rt.submit(longRequest("Closed under me:"));
    awaitPasses(rt, 3);
    Thread other = new Thread(rt::close);
    other.start();
    rt.close();
    other.join();
    Generation g = h.get(10, TimeUnit.SECONDS);
    assertTrue(g.isError() && g.error().contains("closed"), g.toString());
    rt.close();
  }

  private static String round(int thread, int i) {
    return thread + "x" + i;
  }
}
