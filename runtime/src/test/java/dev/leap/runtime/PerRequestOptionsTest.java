package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** A request's own jump-forward setting, queue time, and the running/waiting counts. */
class PerRequestOptionsTest {

  @Test
  void aRequestsOwnJumpForwardSettingWinsOverTheRuntimes() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    List<GenerationRequest> base = new ArrayList<>();
    for (ConstrainedGenerationTest.Case c : ConstrainedGenerationTest.cases(1717, 24)) {
      base.add(c.request());
    }
    List<List<Generation>> alone =
        new ArrayList<>(); // [runtime setting][request], one request at a time
    for (boolean runtimeSetting : new boolean[] {true, false}) {
      try (LeapRuntime rt =
          LeapRuntime.builder()
              .setModelDir(dir)
              .optJumpForward(runtimeSetting)
              .optCheckInvariants(true)
              .build()) {
        // Both settings side by side in one batch: each request gets its own.
        List<GenerationRequest> mixed = new ArrayList<>();
        for (GenerationRequest r : base) {
          mixed.add(r.withJumpForward(true));
          mixed.add(r.withJumpForward(false));
        }
        List<Generation> out = rt.generateAll(mixed);
        long jumpedOn = 0;
        for (int i = 0; i < base.size(); i++) {
          Generation on = out.get(2 * i);
          Generation off = out.get(2 * i + 1);
          assertEquals(
              0,
              off.stats().tokensJumped(),
              "jump-forward off for this request, yet it jumped: " + off);
          assertEquals(off.tokenIds().length, off.stats().tokensSampled(), off.toString());
          jumpedOn += on.stats().tokensJumped();
        }
        assertTrue(jumpedOn > 0, "no request with jump-forward on jumped: the test checks nothing");
        // Alone, a request's own setting gives exactly what the runtime's setting gives.
        List<Generation> own = new ArrayList<>();
        for (GenerationRequest r : base.subList(0, 8)) {
          own.add(rt.submit(r.withJumpForward(!runtimeSetting)).join());
        }
        alone.add(own);
      }
    }
    try (LeapRuntime on = LeapRuntime.builder().setModelDir(dir).optJumpForward(true).build();
        LeapRuntime off = LeapRuntime.builder().setModelDir(dir).optJumpForward(false).build()) {
      for (int i = 0; i < 8; i++) {
        Generation viaOff =
            off.submit(base.get(i)).join(); // = request-level off in the "on" runtime
        Generation viaOn = on.submit(base.get(i)).join(); // = request-level on in the "off" runtime
        assertArrayEquals(
            viaOff.tokenIds(), alone.get(0).get(i).tokenIds(), base.get(i).toString());
        assertArrayEquals(viaOn.tokenIds(), alone.get(1).get(i).tokenIds(), base.get(i).toString());
        assertEquals(viaOn.stats().tokensJumped(), alone.get(1).get(i).stats().tokensJumped());
      }
    }
  }

  @Test
  void queueTimeAndWaitingCountsSeeARequestThatWaitsForTheBatch() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optMaxBatch(1).build()) {
      CountDownLatch firstRunning = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      // The first request's listener runs on the scheduler thread: holding it there (which real
      // listeners must never do) freezes the scheduler with the first request running,
      // deterministically.
      GenerationHandle first =
          rt.submit(
              GenerationRequest.of(
                  "one", Constraint.none(), SamplingParams.builder().maxTokens(40).build()),
              new OutputListener() {
                @Override
                public void onText(String delta) {
                  firstRunning.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              });
      firstRunning.await();
      GenerationHandle second =
          rt.submit(
              GenerationRequest.of(
                  "two", Constraint.none(), SamplingParams.builder().maxTokens(4).build()));
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (rt.waitingRequests() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(
          1, rt.waitingRequests(), "the second request waits while the only batch place is taken");
      assertEquals(1, rt.runningRequests());
      Thread.sleep(50);
      release.countDown();
      Generation g1 = first.get();
      Generation g2 = second.get();
      assertTrue(g1.stats().queueMs() < g1.stats().totalMs(), g1.stats().toString());
      assertTrue(
          g2.stats().queueMs() >= 50, "the second request queued behind the first: " + g2.stats());
      assertTrue(g2.stats().queueMs() <= g2.stats().totalMs(), g2.stats().toString());
      deadline = System.nanoTime() + 5_000_000_000L;
      while ((rt.runningRequests() > 0 || rt.waitingRequests() > 0)
          && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(0, rt.runningRequests());
      assertEquals(0, rt.waitingRequests());
    }
  }
}
