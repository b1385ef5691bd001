package dev.leap.bench.model;

import dev.leap.runtime.Constraint;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationHandle;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Does a long prompt freeze everyone else's decoding? One request decodes (a regex that never
 * forces text, so it takes part in every step) while a prompt of N tokens arrives and is prefilled;
 * a thread watches the runtime's forward-pass counter and records the time between consecutive
 * steps, i.e. between two tokens of the decoding request. Reported: the largest gap while the
 * prompt is prefilled, the median gap, and the long prompt's time to its first token, for a prefill
 * in one pass ({@code optPrefillChunk} larger than the prompt, the behaviour before chunked
 * prefill) and in chunks of 512 and 256 tokens.
 *
 * <pre>
 * ./leap --help >/dev/null   # builds
 * java -Dai.djl.offline=true -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.leap.bench.model.PrefillGapBench [tokens]
 * </pre>
 */
public final class PrefillGapBench {
  private PrefillGapBench() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 4000;
    Path dir = DemoModel.ensure();
    int[] prompt = new SplittableRandom(4).ints(n, 100, 50_000).toArray();
    System.out.println(
        "| prefill | prompt tokens | largest gap between two steps of a decoding request (ms) | median gap (ms) | steps during the prefill | long prompt's first token (ms) |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (int chunk : new int[] {n + 1, 512, 256}) {
      try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optPrefillChunk(chunk).build()) {
        rt.generate(
            "Warm up:",
            Constraint.regex("[a-z]{1,20}"),
            SamplingParams.builder().maxTokens(4).build());
        GenerationHandle decoding =
            rt.submit(
                GenerationRequest.of(
                    "Name:",
                    Constraint.regex("[a-z]{1,1000}"),
                    SamplingParams.builder().maxTokens(1000).build()));
        long start = rt.forwardPasses();
        while (rt.forwardPasses() < start + 5) {
          Thread.onSpinWait();
        }
        long[] gaps = new long[100_000];
        int g = 0;
        GenerationHandle longOne =
            rt.submit(
                GenerationRequest.ofIds(
                    prompt, Constraint.none(), SamplingParams.builder().maxTokens(1).build()));
        long passes = rt.forwardPasses();
        long last = System.nanoTime();
        while (!longOne.isDone() && g < gaps.length) {
          long p = rt.forwardPasses();
          if (p != passes) {
            long now = System.nanoTime();
            gaps[g++] = now - last;
            last = now;
            passes = p;
          }
          Thread.onSpinWait();
        }
        Generation lg = longOne.get();
        decoding.cancel();
        decoding.get();
        long[] sorted = Arrays.copyOf(gaps, g);
        Arrays.sort(sorted);
        System.out.println(
            String.format(
                Locale.ROOT,
                "| %s | %d | %.0f | %.0f | %d | %.0f |",
                chunk > n ? "one pass" : "chunks of " + chunk,
                n,
                g == 0 ? 0 : sorted[g - 1] / 1e6,
                g == 0 ? 0 : sorted[g / 2] / 1e6,
                g,
                lg.stats().timeToFirstTokenMs()));
      }
    }
  }
}
