package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The scheduler under a seeded random load on a small real model: hundreds of requests with jumps
 * (forced JSON-ish text), stop strings, shared prompt prefixes, long prompts prefilled in chunks,
 * cancellations of both kinds, bad requests, a KV pool small enough to make requests queue and the
 * radix cache evict, submitters on several threads, and a {@code close()} in the middle of a burst.
 * With {@code optCheckInvariants} the runtime verifies its KV ledger after every step (a violation
 * would end the running requests with an "internal error" result) and the DFA state after every
 * jump. Checked here: every request completes exactly once, with the result its kind calls for, and
 * no KV slot is leaked, after the first burst and after the close.
 */
class SchedulerRandomTest {

  static final String[] REGEXES = {
    "\\{\"id\": [0-9]{1,3}, \"tag\": \"[a-z]{1,6}\"\\}",
    "(SELECT|UPDATE) [a-z_]{1,6} FROM users WHERE id = [0-9]{1,3};",
    "<(item|entry)>[A-Za-z]{1,6}</(item|entry)>",
    "[a-z ]{1,40}",
  };

  enum Kind {
    OK,
    STOP_STRING,
    BAD_REGEX,
    TOO_LONG,
    TOO_MANY_TOKENS,
    BAD_ID,
    CANCEL,
    FUTURE_CANCEL
  }

  record Submitted(
      Kind kind, GenerationRequest request, GenerationHandle handle, AtomicInteger completions) {}

  static Submitted submit(LeapRuntime rt, SplittableRandom rnd, int i) {
    Kind kind = Kind.values()[rnd.nextInt(10) < 5 ? 0 : rnd.nextInt(Kind.values().length)];
    String base = "Shared preamble " + rnd.nextInt(3) + " with some words to cache. ";
    String prompt = base + "Request " + i + ":";
    if (rnd.nextInt(8) == 0) {
      prompt = base + "word ".repeat(100 + rnd.nextInt(200)) + i; // prefilled in several chunks
    }
    Constraint c =
        rnd.nextInt(5) == 0
            ? Constraint.none()
            : Constraint.regex(REGEXES[rnd.nextInt(REGEXES.length)]);
    SamplingParams.Builder p =
        SamplingParams.builder().maxTokens(1 + rnd.nextInt(30)).seed(rnd.nextLong());
    if (rnd.nextBoolean()) {
      p.temperature(0.5 + rnd.nextDouble());
    }
    GenerationRequest r =
        switch (kind) {
          case STOP_STRING ->
              GenerationRequest.of(
                  prompt,
                  c,
                  p.stop(List.of(new String[] {"a", "\"", "1", "e ", "</"}[rnd.nextInt(5)]))
                      .build());
          case BAD_REGEX -> GenerationRequest.of(prompt, Constraint.regex("(ab" + i), p.build());
          case TOO_LONG -> GenerationRequest.of("x ".repeat(2100), c, p.build());
          case TOO_MANY_TOKENS -> GenerationRequest.of(prompt, c, p.maxTokens(1900).build());
          case BAD_ID ->
              GenerationRequest.ofIds(new int[] {1, 2, 60_000 + i}, Constraint.none(), p.build());
          default -> GenerationRequest.of(prompt, c, p.build());
        };
    GenerationHandle h = rt.submit(r);
    AtomicInteger completions = new AtomicInteger();
    h.whenComplete((g, e) -> completions.incrementAndGet());
    if (kind == Kind.CANCEL && rnd.nextBoolean()) {
      h.cancel(); // at once: it may not even have been admitted
    } else if (kind == Kind.FUTURE_CANCEL && rnd.nextBoolean()) {
      h.cancel(true);
    }
    return new Submitted(kind, r, h, completions);
  }

  static void check(Submitted s, boolean closing) throws InterruptedException {
    Generation g;
    try {
      g = s.handle().get(120, TimeUnit.SECONDS);
    } catch (CancellationException e) {
      assertEquals(Kind.FUTURE_CANCEL, s.kind(), "only Future.cancel may cancel the future itself");
      return;
    } catch (ExecutionException e) {
      fail("a handle completed exceptionally: " + e.getCause());
      return;
    } catch (TimeoutException e) {
      fail(s.kind() + " request never completed");
      return;
    }
    String what = s.kind() + " " + g;
    if (g.isError()) {
      assertFalse(g.error().contains("internal error"), what);
      switch (s.kind()) {
        case BAD_REGEX ->
            assertTrue(g.error().contains("missing ')'") || g.error().contains("closed"), what);
        case TOO_LONG ->
            assertTrue(
                g.error().contains("max_position_embeddings") || g.error().contains("closed"),
                what);
        case TOO_MANY_TOKENS ->
            assertTrue(g.error().contains("KV capacity") || g.error().contains("closed"), what);
        case BAD_ID ->
            assertTrue(g.error().contains("vocabulary") || g.error().contains("closed"), what);
        default -> assertTrue(closing && g.error().contains("closed"), what);
      }
      return;
    }
    assertTrue(
        s.kind() == Kind.OK
            || s.kind() == Kind.STOP_STRING
            || s.kind() == Kind.CANCEL
            || s.kind() == Kind.FUTURE_CANCEL,
        what);
    if (g.finishReason() == FinishReason.CANCELLED) {
      assertTrue(s.kind() == Kind.CANCEL, what);
      return;
    }
    for (String stop : s.request().params().stop()) {
      assertFalse(g.text().contains(stop), what);
    }
    assertTrue(g.tokenIds().length <= s.request().params().maxTokens(), what);
    if (s.request().constraint().kind() != Constraint.Kind.NONE
        && g.finishReason() == FinishReason.STOP
        && s.request().params().stop().isEmpty()) {
      assertTrue(g.isComplete(), what);
    }
  }

  static void awaitCompletionsCounted(List<Submitted> all) throws InterruptedException {
    for (Submitted s : all) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (s.completions().get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertEquals(
          1,
          s.completions().get(),
          s.kind() + " request completed " + s.completions().get() + " times");
    }
  }

  @Test
  void hundredsOfRandomRequestsWithCancellationsEvictionsAndACloseCompleteExactlyOnce()
      throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(1414);
    LeapRuntime rt =
        LeapRuntime.builder()
            .setModelDir(dir)
            .optKvCapacity(1800)
            .optMaxBatch(8)
            .optPrefillChunk(48)
            .optCheckInvariants(true)
            .build();
    try {
      // Burst 1: 240 requests from three threads, then everything must come back.
      List<Submitted> first = burst(rt, rnd, 0, 240, null);
      for (Submitted s : first) {
        check(s, false);
      }
      awaitCompletionsCounted(first);
      assertEquals(
          rt.kvCapacity(),
          rt.freeKvSlots() + rt.cachedKvSlots(),
          "slots leaked after the first burst");
      int cancelled = 0;
      for (Submitted s : first) {
        if (s.handle().isCancelled()
            || (!s.handle().isCompletedExceptionally()
                && s.handle().join().finishReason() == FinishReason.CANCELLED)) {
          cancelled++;
        }
      }
      assertTrue(cancelled > 5, "only " + cancelled + " cancellations took effect");

      // Cancellations of running requests: cancel a few while they decode.
      List<Submitted> running = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        GenerationRequest r =
            GenerationRequest.of(
                "Running " + i + ":",
                Constraint.regex("[a-z]{1,1000}"),
                SamplingParams.builder().maxTokens(200).build());
        GenerationHandle h = rt.submit(r);
        AtomicInteger n = new AtomicInteger();
        h.whenComplete((g, e) -> n.incrementAndGet());
        running.add(new Submitted(Kind.CANCEL, r, h, n));
      }
      Thread.sleep(300);
      for (Submitted s : running) {
        s.handle().cancel();
      }
      for (Submitted s : running) {
        check(s, false);
      }
      awaitCompletionsCounted(running);
      assertEquals(
          rt.kvCapacity(),
          rt.freeKvSlots() + rt.cachedKvSlots(),
          "slots leaked after cancelling running requests");

      // Burst 2, closed in the middle.
      List<Submitted> second = burst(rt, rnd, 240, 120, rt);
      for (Submitted s : second) {
        check(s, true);
      }
      awaitCompletionsCounted(second);
      assertEquals(
          rt.kvCapacity(), rt.freeKvSlots() + rt.cachedKvSlots(), "slots leaked by the close");
    } finally {
      rt.close();
    }
  }

  /** Submits {@code n} requests from three threads; with {@code closeMidway}, closes it halfway. */
  static List<Submitted> burst(
      LeapRuntime rt, SplittableRandom rnd, int from, int n, LeapRuntime closeMidway)
      throws InterruptedException {
    List<Submitted> out = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    AtomicInteger next = new AtomicInteger(from);
    AtomicInteger failures = new AtomicInteger();
    for (int t = 0; t < 3; t++) {
      SplittableRandom own = rnd.split();
      Thread th =
          new Thread(
              () -> {
                int i;
                while ((i = next.getAndIncrement()) < from + n) {
                  try {
                    out.add(submit(rt, own, i));
                    if (own.nextInt(4) == 0) {
                      Thread.sleep(own.nextInt(20));
                    }
                  } catch (Throwable e) {
                    failures.incrementAndGet();
                    e.printStackTrace();
                  }
                }
              });
      th.start();
      threads.add(th);
    }
    if (closeMidway != null) {
      while (next.get() < from + n / 2) {
        Thread.sleep(1);
      }
      closeMidway.close();
    }
    for (Thread th : threads) {
      th.join();
    }
    assertEquals(0, failures.get(), "submit threw");
    return out;
  }
}
