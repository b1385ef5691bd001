package dev.leap.bench.model;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.bench.peers.ShapeModel;
import dev.leap.model.LlamaModel;
import dev.leap.model.LlamaModel.SequenceInput;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench forward}: the model's forward pass alone, on any device: greedy decode steps at
 * several batch sizes (every sequence with {@code --context} tokens already in the KV cache, one
 * new token each per step, the step's greedy tokens read back to the host as the engine does) and
 * the prefill of one prompt of each {@code --prefill-tokens} length in one pass. The model is
 * {@code --model} or random weights in a real model's shape ({@code --shape}, as {@code leap bench
 * peers} writes them). Tokens are drawn with a fixed seed; the timings do not depend on them.
 *
 * <p>Also printed, for a reference implementation to compare against: the last position's five
 * highest logits for the prompt {@code 1, 2, ..., 16} (batch 1, one pass).
 *
 * <p>Invariants: each timed decode step is one {@link LlamaModel#forward} call over the whole
 * batch, ended by reading its argmax to the host (so a GPU's queue is drained inside the timing);
 * the steps of a repeat write the same KV slots again from the same position.
 */
@Command(
    name = "forward",
    mixinStandardHelpOptions = true,
    description =
        "The forward pass alone on --device: decode steps at batch 1, 8, 32, 64 and prefills of 1,000 and 3,000 tokens.")
public final class ForwardCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--model", paramLabel = "DIR|demo", description = "Default: demo (or --shape).")
  String model;

  @Option(
      names = "--shape",
      description =
          "Instead of --model: random F16 weights in a real model's shape (qwen2.5-0.5b or llama3.2-1b), written once under --work.")
  String shape;

  @Option(
      names = "--work",
      defaultValue = "target/peers",
      description = "Where --shape models are written. Default: ${DEFAULT-VALUE}.")
  Path work;

  @Option(
      names = "--device",
      defaultValue = "cpu",
      description = "DJL device: cpu, gpu or gpuN. Default: ${DEFAULT-VALUE}.")
  String device;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description = "auto, f32, f16 or bf16 (GPU only). Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--fused-attention",
      defaultValue = "auto",
      paramLabel = "auto|on|off",
      description =
          "PyTorch's fused attention (LlamaModel#setFusedAttention) for passes outside the fused decode step; auto: the device's default (on a GPU). Default: ${DEFAULT-VALUE}.")
  String fusedAttention;

  @Option(
      names = "--batches",
      split = ",",
      defaultValue = "1,8,32,64",
      description = "Decode batch sizes. Default: ${DEFAULT-VALUE}.")
  int[] batches;

  @Option(
      names = "--context",
      defaultValue = "200",
      description =
          "Tokens in the KV cache per sequence at the decode steps. Default: ${DEFAULT-VALUE}.")
  int context;

  @Option(
      names = "--steps",
      defaultValue = "32",
      description = "Decode steps per repeat. Default: ${DEFAULT-VALUE}.")
  int steps;

  @Option(
      names = "--prefill-tokens",
      split = ",",
      defaultValue = "1000,3000",
      description = "Prompt lengths prefilled in one pass. Default: ${DEFAULT-VALUE}.")
  int[] prefillTokens;

  @Option(
      names = "--repeats",
      defaultValue = "5",
      description =
          "Repeats (the first is a warm-up; medians of the rest). Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Option(
      names = "--out",
      defaultValue = "bench-results/forward.json",
      description = "JSON results. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (repeats < 2) {
      throw new IllegalArgumentException("--repeats must be at least 2, got " + repeats);
    }
    if (context < 1 || steps < 1) {
      throw new IllegalArgumentException("--context and --steps must be at least 1");
    }
    for (int b : batches) {
      if (b < 1) {
        throw new IllegalArgumentException("--batches must be at least 1, got " + b);
      }
    }
    for (int n : prefillTokens) {
      if (n < 1) {
        throw new IllegalArgumentException("--prefill-tokens must be at least 1, got " + n);
      }
    }
    if (!fusedAttention.matches("auto|on|off")) {
      throw new IllegalArgumentException(
          "--fused-attention must be auto, on or off, got '" + fusedAttention + "'");
    }
    if (shape != null && model != null) {
      throw new IllegalArgumentException("give --model or --shape, not both");
    }
    PrintWriter o = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Path dir =
        shape != null
            ? ShapeModel.write(shape, work, o)
            : DemoModel.resolve(model == null ? "demo" : model, err);
    int maxBatch = Arrays.stream(batches).max().orElse(1);
    int maxPrefill = Arrays.stream(prefillTokens).max().orElse(1);
    int capacity = Math.max(maxBatch * (context + steps), maxPrefill);
    ObjectNode json = Json.MAPPER.createObjectNode();
    json.put("model", shape != null ? shape : dir.toString());
    json.put("device", device);
    json.put("context", context);
    json.put("steps", steps);
    json.put("repeats", repeats);
    try (LlamaModel m =
        LlamaModel.load(
            dir, LeapRuntime.parseDevice(device), capacity, dtype, LlamaModel.CpuF32Weights.AUTO)) {
      if (!fusedAttention.equals("auto")
          && m.setFusedAttention(fusedAttention.equals("on")) != fusedAttention.equals("on")) {
        throw new IllegalArgumentException("--fused-attention on: this PyTorch cannot run it");
      }
      json.put("dtype", m.precision().label());
      json.put("fusedAttention", m.fusedAttention());
      o.printf(
          Locale.ROOT,
          "forward: %s on %s, %s, fused attention %s, KV capacity %d slots%n",
          json.get("model").asText(),
          m.device(),
          m.precision().label(),
          m.fusedAttention() ? "on" : "off",
          capacity);
      int vocab = m.config().vocabSize();
      SplittableRandom rnd = new SplittableRandom(5);
      // The reference logits: prompt 1..16, last position.
      int[] probe = new int[16];
      int[] probeSlots = new int[16];
      for (int i = 0; i < 16; i++) {
        probe[i] = i + 1;
        probeSlots[i] = i;
      }
      try (NDManager s = m.manager().newSubManager()) {
        float[] logits =
            m.forward(s, List.of(new SequenceInput(probe, 0, new int[0], probeSlots, false)))
                .toType(DataType.FLOAT32, false)
                .toFloatArray();
        int[] top = top(logits, 5);
        ArrayNode arr = json.putArray("probeTop5");
        StringBuilder sb = new StringBuilder();
        for (int t : top) {
          arr.addObject().put("token", t).put("logit", logits[t]);
          sb.append(String.format(Locale.ROOT, " %d (%.4f)", t, logits[t]));
        }
        o.println("probe 1..16, last position, top 5:" + sb);
      }
      o.println("| batch | decode step (ms, median) | tokens/s |");
      o.println("|---:|---:|---:|");
      ArrayNode decode = json.putArray("decode");
      for (int b : batches) {
        int[][] slots = new int[b][];
        List<SequenceInput> prefill = new ArrayList<>();
        for (int i = 0; i < b; i++) {
          slots[i] = new int[context + steps];
          for (int j = 0; j < slots[i].length; j++) {
            slots[i][j] = i * (context + steps) + j;
          }
          prefill.add(
              new SequenceInput(
                  rnd.ints(context, 0, vocab).toArray(),
                  0,
                  new int[0],
                  Arrays.copyOf(slots[i], context),
                  false));
        }
        try (NDManager s = m.manager().newSubManager()) {
          m.forward(s, prefill).argMax(1).toLongArray();
        }
        List<Double> perStep = new ArrayList<>();
        for (int rep = 0; rep < repeats; rep++) {
          long[] next = rnd.longs(b, 0, vocab).toArray();
          long t0 = System.nanoTime();
          for (int k = 0; k < steps; k++) {
            int pos = context + k;
            List<SequenceInput> step = new ArrayList<>(b);
            for (int i = 0; i < b; i++) {
              step.add(
                  new SequenceInput(
                      new int[] {(int) next[i]}, pos, slots[i], new int[] {slots[i][pos]}, false));
            }
            try (NDManager s = m.manager().newSubManager()) {
              next = m.forward(s, step).argMax(1).toLongArray();
            }
          }
          if (rep > 0) {
            perStep.add((System.nanoTime() - t0) / 1e6 / steps);
          }
        }
        double ms = Percentile.of(perStep, 50);
        o.printf(Locale.ROOT, "| %d | %.2f | %.0f |%n", b, ms, b * 1000 / ms);
        o.flush();
        ObjectNode row = decode.addObject();
        row.put("batch", b);
        row.put("stepMs", ms);
        row.put("tokensPerSecond", b * 1000 / ms);
      }
      o.println(
          "| prompt tokens | prefill (ms, median) | tokens/s | first pass of this length (ms) |");
      o.println("|---:|---:|---:|---:|");
      ArrayNode pre = json.putArray("prefill");
      for (int n : prefillTokens) {
        int[] ids = rnd.ints(n, 0, vocab).toArray();
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
          slots[i] = i;
        }
        List<Double> times = new ArrayList<>();
        double first = 0;
        for (int rep = 0; rep < repeats; rep++) {
          long t0 = System.nanoTime();
          try (NDManager s = m.manager().newSubManager()) {
            m.forward(s, List.of(new SequenceInput(ids, 0, new int[0], slots, false)))
                .argMax(1)
                .toLongArray();
          }
          if (rep > 0) {
            times.add((System.nanoTime() - t0) / 1e6);
          } else {
            first = (System.nanoTime() - t0) / 1e6;
          }
        }
        double ms = Percentile.of(times, 50);
        o.printf(Locale.ROOT, "| %d | %.1f | %.0f | %.1f |%n", n, ms, n * 1000 / ms, first);
        o.flush();
        ObjectNode row = pre.addObject();
        row.put("tokens", n);
        row.put("ms", ms);
        row.put("firstMs", first);
      }
    }
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json));
    o.println("wrote " + out);
    return 0;
  }

  /** Indices of the {@code k} largest values, largest first (ties: lower index first). */
  static int[] top(float[] xs, int k) {
    Integer[] idx = new Integer[xs.length];
    for (int i = 0; i < xs.length; i++) {
      idx[i] = i;
    }
    Arrays.sort(idx, (a, b) -> xs[a] != xs[b] ? Float.compare(xs[b], xs[a]) : a - b);
    int[] r = new int[Math.min(k, xs.length)];
    for (int i = 0; i < r.length; i++) {
      r[i] = idx[i];
    }
    return r;
  }
}
