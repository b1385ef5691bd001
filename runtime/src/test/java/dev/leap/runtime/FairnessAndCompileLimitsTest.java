package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime under heavy requests: a constraint that compiles slowly fails alone at its time limit
 * while other constraints compile on the pool's other thread; a small request starts while big ones
 * hold all the KV slots they may take (the reserve for small requests). Counts and results only.
 */
class FairnessAndCompileLimitsTest {

  /**
   * 900 rules, each called through the stack and each with its own bounded repetition of 4,000+
   * letters: every rule's automaton is far inside the state limits, but together they take seconds
   * to compile (about 6 s, warm, on the 2-core development machine), so only the time limit can end
   * it. Before issue 27 a 300-member schema played this part; once its NFA construction got faster
   * it reached the NFA's state limit before the time limit on a quick machine.
   */
  static String slowGrammar() {
    StringBuilder g = new StringBuilder("root ::= r0");
    for (int i = 1; i < 900; i++) {
      g.append(" | r").append(i);
    }
    g.append('\n');
    for (int i = 0; i < 900; i++) {
      g.append('r').append(i).append(" ::= \"k").append(i).append("\" [a-z]{0,");
      g.append(4000 + i).append("} \"x\" r").append(i).append("?\n");
    }
    return g.toString();
  }

  @Test
  void aSlowCompilationFailsAtItsLimitAndOthersCompileMeanwhile() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt =
        LeapRuntime.builder()
            .setModelDir(dir)
            .optCompileThreads(2)
            .optCompileTimeoutMs(1000)
            .build()) {
      // Warm up (the first compilation loads the vocabulary's tables): later trivial ones take
      // milliseconds.
      assertNull(
          rt.generate(
                  "a", Constraint.regex("[0-9]{2}"), SamplingParams.builder().maxTokens(4).build())
              .error());
      GenerationHandle slow =
          rt.submit(
              GenerationRequest.of(
                  "a",
                  Constraint.grammar(slowGrammar()),
                  SamplingParams.builder().maxTokens(4).build()));
      Generation quick =
          rt.generate(
              "a", Constraint.regex("[0-9]{3}"), SamplingParams.builder().maxTokens(8).build());
      assertNull(quick.error(), "a trivial regex compiles beside the slow one");
      assertTrue(quick.text().matches("[0-9]{3}"), quick.text());
      Generation g = slow.join();
      assertEquals(FinishReason.ERROR, g.finishReason());
      assertTrue(g.error().contains("time limit of 1000 ms"), g.error());
      // The failure is cached: the same schema fails at once, and the runtime goes on.
      assertTrue(
          rt.generate(
                  "a",
                  Constraint.grammar(slowGrammar()),
                  SamplingParams.builder().maxTokens(4).build())
              .error()
              .contains("time limit"));
      assertNull(
          rt.generate(
                  "a", Constraint.regex("[a-c]{2}"), SamplingParams.builder().maxTokens(4).build())
              .error());
    }
  }

  @Test
  void aLongChainOfGrammarRulesCompilesOnTheCompilersDeepStack() {
    StringBuilder g = new StringBuilder("root ::= r0\n");
    for (int i = 0; i < 5000; i++) {
      g.append('r').append(i).append(" ::= r").append(i + 1).append('\n');
    }
    g.append("r5000 ::= \"x\"\n");
    try (LeapRuntime rt =
        LeapRuntime.builder().setModelDir(TestModels.dir("llama", TestModels.llama())).build()) {
      Generation r =
          rt.generate(
              "a", Constraint.grammar(g.toString()), SamplingParams.builder().maxTokens(4).build());
      assertNull(r.error(), "Tarjan's recursion over 5,000 rules overflowed a default 1 MB stack");
      assertEquals("x", r.text());
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aSmallRequestStartsWhileBigOnesHoldAllTheyMayTake() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    // 1,024 slots, 128 kept for small requests (needing at most 32): big ones (about 435 each) fit
    // twice
    // in the other 896. Big ones take 400+ steps and the small one 8, so the margin holds on a
    // loaded machine.
    try (LeapRuntime rt =
        LeapRuntime.builder()
            .setModelDir(dir)
            .optKvCapacity(1024)
            .optSmallRequestReserve(128)
            .optPrefixCache(false)
            .build()) {
      List<GenerationHandle> big = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        // At least 400 digits: hundreds of steps each, whatever the tokens.
        big.add(
            rt.submit(
                GenerationRequest.of(
                    "big " + i,
                    Constraint.regex("[0-9]{400,430}"),
                    SamplingParams.builder().maxTokens(430).seed(i).temperature(1).build())));
      }
      // Two run, two wait for slots (their constraint compiled): only then does the small one
      // arrive.
      for (int i = 0; i < 6000 && !(rt.runningRequests() == 2 && rt.waitingRequests() == 2); i++) {
        sleep(10);
      }
      assertEquals(2, rt.runningRequests());
      Generation small =
          rt.submit(
                  GenerationRequest.ofIds(
                      new int[] {5, 6},
                      Constraint.none(),
                      SamplingParams.builder().maxTokens(8).build()))
              .join();
      assertNull(small.error());
      int stillBig = 0;
      for (GenerationHandle h : big) {
        stillBig += h.isDone() ? 0 : 1;
      }
      // First come, first served would have run it after two of the big ones (two fit at a time).
      assertTrue(
          stillBig >= 3,
          "the small request finished while three big ones were still running or waiting: "
              + stillBig);
      for (GenerationHandle h : big) {
        assertNull(h.join().error());
      }
      Generation tooBig =
          rt.generate("x", Constraint.none(), SamplingParams.builder().maxTokens(950).build());
      assertTrue(
          tooBig.error() != null && tooBig.error().contains("kept for small requests"),
          String.valueOf(tooBig.error()));
    }
  }
}
