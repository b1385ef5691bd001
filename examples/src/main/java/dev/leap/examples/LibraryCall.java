package dev.leap.examples;

import dev.leap.runtime.Constraint;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationStats;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.nio.file.Path;

/**
 * The library call: load a model, generate under a regex, read the result and its statistics.
 *
 * <p>Run: {@code java -cp ... dev.leap.examples.LibraryCall [MODEL_DIR]} (default: the embedded,
 * demo model trained by Leap).
 */
public final class LibraryCall {
  public static void main(String[] args) {
    Path model = args.length > 0 ? Path.of(args[0]) : DemoModel.ensure();

    try (LeapRuntime runtime =
        LeapRuntime.builder().setModelDir(model).optKvCapacity(8192).build()) {

      Generation g =
          runtime.generate(
              "Give me a phone number and a date:\n",
              Constraint.regex(
                  "Phone: \\(\\d{3}\\) \\d{3}-\\d{4}, date: 20\\d{2}-(0[1-9]|1[0-2])-\\d{2}"),
              SamplingParams.builder().temperature(0).maxTokens(64).build());

      System.out.println(g.text());
      System.out.println("finish reason: " + g.finishReason() + ", complete: " + g.isComplete());
      GenerationStats s = g.stats();
      System.out.printf(
          "forward passes %d, tokens sampled %d, tokens jumped %d (%d bytes), prompt tokens %d"
              + " (%d from the cache), first token after %.1f ms, total %.1f ms%n",
          s.forwardPasses(),
          s.tokensSampled(),
          s.tokensJumped(),
          s.bytesJumped(),
          s.promptTokens(),
          s.cachedPromptTokens(),
          s.timeToFirstTokenMs(),
          s.totalMs());
    }
  }
}
