package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's chunked prefill: greedy outputs equal those of the runtime with one chunk as
 * large as any prompt (the one-shot prefill), for seeded random prompts, chunk sizes and
 * constraints with jumps; and the prefill of a long prompt is spread over several steps.
 */
class ChunkedSchedulingTest {

  static final String REGEX = "\\{\"id\": [0-9]{1,3}, \"tag\": \"[a-z]{1,6}\"\\}";

  @Test
  void chunkedPrefillGivesTheOutputsOfTheOneShotPrefill() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(2024);
    List<GenerationRequest> reqs = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      StringBuilder prompt = new StringBuilder("Record " + i + ":");
      int words = rnd.nextInt(300);
      for (int w = 0; w < words; w++) {
        prompt.append(' ').append((char) ('a' + rnd.nextInt(26))).append(rnd.nextInt(100));
      }
      reqs.add(
          GenerationRequest.of(
              prompt.toString(),
              i % 3 == 0 ? Constraint.none() : Constraint.regex(REGEX),
              SamplingParams.builder().maxTokens(24).build()));
    }
    List<Generation> oneShot;
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optPrefillChunk(2048).build()) {
      oneShot = rt.generateAll(reqs);
    }
    for (int chunk : new int[] {1 + rnd.nextInt(16), 64 + rnd.nextInt(64)}) {
      try (LeapRuntime rt =
          LeapRuntime.builder()
              .setModelDir(dir)
              .optPrefillChunk(chunk)
              .optCheckInvariants(true)
              .build()) {
        List<Generation> chunked = rt.generateAll(reqs);
        for (int i = 0; i < reqs.size(); i++) {
          assertFalse(chunked.get(i).isError(), chunked.get(i).toString());
          assertArrayEquals(
              oneShot.get(i).tokenIds(),
              chunked.get(i).tokenIds(),
              "request " + i + ", chunk " + chunk);
          assertEquals(oneShot.get(i).finishReason(), chunked.get(i).finishReason());
        }
        assertEquals(
            rt.kvCapacity(),
            rt.freeKvSlots() + rt.cachedKvSlots(),
            "slots leaked with chunk " + chunk);
      }
    }
  }

  @Test
  void aLongPromptIsPrefilledOverSeveralStepsWhileAnotherRequestDecodes() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optPrefillChunk(32).build()) {
      int[] longPrompt = new SplittableRandom(5).ints(900, 0, 50000).toArray();
      GenerationHandle decoding =
          rt.submit(
              GenerationRequest.of(
                  "Short:",
                  Constraint.regex("[a-z]{1000}"),
                  SamplingParams.builder().maxTokens(40).build()));
      LifecycleTest.awaitPasses(rt, 2); // the short request is decoding
      GenerationHandle prefilling =
          rt.submit(
              GenerationRequest.ofIds(
                  longPrompt, Constraint.none(), SamplingParams.builder().maxTokens(1).build()));
      Generation d = decoding.get();
      Generation p = prefilling.get();
      // 900 tokens at 32 per step: at least 29 passes, and the short request's 40 tokens ran beside
      // them.
      assertTrue(p.stats().forwardPasses() >= 900 / 32, p.toString());
      assertEquals(40, d.tokenIds().length, d.toString());
      assertTrue(d.stats().forwardPasses() <= 41, "the short request waited for the prefill: " + d);
      assertTrue(
          rt.forwardPasses() < 900 / 32 + 41 - 10,
          rt.forwardPasses() + " passes: the two did not overlap");
    }
  }
}
