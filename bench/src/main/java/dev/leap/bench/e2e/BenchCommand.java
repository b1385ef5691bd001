package dev.leap.bench.e2e;

import dev.leap.bench.model.ForwardCommand;
import dev.leap.bench.model.ProfileCommand;
import dev.leap.bench.model.VocabProductCommand;
import dev.leap.bench.peers.PeersCommand;
import dev.leap.bench.serve.AbuseBenchCommand;
import dev.leap.bench.serve.IdleConnectionsCommand;
import dev.leap.bench.serve.ServeBenchCommand;
import dev.leap.options.RuntimeOptionsMixin;
import dev.leap.runtime.LeapRuntime;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench characters|longdoc}: the end-to-end benchmarks, jump-forward against
 * token-by-token constrained decoding in one process (see {@code ../shared/DESIGN.md},
 * "Measuring").
 *
 * <p>{@code characters}: SGLang's character benchmark (its 50 names, prompt template and {@code
 * character_regex}; temperature 0; {@code maxTokens} 256). Batch-1 latency alternates the two modes
 * request by request; throughput runs all requests at once per mode, alternating modes for {@code
 * --repeats} rounds; medians are reported.
 *
 * <p>{@code longdoc}: extraction questions over held-out fictional city articles ({@code --docs},
 * 2,500-3,500 tokens, seeds the training never draws) constrained by SGLang's {@code city_regex},
 * one after another, jump-forward against token-by-token with the radix cache on (and, for the
 * first document, off): time to first token of the first and the later questions, prompt tokens
 * prefilled vs served from the cache, the share of fields equal to the document's facts, and how
 * often the two modes' greedy outputs are identical. Every output and its truth go into the JSON.
 *
 * <p>This class holds the options, their checks and the runtimes' settings; each benchmark runs in
 * its own class ({@link CharactersBench}, {@link LongdocBench}) and writes through {@link
 * ModeReport}.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = {
      ServeBenchCommand.class,
      IdleConnectionsCommand.class,
      AbuseBenchCommand.class,
      ProfileCommand.class,
      VocabProductCommand.class,
      ForwardCommand.class,
      PeersCommand.class
    },
    description =
        "End-to-end benchmarks: 'characters' (SGLang's character JSON), 'longdoc' (extraction over long held-out documents) , 'serve' (load on the HTTP server), 'idle' (idle connections against a running server), 'abuse' (stalled clients, heavy requests, hostile input), 'profile' (per-op profile of a forward pass), 'vocab' (the float16 vocabulary product through every PyTorch kernel), 'forward' (the forward pass alone, any device) or 'peers' (beside llama.cpp).")
public final class BenchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RuntimeOptionsMixin runtimeOptions;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "characters|longdoc",
      description = "Which benchmark (the server's load benchmark is the subcommand serve).")
  String which;

  @Option(
      names = "--requests",
      description =
          "Requests (characters: default 50 names; longdoc: questions per document, default 8).")
  Integer requests;

  @Option(
      names = "--parallel",
      defaultValue = "64",
      description = "Concurrent requests for the throughput runs. Default: ${DEFAULT-VALUE}.")
  int parallel;

  @Option(
      names = "--repeats",
      defaultValue = "3",
      description = "Throughput rounds per mode (medians reported). Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Option(names = "--max-tokens", defaultValue = "256", description = "Default: ${DEFAULT-VALUE}.")
  int maxTokens;

  @Option(
      names = "--temperature",
      defaultValue = "0",
      description =
          "Sampling temperature (0 = greedy, SGLang's setting). Default: ${DEFAULT-VALUE}.")
  double temperature;

  @Option(
      names = "--seed",
      defaultValue = "0",
      description = "Sampling seed (per request: seed + index). Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--docs",
      defaultValue = "5",
      description =
          "longdoc: held-out documents (questions per document: --requests, default 8). Default: ${DEFAULT-VALUE}.")
  int docs;

  @Option(
      names = "--doc-tokens",
      defaultValue = "2500-3500",
      paramLabel = "MIN-MAX",
      description = "longdoc: document length range in tokens. Default: ${DEFAULT-VALUE}.")
  String docTokens;

  int docTokensMin;
  int docTokensMax;

  @Option(
      names = "--compare-dtype",
      paramLabel = "DTYPE",
      description =
          "characters: also run batch 1 in this dtype"
              + " (both modes, interleaved with the main runs) and report its latency and its greedy agreement with --dtype.")
  String compareDtype;

  @Option(
      names = "--generator",
      defaultValue = "first",
      paramLabel = "first|second",
      description =
          "longdoc: the article generator: first (CityDocument, the one training uses) or second "
              + "(GazetteerDocument: other frames, order and layout, never used in training). Default: ${DEFAULT-VALUE}.")
  String generator;

  @Option(
      names = "--force-first-token",
      description =
          "longdoc, a diagnostic: the constraint fixes each value's first token to the truth's (the rest"
              + " is the model's), to measure how much of the error is a value's first token. Not a result.")
  boolean forceFirstToken;

  @Option(
      names = "--values",
      defaultValue = "open",
      paramLabel = "open|closed",
      description =
          "longdoc: the held-out cities' values: open (City.open, the copy recipe's generators, which"
              + " trained the demo model) or closed (City.of's lists, which older models learned). Default: ${DEFAULT-VALUE}.")
  String values;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "JSON results. Default: bench-results/<benchmark>.json.")
  Path out;

  @Option(
      names = "--chart",
      paramLabel = "FILE",
      description = "PNG chart (characters). Default: bench-results/<benchmark>.png.")
  Path chart;

  @Override
  public Integer call() throws Exception {
    if (which == null || !which.equals("characters") && !which.equals("longdoc")) {
      throw new IllegalArgumentException(
          (which == null ? "name a benchmark" : "unknown benchmark '" + which + "'")
              + ": use characters, longdoc or serve");
    }
    if (parallel < 1) {
      throw new IllegalArgumentException("--parallel must be at least 1, got " + parallel);
    }
    if (repeats < 1) {
      throw new IllegalArgumentException("--repeats must be at least 1, got " + repeats);
    }
    if (requests != null && requests < 1) {
      throw new IllegalArgumentException("--requests must be at least 1, got " + requests);
    }
    if (maxTokens < 1) {
      throw new IllegalArgumentException("--max-tokens must be at least 1, got " + maxTokens);
    }
    if (!(temperature >= 0)) {
      throw new IllegalArgumentException("--temperature must be >= 0, got " + temperature);
    }
    if (docs < 1) {
      throw new IllegalArgumentException("--docs must be at least 1, got " + docs);
    }
    String[] range = docTokens.split("-");
    try {
      docTokensMin = Integer.parseInt(range[0].strip());
      docTokensMax = Integer.parseInt(range[range.length - 1].strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--doc-tokens must be MIN-MAX in tokens, got '" + docTokens + "'");
    }
    if (docTokensMin < 100 || docTokensMax < docTokensMin || docTokensMax > 3800) {
      throw new IllegalArgumentException(
          "--doc-tokens must lie within 100-3800 with MIN <= MAX, got '" + docTokens + "'");
    }
    PrintWriter err = spec.commandLine().getErr();
    Path dir = runtimeOptions.modelDir(err);
    Path outFile = out != null ? out : Path.of("bench-results", which + ".json");
    Path chartFile = chart != null ? chart : Path.of("bench-results", which + ".png");
    return which.equals("characters")
        ? new CharactersBench(this).run(dir, outFile, chartFile)
        : new LongdocBench(this).run(dir, outFile);
  }

  /** A runtime on {@code dir} in the {@code --dtype} of the options. */
  LeapRuntime runtime(Path dir, boolean jump, boolean cache, int capacity) {
    return runtime(dir, jump, cache, capacity, runtimeOptions.dtype());
  }

  /**
   * A runtime on {@code dir}: jump-forward and the radix cache on or off, {@code capacity} KV
   * slots, batches of up to 256, and the options' sparse-logits limit and CPU float32 weights.
   */
  LeapRuntime runtime(Path dir, boolean jump, boolean cache, int capacity, String dtype) {
    return LeapRuntime.builder()
        .setModelDir(dir)
        .optDevice(runtimeOptions.device())
        .optJumpForward(jump)
        .optPrefixCache(cache)
        .optKvCapacity(capacity)
        .optMaxBatch(256)
        .optDtype(dtype)
        .optSparseLogitsLimit(runtimeOptions.sparseLogitsLimit())
        .optCpuF32Weights(runtimeOptions.cpuF32Weights())
        .optFusedAttention(runtimeOptions.fusedAttention())
        .build();
  }
}
