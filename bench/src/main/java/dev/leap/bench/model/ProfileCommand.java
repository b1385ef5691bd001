package dev.leap.bench.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.bench.BenchData;
import dev.leap.bench.Json;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.TokenIndex;
import dev.leap.model.LlamaModel;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.DemoModel;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench profile}: where the time of one forward pass goes, op kind by op kind, for a
 * batch-1 decode step (with the character regex's mask applied and the greedy token copied back, as
 * the scheduler does it) and for a prefill.
 *
 * <p>How: PyTorch's own profiler (DJL's {@code JniUtils.startProfile}/{@code stopProfile}, a Chrome
 * trace) records every native op; ops nested in another op on the same thread (aten::mm inside
 * aten::matmul) are folded into their outermost one, so each row is one call Leap's Java code made
 * through DJL. On the CPU every PyTorch op runs to completion before the call returns, so the
 * recorded durations are the device's time (on a GPU they would be launch times; this command says
 * so and is meant for the CPU). "host between ops" is the profiled wall time minus the ops' time:
 * Java, JNI crossings and array bookkeeping. Step times are also measured without the profiler.
 *
 * <pre>
 * ./leap bench profile [--model DIR|demo] [--dtype auto|f32|f16] [--context 200] [--steps 40] [--prefill 512]
 * </pre>
 */
@Command(
    name = "profile",
    mixinStandardHelpOptions = true,
    description =
        "Per-op profile of a batch-1 decode step and of a prefill (PyTorch's profiler; CPU).")
public final class ProfileCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--model",
      defaultValue = "demo",
      paramLabel = "DIR|demo",
      description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description = "auto, f32, f16 (bf16: GPU only). Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--context",
      defaultValue = "200",
      description =
          "Tokens already in the KV cache at the decode steps. Default: ${DEFAULT-VALUE}.")
  int context;

  @Option(
      names = "--batch",
      defaultValue = "1",
      description =
          "Sequences per decode step (contexts of --context minus 0..B-1 tokens). Default: ${DEFAULT-VALUE}.")
  int batch;

  @Option(
      names = "--steps",
      defaultValue = "40",
      description = "Decode steps profiled (and timed). Default: ${DEFAULT-VALUE}.")
  int steps;

  @Option(
      names = "--prefill",
      defaultValue = "512",
      description = "Prompt tokens of the profiled prefill. Default: ${DEFAULT-VALUE}.")
  int prefill;

  @Option(
      names = "--out",
      defaultValue = "bench-results/profile.json",
      description = "JSON results. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--prefix",
      defaultValue = "{\n    \"name\": \"",
      description =
          "Output text (Java escapes: \\n) walked"
              + " through the character regex to the decode steps' state, whose mask they apply. Default: the name field's start.")
  String prefix;

  @Option(
      names = "--sparse",
      description =
          "Profile the decode step with the logits of the mask's allowed tokens alone"
              + " (the runtime's sparse projection, rows gathered once) instead of the whole vocabulary's; both are timed.")
  boolean sparse;

  @Option(
      names = "--cpu-f32-weights",
      defaultValue = "auto",
      description =
          "auto, on or off: float32 copies of f16 weights"
              + " for products of 8+ rows. Default: ${DEFAULT-VALUE}.")
  String cpuF32Weights;

  @Option(
      names = "--fused-decode",
      defaultValue = "on",
      description =
          "on or off: decode steps as one TorchScript call (LlamaModel#setFusedDecode) or as DJL ops."
              + " Default: ${DEFAULT-VALUE}.")
  String fusedDecode;

  @Option(
      names = "--packed-products",
      defaultValue = "on",
      description =
          "on or off: products of f16 weights (the vocabulary's and the layers') as"
              + " FBGEMM's float16 GEMM (LlamaModel#setPackedProducts) or PyTorch's float16 products."
              + " Default: ${DEFAULT-VALUE}.")
  String packedProducts;

  /** One op kind's total over a profiled run. */
  record OpRow(String name, long calls, double micros) {}

  @Override
  public Integer call() throws IOException {
    if (context < 1 || steps < 1 || prefill < 1 || batch < 1 || batch >= context) {
      throw new IllegalArgumentException(
          "--context, --steps, --prefill and --batch must be at least 1, --batch below --context");
    }
    PrintWriter o = spec.commandLine().getOut();
    Path dir = DemoModel.resolve(model, spec.commandLine().getErr());
    Path trace = Files.createTempFile("leap-profile", ".json");
    Map<String, Object> json = new LinkedHashMap<>();
    try (LlamaModel m =
        LlamaModel.load(
            dir,
            Device.cpu(),
            batch * (context + steps + 8) + prefill + 64,
            dtype,
            LlamaModel.CpuF32Weights.parse(cpuF32Weights))) {
      if (!fusedDecode.equals("on") && !fusedDecode.equals("off")) {
        throw new IllegalArgumentException("--fused-decode must be on or off, got " + fusedDecode);
      }
      m.setFusedDecode(fusedDecode.equals("on"));
      if (!packedProducts.equals("on") && !packedProducts.equals("off")) {
        throw new IllegalArgumentException(
            "--packed-products must be on or off, got " + packedProducts);
      }
      m.setPackedProducts(packedProducts.equals("on"));
      int v = m.config().vocabSize();
      int layers = m.config().numLayers();
      Tokenizer tok = Tokenizer.loadFromModelDir(dir);
      CompressedFsm fsm = CompressedFsm.compile(BenchData.characterRegex());
      TokenIndex index = TokenIndex.of(fsm.dfa(), tok).buildAll();
      int state =
          fsm.dfa()
              .walk(
                  fsm.dfa().initialState(),
                  prefix.replace("\\n", "\n").getBytes(StandardCharsets.UTF_8));
      if (state < 0) {
        throw new IllegalArgumentException(
            "--prefix is not a prefix of a character sheet: " + prefix);
      }
      boolean[] disallowed = new boolean[v];
      Arrays.fill(disallowed, true);
      long[] words = index.allowed(state);
      List<Long> allowedIds = new ArrayList<>();
      for (int w = 0; w < words.length; w++) {
        for (long bits = words[w]; bits != 0; bits &= bits - 1) {
          disallowed[(w << 6) + Long.numberOfTrailingZeros(bits)] = false;
          allowedIds.add((long) (w << 6) + Long.numberOfTrailingZeros(bits));
        }
      }
      SplittableRandom rnd = new SplittableRandom(24);
      // Sequence j owns slots [j * stride, (j + 1) * stride); the prefill below uses the slots
      // after them.
      int stride = context + steps + 8;
      int[][] seqSlots = new int[batch][stride];
      for (int j = 0; j < batch; j++) {
        for (int i = 0; i < stride; i++) {
          seqSlots[j][i] = j * stride + i;
        }
        try (NDManager s = m.manager().newSubManager()) {
          m.forward(
              s,
              List.of(
                  new LlamaModel.SequenceInput(
                      rnd.ints(context - j, 0, v).toArray(),
                      0,
                      new int[0],
                      Arrays.copyOf(seqSlots[j], context - j),
                      false)));
        }
      }
      int[] slots = new int[batch * stride + prefill];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = i;
      }
      try (NDManager maskScope = m.manager().newSubManager()) {
        NDArray mask = maskScope.create(disallowed);
        NDArray masks = maskScope.create(disallowed).expandDims(0).repeat(0, batch);
        long[] allowedArr = allowedIds.stream().mapToLong(Long::longValue).toArray();
        NDArray headRows = m.headRows(maskScope, allowedArr);
        NDArray headRowsWide =
            m.widensProduct(batch) ? m.headRowsWide(maskScope, allowedArr) : null;
        int[] pos = {0};
        boolean[] sparseNow = {false};
        Runnable decode =
            () -> {
              int p = pos[0]++;
              List<LlamaModel.SequenceInput> in = new ArrayList<>(batch);
              for (int j = 0; j < batch; j++) {
                in.add(
                    new LlamaModel.SequenceInput(
                        new int[] {rnd.nextInt(v)},
                        context - j + p,
                        seqSlots[j],
                        new int[] {seqSlots[j][context - j + p]},
                        false));
              }
              try (NDManager s = m.manager().newSubManager()) {
                if (sparseNow[0]) {
                  // As the runtime does it when every row allows few tokens: their logits alone, no
                  // mask.
                  m.logits(m.hidden(s, in), headRows, headRowsWide).argMax(1).toLongArray();
                  return;
                }
                NDArray logits = m.forward(s, in);
                // As the sampler does it for constrained greedy rows: fill -inf in place, argmax,
                // the ids back.
                logits.set(batch == 1 ? mask.expandDims(0) : masks, Float.NEGATIVE_INFINITY);
                logits.argMax(1).toLongArray();
              }
            };
        for (int i = 0; i < 5; i++) {
          decode.run();
        }
        pos[0] =
            0; // the warm-up's K/V are overwritten: every timed step sees the same context lengths
        // Alternating rounds, full and sparse: the machine is shared, so each is a median of 5
        // rounds beside the other's.
        List<Double> fulls = new ArrayList<>();
        List<Double> sparses = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
          sparseNow[0] = false;
          pos[0] = 0;
          fulls.add(timeMs(decode, steps));
          sparseNow[0] = true;
          pos[0] = 0;
          sparses.add(timeMs(decode, steps));
        }
        double fullMs = median(fulls);
        double sparseMs = median(sparses);
        o.printf(
            Locale.ROOT,
            "Decode step, median of 5 alternating rounds of %d steps (min): logits over the whole vocabulary (%d)"
                + " then masked %.3f ms (%.3f); over the %d allowed tokens alone %.3f ms (%.3f)%n",
            steps,
            v,
            fullMs,
            Collections.min(fulls),
            allowedIds.size(),
            sparseMs,
            Collections.min(sparses));
        json.put("decodeFullMs", fulls);
        json.put("decodeSparseMs", sparses);
        json.put("allowedTokens", allowedIds.size());
        sparseNow[0] = sparse;
        double plainMs = sparse ? sparseMs : fullMs;
        pos[0] = 0;
        JniUtils.startProfile(false, false, false);
        double profiledMs = timeMs(decode, steps);
        JniUtils.stopProfile(trace.toString());
        List<OpRow> rows = ops(trace);
        o.printf(
            "Decode step (%s logits), batch %d, context %d, %s (%s%s), %d steps: %.3f ms per step without the profiler (the"
                + " median above), %.3f ms with it%n%n",
            sparse ? "sparse" : "full",
            batch,
            context,
            dir.getFileName(),
            m.precision().label(),
            (m.hasF32WeightCopies() ? " with float32 copies" : "")
                + (m.fusedDecode()
                    ? "; fused: the layers' ops run inside the TorchScript call 'step'"
                    : "; DJL ops")
                + (m.packedProducts() ? "; products: FBGEMM's float16 GEMM" : ""),
            steps,
            plainMs,
            profiledMs);
        o.println(table(rows, steps, profiledMs, layers));
        json.put("decode", section(rows, steps, plainMs, profiledMs));

        // Prefill of `prefill` tokens into a fresh part of the pool, logits at the last token only.
        int base = batch * stride;
        Runnable fill =
            () -> {
              try (NDManager s = m.manager().newSubManager()) {
                m.forward(
                        s,
                        List.of(
                            new LlamaModel.SequenceInput(
                                rnd.ints(prefill, 0, v).toArray(),
                                0,
                                new int[0],
                                Arrays.copyOfRange(slots, base, base + prefill),
                                false)))
                    .argMax(1)
                    .toLongArray();
              }
            };
        fill.run();
        int reps = 3;
        double fillPlain = timeMs(fill, reps);
        JniUtils.startProfile(false, false, false);
        double fillProfiled = timeMs(fill, reps);
        JniUtils.stopProfile(trace.toString());
        List<OpRow> fillRows = ops(trace);
        o.printf(
            "%nPrefill of %d tokens (one pass, logits at the last), %d runs: %.1f ms per pass without the profiler, %.1f ms"
                + " with it (%.3f ms per token)%n%n",
            prefill, reps, fillPlain, fillProfiled, fillPlain / prefill);
        o.println(table(fillRows, reps, fillProfiled, layers));
        json.put("prefill", section(fillRows, reps, fillPlain, fillProfiled));
        json.put("prefillTokens", prefill);
        json.put("context", context);
        json.put("batch", batch);
        json.put("dtype", m.precision().label());
        json.put("model", dir.toString());
      }
    } finally {
      Files.deleteIfExists(trace);
    }
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Json.MAPPER.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), json);
    o.printf("%nwrote %s%n", out);
    o.flush();
    return 0;
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    return s.size() % 2 == 1
        ? s.get(s.size() / 2)
        : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
  }

  private static double timeMs(Runnable r, int n) {
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      r.run();
    }
    return (System.nanoTime() - t0) / 1e6 / n;
  }

  /**
   * The outermost ops of a Chrome trace by name: an op whose time lies inside another op's on the
   * same thread is that op's work, not a call of its own.
   */
  static List<OpRow> ops(Path trace) throws IOException {
    JsonNode root = Json.MAPPER.readTree(trace.toFile());
    JsonNode events = root.isArray() ? root : root.path("traceEvents");
    Map<String, List<double[]>> byThread = new HashMap<>();
    Map<String, List<String>> names = new HashMap<>();
    for (JsonNode e : events) {
      if (!"X".equals(e.path("ph").asText()) || !e.has("dur")) {
        continue;
      }
      String cat = e.path("cat").asText("");
      if (!cat.isEmpty() && !cat.equals("cpu_op") && !cat.equals("Operator")) {
        continue; // user annotations, kernels, memory events
      }
      String tid = e.path("pid").asText() + "/" + e.path("tid").asText();
      byThread
          .computeIfAbsent(tid, k -> new ArrayList<>())
          .add(
              new double[] {
                e.path("ts").asDouble(),
                e.path("dur").asDouble(),
                names.computeIfAbsent(tid, k -> new ArrayList<>()).size()
              });
      names.get(tid).add(e.path("name").asText());
    }
    Map<String, long[]> calls = new HashMap<>();
    Map<String, double[]> micros = new HashMap<>();
    for (Map.Entry<String, List<double[]>> t : byThread.entrySet()) {
      List<double[]> evs = t.getValue();
      evs.sort((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(b[1], a[1]));
      double end = Double.NEGATIVE_INFINITY;
      for (double[] ev : evs) {
        if (ev[0] < end) {
          continue; // nested in the current outermost op
        }
        end = ev[0] + ev[1];
        String name = names.get(t.getKey()).get((int) ev[2]);
        calls.computeIfAbsent(name, k -> new long[1])[0]++;
        micros.computeIfAbsent(name, k -> new double[1])[0] += ev[1];
      }
    }
    List<OpRow> rows = new ArrayList<>();
    for (String name : calls.keySet()) {
      rows.add(new OpRow(name, calls.get(name)[0], micros.get(name)[0]));
    }
    rows.sort((a, b) -> Double.compare(b.micros(), a.micros()));
    return rows;
  }

  static String table(List<OpRow> rows, int runs, double wallMsPerRun, int layers) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| op | calls per pass | per layer | time per pass (ms) | share of the pass |\n|---|---:|---:|---:|---:|\n");
    double opsMs = 0;
    long allCalls = 0;
    for (OpRow r : rows) {
      double ms = r.micros() / 1000 / runs;
      opsMs += ms;
      allCalls += r.calls();
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %.2f | %.3f | %.1f%% |%n",
              r.name(),
              (double) r.calls() / runs,
              (double) r.calls() / runs / layers,
              ms,
              100 * ms / wallMsPerRun));
    }
    double host = Math.max(0, wallMsPerRun - opsMs);
    sb.append(
        String.format(
            Locale.ROOT,
            "| host between ops (Java, JNI) | | | %.3f | %.1f%% |%n",
            host,
            100 * host / wallMsPerRun));
    sb.append(
        String.format(
            Locale.ROOT,
            "| **all ops** | **%.1f** | %.1f | %.3f | %.1f%% |%n",
            (double) allCalls / runs,
            (double) allCalls / runs / layers,
            opsMs,
            100 * opsMs / wallMsPerRun));
    return sb.toString();
  }

  private static Map<String, Object> section(
      List<OpRow> rows, int runs, double plainMs, double profiledMs) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("msPerPass", plainMs);
    m.put("msPerPassProfiled", profiledMs);
    List<Map<String, Object>> ops = new ArrayList<>();
    for (OpRow r : rows) {
      ops.add(
          Map.of(
              "op",
              r.name(),
              "callsPerPass",
              (double) r.calls() / runs,
              "msPerPass",
              r.micros() / 1000 / runs));
    }
    m.put("ops", ops);
    return m;
  }
}
