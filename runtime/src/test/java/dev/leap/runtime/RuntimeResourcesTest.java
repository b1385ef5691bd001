package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * KV slots and native memory over many requests, bursts beyond the KV capacity, and bad requests.
 */
class RuntimeResourcesTest {

  static final String REGEX = "\\{\"id\": [0-9]{1,3}, \"tag\": \"[a-z]{1,6}\"\\}";

  @Test
  void aThousandRequestsLeakNoSlotsAndNoNativeArrays() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    for (boolean prefixCache : new boolean[] {false, true}) {
      try (LeapRuntime rt =
          LeapRuntime.builder()
              .setModelDir(dir)
              .optPrefixCache(prefixCache)
              .optKvCapacity(8192)
              .build()) {
        int free0 = rt.freeKvSlots();
        assertEquals(rt.kvCapacity(), free0);
        int arraysAfterWarmup = -1;
        for (int round = 0; round < 10; round++) {
          List<GenerationRequest> reqs = new ArrayList<>();
          for (int i = 0; i < 100; i++) {
            reqs.add(
                GenerationRequest.of(
                    "Record " + (round * 100 + i) + ":",
                    Constraint.regex(REGEX),
                    SamplingParams.builder()
                        .maxTokens(24)
                        .temperature(i % 2 == 0 ? 0 : 1)
                        .seed(i)
                        .build()));
          }
          for (Generation g : rt.generateAll(reqs)) {
            assertFalse(g.isError(), g.toString());
          }
          if (round == 0) {
            arraysAfterWarmup = rt.liveNativeArrays();
          }
          if (prefixCache) {
            assertEquals(rt.kvCapacity(), rt.freeKvSlots() + rt.cachedKvSlots(), "round " + round);
          } else {
            assertEquals(free0, rt.freeKvSlots(), "round " + round);
          }
        }
        // Native memory: after the first round only masks of newly visited DFA states may appear.
        int states = dev.leap.fsm.CompressedFsm.compile(REGEX).stateCount();
        assertTrue(
            rt.liveNativeArrays() <= arraysAfterWarmup + states,
            rt.liveNativeArrays()
                + " native arrays after 1,000 requests, "
                + arraysAfterWarmup
                + " after 100");
      }
    }
  }

  @Test
  void aBurstLargerThanTheKvCapacityCompletesWithSomeWaiting() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    // Each request may hold prompt (~6) + 40 slots; 300 slots fit about six at a time.
    try (LeapRuntime rt =
        LeapRuntime.builder().setModelDir(dir).optKvCapacity(300).optPrefixCache(true).build()) {
      List<GenerationRequest> reqs = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        reqs.add(
            GenerationRequest.of(
                "Item " + i + ":",
                Constraint.regex(REGEX),
                SamplingParams.builder().maxTokens(40).build()));
      }
      long before = rt.forwardPasses();
      List<Generation> out = rt.generateAll(reqs);
      for (Generation g : out) {
        assertFalse(g.isError(), g.toString());
        assertTrue(g.isComplete() || g.finishReason() == FinishReason.LENGTH);
      }
      int longest = 0;
      for (Generation g : out) {
        longest = Math.max(longest, g.stats().forwardPasses());
      }
      // Had all 40 run at once, the batch would need about as many passes as the longest request.
      assertTrue(
          rt.forwardPasses() - before > longest * 2L,
          "requests did not queue: " + (rt.forwardPasses() - before));
      assertEquals(rt.kvCapacity(), rt.freeKvSlots() + rt.cachedKvSlots());
    }
  }

  @Test
  void badRequestsGetErrorResultsAndTheOthersComplete() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    // KV capacity 1,024 is below prompt + maxTokens for request 5 (maxTokens is capped by the
    // context).
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optKvCapacity(1024).build()) {
      List<GenerationRequest> reqs =
          List.of(
              GenerationRequest.of("ok:", Constraint.regex("(yes|no)"), SamplingParams.greedy()),
              GenerationRequest.of("bad:", Constraint.regex("a(b"), SamplingParams.greedy()),
              GenerationRequest.of(
                  "limit:", Constraint.regex("(a|b)*a(a|b){24}"), SamplingParams.greedy()),
              GenerationRequest.of(
                  "x ".repeat(2100), Constraint.regex("(yes|no)"), SamplingParams.greedy()),
              GenerationRequest.ofIds(
                  new int[] {1, 2, 999_999}, Constraint.none(), SamplingParams.greedy()),
              GenerationRequest.of(
                  "big:", Constraint.none(), SamplingParams.builder().maxTokens(5000).build()),
              GenerationRequest.of(
                  "ok too:", Constraint.choice("red", "green"), SamplingParams.greedy()));
      List<Generation> out = rt.generateAll(reqs);
      assertTrue(out.get(0).isComplete(), out.get(0).toString());
      assertTrue(
          out.get(1).isError() && out.get(1).error().contains("index 1"), out.get(1).error());
      assertTrue(
          out.get(2).isError() && out.get(2).error().contains("state limit"), out.get(2).error());
      assertTrue(
          out.get(3).isError() && out.get(3).error().contains("max_position_embeddings"),
          out.get(3).error());
      assertTrue(out.get(4).isError() && out.get(4).error().contains("999999"), out.get(4).error());
      assertTrue(
          out.get(5).isError() && out.get(5).error().contains("KV capacity"), out.get(5).error());
      assertTrue(out.get(6).isComplete(), out.get(6).toString());
      assertEquals(FinishReason.ERROR, out.get(1).finishReason());
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeapRuntime.builder().setModelDir(Path.of("/no/such/model")).build());
    assertTrue(e.getMessage().contains("/no/such/model"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> SamplingParams.builder().maxTokens(0).build());
    assertThrows(IllegalArgumentException.class, () -> SamplingParams.builder().topP(0).build());
  }
}
