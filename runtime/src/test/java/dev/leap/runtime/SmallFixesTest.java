package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code bytesJumped} counts output, long inputs make short errors, a missing CUDA is one line. The
 * command line's side of the last two: {@code dev.leap.cli.ErrorLinesTest}.
 */
class SmallFixesTest {

  static int outputBytes(Tokenizer tok, Generation g) {
    int n = 0;
    for (int id : g.tokenIds()) {
      n += tok.tokenBytes(id).length;
    }
    return n;
  }

  @Test
  void bytesJumpedCountsOnlyBytesThatReachTheOutput() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      Generation cut =
          rt.generate(
              "Letters:",
              Constraint.regex("a{1000}"),
              SamplingParams.builder().maxTokens(8).build());
      assertEquals(FinishReason.LENGTH, cut.finishReason(), cut.toString());
      int out = outputBytes(rt.tokenizer(), cut);
      assertTrue(
          cut.stats().bytesJumped() > 0 && cut.stats().bytesJumped() <= out,
          cut.stats().bytesJumped() + " bytes jumped, " + out + " bytes output");

      // Seeded random constrained requests: jumped bytes never exceed the output's bytes.
      List<GenerationRequest> reqs = new ArrayList<>();
      for (ConstrainedGenerationTest.Case c : ConstrainedGenerationTest.cases(1414, 40)) {
        reqs.add(c.request());
      }
      long jumpedTotal = 0;
      for (Generation g : rt.generateAll(reqs)) {
        if (g.isError()) {
          continue;
        }
        int bytes = outputBytes(rt.tokenizer(), g);
        assertTrue(
            g.stats().bytesJumped() <= bytes,
            g.stats().bytesJumped() + " bytes jumped, " + bytes + " output: " + g);
        jumpedTotal += g.stats().bytesJumped();
      }
      assertTrue(jumpedTotal > 0, "no request jumped: the test checks nothing");
    }
  }

  @Test
  void aHugeBadRegexGivesAShortErrorResult() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    String regex = "x".repeat(60_000) + "(?=y)" + "z".repeat(40_000);
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      Generation g = rt.generate("p", Constraint.regex(regex), SamplingParams.greedy());
      assertTrue(g.isError() && g.error().contains("index 60000"), g.error());
      assertTrue(g.error().length() < 400, g.error().length() + " chars");
    }
  }

  @Test
  void aGpuDeviceWithoutCudaIsOneLineSayingSo() {
    Assumptions.assumeTrue(Engine.getInstance().getGpuCount() == 0, "this machine has CUDA");
    Path dir = TestModels.dir("llama", TestModels.llama());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeapRuntime.builder().setModelDir(dir).optDevice("gpu0").build());
    assertTrue(
        e.getMessage().contains("CUDA is not available")
            && e.getMessage().contains("PYTORCH_LIBRARY_PATH"),
        e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }
}
