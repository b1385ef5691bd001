package dev.leap.bench.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.bench.Json;
import dev.leap.bench.model.ProfileCommand;
import dev.leap.bench.model.VocabProductCommand;
import dev.leap.bench.peers.PeersCommand;
import dev.leap.bench.serve.AbuseBenchCommand;
import dev.leap.bench.serve.IdleConnectionsCommand;
import dev.leap.bench.serve.ServeBenchCommand;
import dev.leap.options.RuntimeOptionsMixin;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import dev.leap.train.data.Character;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import dev.leap.train.data.GazetteerDocument;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
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
      PeersCommand.class
    },
    description =
        "End-to-end benchmarks: 'characters' (SGLang's character JSON), 'longdoc' (extraction over long held-out documents) , 'serve' (load on the HTTP server), 'idle' (idle connections against a running server), 'abuse' (stalled clients, heavy requests, hostile input), 'profile' (per-op profile of a forward pass), 'vocab' (the float16 vocabulary product through every PyTorch kernel) or 'peers' (beside llama.cpp).")
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
      names = "--values",
      defaultValue = "closed",
      paramLabel = "closed|open",
      description =
          "longdoc: the held-out cities' values: closed (City.of, the shipped model's lists) or open "
              + "(City.open, the copy recipe's generators). Default: ${DEFAULT-VALUE}.")
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
    return which.equals("characters") ? characters(dir, outFile, chartFile) : longdoc(dir, outFile);
  }

  // ---------------------------------------------------------------------------------------------

  int characters(Path dir, Path outFile, Path chartFile) throws IOException {
    PrintWriter o = spec.commandLine().getOut();
    List<String> names = BenchData.characterNames();
    int n = requests == null ? names.size() : Math.min(requests, names.size());
    String regex = BenchData.characterRegex();
    List<GenerationRequest> reqs = new ArrayList<>();
    SamplingParams params =
        SamplingParams.builder().temperature(temperature).seed(seed).maxTokens(maxTokens).build();
    for (int i = 0; i < n; i++) {
      SamplingParams p =
          SamplingParams.builder()
              .temperature(temperature)
              .seed(seed + i)
              .maxTokens(maxTokens)
              .build();
      reqs.add(
          GenerationRequest.of(
              BenchData.characterPrompt(names.get(i)), Constraint.regex(regex), p));
    }
    ModeResult tbt = new ModeResult("token-by-token");
    ModeResult jf = new ModeResult("jump-forward");
    int capacity = Math.max(32_768, Math.min(parallel, n) * (maxTokens + 64));
    ModeResult cmpTbt = new ModeResult("token-by-token, " + compareDtype);
    ModeResult cmpJf = new ModeResult("jump-forward, " + compareDtype);
    String[] labels =
        new String[2]; // the main dtype, the compared one (null without --compare-dtype)
    try (LeapRuntime rtTbt = runtime(dir, false, true, capacity, runtimeOptions.dtype());
        LeapRuntime rtJf = runtime(dir, true, true, capacity, runtimeOptions.dtype());
        LeapRuntime cTbt =
            compareDtype == null ? null : runtime(dir, false, true, 4096, compareDtype);
        LeapRuntime cJf =
            compareDtype == null ? null : runtime(dir, true, true, 4096, compareDtype)) {
      labels[0] = rtJf.dtype();
      o.printf(
          "characters: %d requests, model %s, device %s, dtype %s%s; warming up, then batch 1 (one request at a time)%n",
          n,
          dir,
          rtJf.device(),
          labels[0],
          cJf == null ? "" : " (and " + cJf.dtype() + " at batch 1)");
      o.flush();
      List<LeapRuntime> rts = new ArrayList<>(List.of(rtTbt, rtJf));
      List<ModeResult> modes = new ArrayList<>(List.of(tbt, jf));
      if (cJf != null) {
        labels[1] = cJf.dtype();
        rts.addAll(List.of(cTbt, cJf));
        modes.addAll(List.of(cmpTbt, cmpJf));
      }
      for (LeapRuntime rt : rts) {
        rt.generate(reqs.get(0).prompt(), reqs.get(0).constraint(), params);
      }
      for (int i = 0; i < n; i++) {
        // Rotate which mode goes first, so slow drifts of the machine hit all of them.
        for (int k = 0; k < rts.size(); k++) {
          int m = (i + k) % rts.size();
          modes.get(m).batch1.add(rts.get(m).submit(reqs.get(i)).join());
        }
      }
      o.printf(
          "batch 1 done: latency p50 %.0f ms token-by-token, %.0f ms jump-forward%n",
          tbt.latencyMsP50(), jf.latencyMsP50());
      if (cJf != null) {
        o.printf(
            "batch 1 in %s: latency p50 %.0f ms token-by-token, %.0f ms jump-forward%n",
            labels[1], cmpTbt.latencyMsP50(), cmpJf.latencyMsP50());
      }
      o.printf(
          "throughput: %d request%s at once per mode, %d round%s%n",
          Math.min(parallel, n),
          Math.min(parallel, n) == 1 ? "" : "s",
          repeats,
          repeats == 1 ? "" : "s");
      o.flush();
      List<GenerationRequest> wave = reqs.subList(0, Math.min(parallel, n));
      for (int r = 0; r < repeats; r++) {
        parallelRun(r % 2 == 0 ? rtTbt : rtJf, wave, r % 2 == 0 ? tbt : jf);
        parallelRun(r % 2 == 0 ? rtJf : rtTbt, wave, r % 2 == 0 ? jf : tbt);
      }
      Pattern p = Pattern.compile(regex);
      tbt.score(p, rtTbt.tokenizer());
      jf.score(p, rtJf.tokenizer());
      if (cJf != null) {
        cmpTbt.score(p, cTbt.tokenizer());
        cmpJf.score(p, cJf.tokenizer());
      }
    }
    Map<String, Character> facts = new HashMap<>();
    for (Character c : Character.all()) {
      facts.put(c.benchmarkName(), c);
    }
    for (int i = 0; i < n; i++) {
      Character c = facts.get(names.get(i));
      for (ModeResult m : List.of(tbt, jf, cmpTbt, cmpJf)) {
        m.labels.add(names.get(i));
        m.truths.add(c == null ? Map.of() : c.fields());
      }
    }
    failIfErrors(tbt);
    failIfErrors(jf);
    List<String> differences = greedyDifferences(tbt, jf);
    int agree = n - differences.size();
    ObjectNode json = report("characters", dir, List.of(tbt, jf), (double) agree / n);
    ArrayNode diffs = json.putArray("greedyDifferences");
    differences.forEach(diffs::add);
    write(outFile, json);
    o.println();
    o.println(table(tbt, jf, (double) agree / n, Math.min(parallel, n)));
    if (!differences.isEmpty()) {
      o.println("Greedy differences (token-by-token vs jump-forward):");
      differences.forEach(d -> o.println("  " + d));
    }
    if (labels[1] != null) {
      String mainDtype = labels[0];
      String cmpLabel = labels[1];
      failIfErrors(cmpTbt);
      failIfErrors(cmpJf);
      List<String> dTbt = greedyDifferences(tbt, cmpTbt);
      List<String> dJf = greedyDifferences(jf, cmpJf);
      o.println();
      o.printf(
          "| batch 1 | %s token-by-token | %s jump-forward | %s token-by-token | %s jump-forward |%n",
          mainDtype, mainDtype, cmpLabel, cmpLabel);
      o.println("|---|---:|---:|---:|---:|");
      o.printf(
          Locale.ROOT,
          "| latency p50 (ms) | %.1f | %.1f | %.1f | %.1f |%n",
          tbt.latencyMsP50(),
          jf.latencyMsP50(),
          cmpTbt.latencyMsP50(),
          cmpJf.latencyMsP50());
      o.printf(
          Locale.ROOT,
          "| forward passes per request | %.1f | %.1f | %.1f | %.1f |%n",
          tbt.forwardPassesPerRequest(),
          jf.forwardPassesPerRequest(),
          cmpTbt.forwardPassesPerRequest(),
          cmpJf.forwardPassesPerRequest());
      o.printf(
          Locale.ROOT,
          "| valid outputs (%%) | %.1f | %.1f | %.1f | %.1f |%n",
          100.0 * tbt.valid / n,
          100.0 * jf.valid / n,
          100.0 * cmpTbt.valid / n,
          100.0 * cmpJf.valid / n);
      o.printf(
          Locale.ROOT,
          "| fields equal to the truth (%%) | %.1f | %.1f | %.1f | %.1f |%n",
          100.0 * tbt.fieldAccuracy(),
          100.0 * jf.fieldAccuracy(),
          100.0 * cmpTbt.fieldAccuracy(),
          100.0 * cmpJf.fieldAccuracy());
      o.printf(
          Locale.ROOT,
          "| greedy output equal to %s's, same mode | | | %d of %d | %d of %d |%n",
          mainDtype,
          n - dTbt.size(),
          n,
          n - dJf.size(),
          n);
      dTbt.forEach(d -> o.println("  token-by-token " + mainDtype + " vs " + cmpLabel + ": " + d));
      dJf.forEach(d -> o.println("  jump-forward " + mainDtype + " vs " + cmpLabel + ": " + d));
      ObjectNode c = json.putObject("compareDtype");
      c.put("dtype", cmpLabel);
      c.put("latencyMsP50TokenByToken", cmpTbt.latencyMsP50());
      c.put("latencyMsP50JumpForward", cmpJf.latencyMsP50());
      c.put("agreementTokenByToken", (double) (n - dTbt.size()) / n);
      c.put("agreementJumpForward", (double) (n - dJf.size()) / n);
      write(outFile, json);
    }
    drawChart(chartFile, tbt, jf, Math.min(parallel, n));
    o.printf("%nwrote %s and %s%n", outFile, chartFile);
    o.flush();
    return 0;
  }

  /** A benchmark whose requests failed measures nothing: say why and stop. */
  private static void failIfErrors(ModeResult m) {
    for (Generation g : m.batch1) {
      if (g.isError()) {
        throw new IllegalStateException("a request failed in mode " + m.name + ": " + g.error());
      }
    }
  }

  /**
   * Every request whose output differs between the two modes (same requests, same order), as its
   * label and the first difference.
   */
  private static List<String> greedyDifferences(ModeResult tbt, ModeResult jf) {
    List<String> differences = new ArrayList<>();
    for (int i = 0; i < jf.batch1.size(); i++) {
      String a = tbt.batch1.get(i).text();
      String b = jf.batch1.get(i).text();
      if (!a.equals(b)) {
        differences.add(jf.labels.get(i) + ": " + firstDifference(a, b));
      }
    }
    return differences;
  }

  private static String firstDifference(String a, String b) {
    int i = 0;
    while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    int from = Math.max(0, i - 20);
    return "at char "
        + i
        + ": ..."
        + escape(a.substring(from, Math.min(a.length(), i + 20)))
        + " | ..."
        + escape(b.substring(from, Math.min(b.length(), i + 20)));
  }

  private static String escape(String s) {
    return s.replace("\n", "\\n");
  }

  private LeapRuntime runtime(Path dir, boolean jump, boolean cache, int capacity) {
    return runtime(dir, jump, cache, capacity, runtimeOptions.dtype());
  }

  private LeapRuntime runtime(Path dir, boolean jump, boolean cache, int capacity, String dtype) {
    return LeapRuntime.builder()
        .setModelDir(dir)
        .optJumpForward(jump)
        .optPrefixCache(cache)
        .optKvCapacity(capacity)
        .optMaxBatch(256)
        .optDtype(dtype)
        .optSparseLogitsLimit(runtimeOptions.sparseLogitsLimit())
        .optCpuF32Weights(runtimeOptions.cpuF32Weights())
        .build();
  }

  private static void parallelRun(LeapRuntime rt, List<GenerationRequest> wave, ModeResult into) {
    long t0 = System.nanoTime();
    List<Generation> gs = rt.generateAll(wave);
    double ms = (System.nanoTime() - t0) / 1e6;
    long tokens = 0;
    double passes = 0;
    for (Generation g : gs) {
      tokens += g.tokenIds().length;
      passes += g.stats().forwardPasses();
    }
    into.parallelWallMs.add(ms);
    into.parallelOutputTokens.add(tokens);
    into.parallelRequests.add(gs.size());
    into.parallelForwardPassesPerRequest.add(passes / gs.size());
  }

  private static String table(ModeResult tbt, ModeResult jf, double agreement, int parallel) {
    StringBuilder sb = new StringBuilder();
    sb.append("| metric | token-by-token | jump-forward | ratio |\n|---|---:|---:|---:|\n");
    row(
        sb,
        "latency p50 at batch 1 (ms)",
        tbt.latencyMsP50(),
        jf.latencyMsP50(),
        tbt.latencyMsP50() / jf.latencyMsP50(),
        "x faster");
    row(
        sb,
        "throughput at parallel " + parallel + " (output tokens/s)",
        tbt.throughputTokensPerSec(),
        jf.throughputTokensPerSec(),
        jf.throughputTokensPerSec() / tbt.throughputTokensPerSec(),
        "x higher");
    row(
        sb,
        "throughput at parallel " + parallel + " (requests/s)",
        tbt.throughputRequestsPerSec(),
        jf.throughputRequestsPerSec(),
        jf.throughputRequestsPerSec() / tbt.throughputRequestsPerSec(),
        "x higher");
    row(
        sb,
        "forward passes per request",
        tbt.forwardPassesPerRequest(),
        jf.forwardPassesPerRequest(),
        tbt.forwardPassesPerRequest() / jf.forwardPassesPerRequest(),
        "x fewer");
    row(
        sb,
        "tokens sampled per request",
        tbt.mean(g -> g.stats().tokensSampled()),
        jf.mean(g -> g.stats().tokensSampled()),
        Double.NaN,
        "");
    row(
        sb,
        "tokens jumped per request",
        tbt.mean(g -> g.stats().tokensJumped()),
        jf.mean(g -> g.stats().tokensJumped()),
        Double.NaN,
        "");
    row(
        sb,
        "output tokens per request",
        tbt.outputTokensPerRequest(),
        jf.outputTokensPerRequest(),
        Double.NaN,
        "");
    row(
        sb,
        "valid outputs (%)",
        100.0 * tbt.valid / tbt.batch1.size(),
        100.0 * jf.valid / jf.batch1.size(),
        Double.NaN,
        "");
    row(
        sb,
        "fields equal to the truth (%)",
        100.0 * tbt.fieldAccuracy(),
        100.0 * jf.fieldAccuracy(),
        Double.NaN,
        "");
    row(
        sb,
        "canonical tokenization (%)",
        100.0 * tbt.canonical / tbt.batch1.size(),
        100.0 * jf.canonical / jf.batch1.size(),
        Double.NaN,
        "");
    sb.append(
        String.format(
            Locale.ROOT, "| greedy agreement between the modes | | | %.0f%% |%n", agreement * 100));
    return sb.toString();
  }

  private static void row(
      StringBuilder sb, String name, double a, double b, double ratio, String unit) {
    sb.append(
        String.format(
            Locale.ROOT,
            "| %s | %.1f | %.1f | %s |%n",
            name,
            a,
            b,
            Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2f%s", ratio, unit)));
  }

  private static void drawChart(Path file, ModeResult tbt, ModeResult jf, int parallel)
      throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    CategoryChart latency =
        new CategoryChartBuilder()
            .width(520)
            .height(380)
            .title("Latency at batch 1 (median, ms)")
            .yAxisTitle("ms")
            .build();
    latency.addSeries(
        "p50 latency",
        List.of("token-by-token", "jump-forward"),
        List.of(tbt.latencyMsP50(), jf.latencyMsP50()));
    latency.getStyler().setLegendVisible(false);
    CategoryChart throughput =
        new CategoryChartBuilder()
            .width(520)
            .height(380)
            .title("Throughput at parallel " + parallel + " (output tokens/s)")
            .yAxisTitle("tokens/s")
            .build();
    throughput.addSeries(
        "throughput",
        List.of("token-by-token", "jump-forward"),
        List.of(tbt.throughputTokensPerSec(), jf.throughputTokensPerSec()));
    throughput.getStyler().setLegendVisible(false);
    String base = file.toString().replaceFirst("\\.png$", "");
    BitmapEncoder.saveBitmap(
        List.of(latency, throughput), 1, 2, base, BitmapEncoder.BitmapFormat.PNG);
  }

  // ---------------------------------------------------------------------------------------------

  int longdoc(Path dir, Path outFile) throws IOException {
    PrintWriter o = spec.commandLine().getOut();
    if (!generator.equals("first") && !generator.equals("second")) {
      throw new IllegalArgumentException("--generator must be first or second, not " + generator);
    }
    if (!values.equals("closed") && !values.equals("open")) {
      throw new IllegalArgumentException("--values must be closed or open, not " + values);
    }
    List<String> questions = CityDocument.questions();
    int q = requests == null ? 8 : Math.min(requests, questions.size());
    String regex = BenchData.cityRegex();
    Pattern p = Pattern.compile(regex);
    ModeResult jf = new ModeResult("jump-forward, radix cache");
    ModeResult tbt = new ModeResult("token-by-token, radix cache");
    ModeResult jfCold = new ModeResult("jump-forward, no cache (first document)");
    ModeResult tbtCold = new ModeResult("token-by-token, no cache (first document)");
    SplittableRandom lengths = new SplittableRandom(seed);
    o.println(
        "longdoc: loading the model four times (jump-forward and token-by-token, with and without the radix cache)");
    o.flush();
    try (LeapRuntime rtJf = runtime(dir, true, true, 32_768);
        LeapRuntime rtTbt = runtime(dir, false, true, 32_768);
        LeapRuntime rtJfCold = runtime(dir, true, false, 32_768);
        LeapRuntime rtTbtCold = runtime(dir, false, false, 32_768)) {
      for (LeapRuntime rt : List.of(rtJf, rtTbt, rtJfCold, rtTbtCold)) {
        // Warm the code paths on an unrelated prompt so the first timed request is not a JIT run.
        rt.generate(
            "Warm-up.", Constraint.regex(regex), SamplingParams.builder().maxTokens(16).build());
      }
      o.printf(
          "longdoc: %d held-out documents of %d-%d tokens (%s generator, %s values), %d questions each, model %s, device %s%n",
          docs, docTokensMin, docTokensMax, generator, values, q, dir, rtJf.device());
      o.flush();
      for (int d = 0; d < docs; d++) {
        long citySeed = City.EVAL_SEED_BASE + d;
        boolean open = values.equals("open");
        City city = open ? City.open(citySeed) : City.of(citySeed);
        int target = docTokensMin + lengths.nextInt(docTokensMax - docTokensMin + 1);
        String doc =
            generator.equals("second")
                ? GazetteerDocument.text(city, citySeed, target, rtJf.tokenizer())
                : CityDocument.text(city, citySeed, target, rtJf.tokenizer(), open);
        int docLength = rtJf.tokenizer().encode(doc).length;
        for (int i = 0; i < q; i++) {
          SamplingParams sp =
              SamplingParams.builder()
                  .temperature(temperature)
                  .seed(seed + i)
                  .maxTokens(maxTokens)
                  .build();
          GenerationRequest r =
              GenerationRequest.of(
                  CityDocument.prompt(doc, questions.get(i)), Constraint.regex(regex), sp);
          String label = "document " + citySeed + " (" + docLength + " tokens), question " + i;
          List<ModeResult> modes = d == 0 ? List.of(jf, tbt, jfCold, tbtCold) : List.of(jf, tbt);
          List<LeapRuntime> rts =
              d == 0 ? List.of(rtJf, rtTbt, rtJfCold, rtTbtCold) : List.of(rtJf, rtTbt);
          for (int k = 0; k < modes.size(); k++) {
            // Alternate which mode goes first, so slow drifts of the machine hit both.
            int m = (k + d + i) % modes.size();
            modes.get(m).batch1.add(rts.get(m).submit(r).join());
          }
          for (ModeResult m : modes) {
            m.truths.add(city.fields());
            m.labels.add(label);
          }
        }
        o.printf(
            "  %d/%d documents (%d tokens%s): fields equal to the truth so far %.1f%% (jump-forward), %.1f%% (token-by-token)%n",
            d + 1,
            docs,
            docLength,
            d == 0 ? ", four modes" : "",
            100 * jf.fieldAccuracy(),
            100 * tbt.fieldAccuracy());
        o.flush();
      }
      for (ModeResult m : List.of(jf, tbt, jfCold, tbtCold)) {
        m.score(p, rtJf.tokenizer());
        failIfErrors(m);
      }
    }
    List<String> differences = greedyDifferences(tbt, jf);
    int agree = jf.batch1.size() - differences.size();
    double agreement = (double) agree / jf.batch1.size();
    List<ModeResult> modes = List.of(jf, tbt, jfCold, tbtCold);
    ObjectNode json = report("longdoc", dir, modes, agreement);
    json.put("documents", docs);
    json.put("questionsPerDocument", q);
    ArrayNode diffs = json.putArray("greedyDifferences");
    differences.forEach(diffs::add);
    write(outFile, json);
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| mode | requests | TTFT first question (ms) | TTFT later p50 (ms) | prompt tokens | prefilled per later question"
            + " | latency p50 (ms) | forward passes/request | complete | fields equal to the truth |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ModeResult m : modes) {
      List<Generation> first = new ArrayList<>();
      List<Generation> later = new ArrayList<>();
      for (int i = 0; i < m.batch1.size(); i++) {
        (i % q == 0 ? first : later).add(m.batch1.get(i));
      }
      double ttftFirst =
          ModeResult.median(first.stream().map(g -> g.stats().timeToFirstTokenMs()).toList());
      double ttftLater =
          ModeResult.median(later.stream().map(g -> g.stats().timeToFirstTokenMs()).toList());
      double prefilledLater =
          later.stream()
              .mapToDouble(g -> g.stats().promptTokens() - g.stats().cachedPromptTokens())
              .average()
              .orElse(Double.NaN);
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.0f | %.0f | %.0f | %.1f | %.0f | %.1f | %d/%d | %.1f%% |%n",
              m.name,
              m.batch1.size(),
              ttftFirst,
              ttftLater,
              m.mean(g -> g.stats().promptTokens()),
              prefilledLater,
              m.latencyMsP50(),
              m.forwardPassesPerRequest(),
              m.batch1.stream().filter(Generation::isComplete).count(),
              m.batch1.size(),
              100 * m.fieldAccuracy()));
    }
    o.println();
    o.print(sb);
    o.printf(
        "%ngreedy output of jump-forward identical to token-by-token: %d of %d (%.1f%%)%n",
        agree, jf.batch1.size(), 100 * agreement);
    differences.forEach(d -> o.println("  " + d));
    o.printf("%nwrote %s%n", outFile);
    o.flush();
    return 0;
  }

  private ObjectNode report(String benchmark, Path dir, List<ModeResult> modes, double agreement) {
    ObjectMapper m = Json.MAPPER;
    ObjectNode json = m.createObjectNode();
    json.put("benchmark", benchmark);
    json.put("model", dir.toString());
    json.put("device", "cpu");
    json.put("maxTokens", maxTokens);
    json.put("temperature", temperature);
    json.put("parallel", parallel);
    ArrayNode arr = json.putArray("modes");
    for (ModeResult mr : modes) {
      mr.toJson(arr.addObject());
    }
    if (!Double.isNaN(agreement)) {
      json.put("greedyAgreementShare", agreement);
    }
    return json;
  }

  private static void write(Path file, ObjectNode json) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    Json.MAPPER.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), json);
  }
}
