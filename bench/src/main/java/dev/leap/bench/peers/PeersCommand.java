package dev.leap.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.DemoModel;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench peers}: Leap beside llama.cpp (java-llama.cpp 4.2.0, llama.cpp b4916) on the
 * same model, the same prompts and the same constraint, greedy.
 *
 * <p>The model is written as GGUF F16 by the project's own {@link GgufWriter}; the character regex
 * is printed as GBNF by {@link GbnfPrinter}. llama.cpp runs in a child JVM ({@link LlamaCppChild})
 * with a time limit, once per thread count. Both engines run the same prompt ids (Leap's
 * tokenizer's, handed to llama.cpp as ids; the report says how often llama.cpp's own tokenizer
 * agrees); the command compares the outputs sheet by sheet, and reports: decode time per token at
 * batch 1 (llama.cpp: the time of a 129-token completion less a 1-token one, over 128; Leap: 128
 * greedy decode steps of the model), the prefill of a 1,000-token prompt (llama.cpp: a 1-token
 * completion of it without the prompt cache; Leap: the prompt in the runtime's 512-token chunks),
 * and the character sheets' batch-1 latency p50 (Leap jump-forward, Leap token by token, llama.cpp
 * with the grammar).
 *
 * <p>{@code --shape qwen2.5-0.5b|llama3.2-1b} runs the same on random F16 weights in those models'
 * shapes ({@link ShapeModel}).
 *
 * <p>This class holds the options and the order of the run; the prompts are a {@link Workload}, the
 * llama.cpp children run through {@link LlamaCppRuns}, Leap's side is {@link LeapSide}, and {@link
 * PeersReport} compares and writes.
 *
 * <pre>
 * ./leap bench peers [--model DIR|demo | --shape S] [--requests 10] [--threads 1,2] [--dtype auto] [--repeats 3]
 * </pre>
 */
@Command(
    name = "peers",
    mixinStandardHelpOptions = true,
    description =
        "Leap beside llama.cpp (java-llama.cpp, GGUF F16 written by Leap) on the same model, prompts and constraint.")
public final class PeersCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--model",
      defaultValue = "demo",
      paramLabel = "DIR|demo",
      description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(
      names = "--requests",
      defaultValue = "10",
      description = "Character sheets (names). Default: ${DEFAULT-VALUE}.")
  int requests;

  @Option(
      names = "--shape",
      description =
          "Instead of --model: random F16 weights in a real model's shape, written by"
              + " HfModelWriter (Llama architecture, GPT-2 tokenizer): qwen2.5-0.5b or llama3.2-1b.")
  String shape;

  @Option(
      names = "--repeats",
      defaultValue = "3",
      description =
          "Repeats of the decode and prefill timings (medians). Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Option(
      names = "--threads",
      defaultValue = "1,2",
      split = ",",
      description = "llama.cpp thread counts. Default: ${DEFAULT-VALUE}.")
  List<Integer> threads;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description = "Leap's dtype. Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--time-limit",
      defaultValue = "600",
      description = "Seconds per llama.cpp child. Default: ${DEFAULT-VALUE}.")
  int timeLimit;

  @Option(
      names = "--out",
      defaultValue = "bench-results/peers.json",
      description = "Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--prefill-tokens",
      defaultValue = "1000,3000",
      split = ",",
      description = "Prompt lengths of the prefill" + " timings. Default: ${DEFAULT-VALUE}.")
  List<Integer> prefillTokens;

  @Option(
      names = "--parallel",
      defaultValue = "10,50",
      split = ",",
      description =
          "Throughput of this many character sheets"
              + " at once (Leap: continuous batching; llama.cpp: as many slots and client threads); 0: skipped. Default:"
              + " ${DEFAULT-VALUE}.")
  List<Integer> parallel;

  @Option(
      names = "--docs",
      defaultValue = "3",
      description =
          "Long documents for the time to first token without and with"
              + " a cached prefix (0: skipped). Default: ${DEFAULT-VALUE}.")
  int docs;

  @Option(
      names = "--doc-tokens",
      defaultValue = "2000",
      description = "Tokens per long document. Default: ${DEFAULT-VALUE}.")
  int docTokens;

  @Option(
      names = "--sparse-logits-limit",
      defaultValue = "4096",
      paramLabel = "N",
      description =
          "Leap's sparse logits"
              + " limit (LeapRuntime.Builder#optSparseLogitsLimit; 0: off). Default: ${DEFAULT-VALUE}.")
  int sparseLogitsLimit;

  @Option(
      names = "--cpu-f32-weights",
      defaultValue = "auto",
      paramLabel = "auto|on|off",
      description = "Leap's float32" + " weight copies on the CPU. Default: ${DEFAULT-VALUE}.")
  String cpuF32Weights;

  static final int DECODE_TOKENS = 128;

  @Override
  public Integer call() throws Exception {
    if (requests < 1) {
      throw new IllegalArgumentException("--requests must be at least 1, got " + requests);
    }
    if (repeats < 1) {
      throw new IllegalArgumentException("--repeats must be at least 1, got " + repeats);
    }
    parallel = new ArrayList<>(parallel);
    parallel.removeIf(p -> p <= 0); // --parallel 0: no throughput runs
    PrintWriter o = spec.commandLine().getOut();
    Path work =
        out.toAbsolutePath().getParent() == null
            ? Path.of("bench-results")
            : out.toAbsolutePath().getParent();
    Files.createDirectories(work);
    Path dir =
        shape == null
            ? DemoModel.resolve(model, spec.commandLine().getErr())
            : ShapeModel.write(shape, work, o);
    Path gguf = work.resolve(dir.getFileName() + "-f16.gguf");
    long t0 = System.nanoTime();
    GgufWriter.write(dir, gguf);
    o.printf(
        "wrote %s (%d MB) in %.1f s%n",
        gguf, Files.size(gguf) >> 20, (System.nanoTime() - t0) / 1e9);

    Tokenizer tok = Tokenizer.loadFromModelDir(dir);
    Workload w = Workload.of(tok, requests, prefillTokens, docs, docTokens, parallel);

    // llama.cpp, one child per thread count.
    LlamaCppRuns llamaCpp = new LlamaCppRuns(work, timeLimit, o, tok);
    List<JsonNode> peer = new ArrayList<>();
    for (int t : threads) {
      peer.add(llamaCpp.batch1(gguf, t, w, repeats));
    }
    // Throughput: P sheets at once (names cycled), llama.cpp with P slots and P client threads.
    List<List<JsonNode>> peerWaves = new ArrayList<>();
    for (List<String> wave : w.waves()) {
      List<JsonNode> byThreads = new ArrayList<>();
      for (int t : threads) {
        byThreads.add(llamaCpp.wave(gguf, t, wave, w.grammar()));
      }
      peerWaves.add(byThreads);
    }

    // Leap.
    LeapSide leap =
        LeapSide.measure(
            dir,
            new LeapSide.Settings(dtype, cpuF32Weights, sparseLogitsLimit, repeats),
            w.prompts(),
            w.longPrompts(),
            w.regex(),
            w.waves(),
            w.docPrompts());

    new PeersReport(o, tok, w, threads, parallel).write(dir, gguf, peer, peerWaves, leap, out);
    o.printf("%nwrote %s%n", out);
    o.flush();
    return 0;
  }

  /** The median of {@code xs} (the mean of the middle two when even); NaN when empty. */
  static double median(List<Double> xs) {
    if (xs.isEmpty()) {
      return Double.NaN;
    }
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    int k = s.size();
    return k % 2 == 1 ? s.get(k / 2) : (s.get(k / 2 - 1) + s.get(k / 2)) / 2;
  }
}
