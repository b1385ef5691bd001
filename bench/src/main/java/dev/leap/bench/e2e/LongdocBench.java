package dev.leap.bench.e2e;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import dev.leap.train.data.GazetteerDocument;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * {@code leap bench longdoc}: extraction questions over held-out fictional city articles ({@code
 * --docs} of them, {@code --doc-tokens} long, seeds from {@link City#EVAL_SEED_BASE} that the
 * training never draws) constrained by SGLang's {@code city_regex}, one after another, jump-forward
 * against token-by-token with the radix cache on (and, for the first document, off): time to first
 * token of the first and the later questions, prompt tokens prefilled against served from the
 * cache, the share of fields equal to the document's facts, and how often the two modes' greedy
 * outputs are identical. Every output and its truth go into the JSON.
 *
 * <p>Invariants: the four runtimes (two modes, cache on and off) are loaded once and warmed on an
 * unrelated prompt; every mode answers the same questions in the same order, the first mode
 * rotating per question, so greedy outputs compare index by index; question {@code i} of every
 * document samples with seed {@code --seed + i}; document lengths are drawn from one generator
 * seeded with {@code --seed}.
 */
final class LongdocBench {
  private final BenchCommand cmd;

  LongdocBench(BenchCommand cmd) {
    this.cmd = cmd;
  }

  int run(Path dir, Path outFile) throws IOException {
    PrintWriter o = cmd.spec.commandLine().getOut();
    if (!cmd.generator.equals("first") && !cmd.generator.equals("second")) {
      throw new IllegalArgumentException(
          "--generator must be first or second, not " + cmd.generator);
    }
    if (!cmd.values.equals("closed") && !cmd.values.equals("open")) {
      throw new IllegalArgumentException("--values must be closed or open, not " + cmd.values);
    }
    List<String> questions = CityDocument.questions();
    int q = cmd.requests == null ? 8 : Math.min(cmd.requests, questions.size());
    String regex = BenchData.cityRegex();
    Pattern p = Pattern.compile(regex);
    ModeResult jf = new ModeResult("jump-forward, radix cache");
    ModeResult tbt = new ModeResult("token-by-token, radix cache");
    ModeResult jfCold = new ModeResult("jump-forward, no cache (first document)");
    ModeResult tbtCold = new ModeResult("token-by-token, no cache (first document)");
    SplittableRandom lengths = new SplittableRandom(cmd.seed);
    o.println(
        "longdoc: loading the model four times (jump-forward and token-by-token, with and without the radix cache)");
    o.flush();
    try (LeapRuntime rtJf = cmd.runtime(dir, true, true, 32_768);
        LeapRuntime rtTbt = cmd.runtime(dir, false, true, 32_768);
        LeapRuntime rtJfCold = cmd.runtime(dir, true, false, 32_768);
        LeapRuntime rtTbtCold = cmd.runtime(dir, false, false, 32_768)) {
      for (LeapRuntime rt : List.of(rtJf, rtTbt, rtJfCold, rtTbtCold)) {
        // Warm the code paths on an unrelated prompt so the first timed request is not a JIT run.
        rt.generate(
            "Warm-up.", Constraint.regex(regex), SamplingParams.builder().maxTokens(16).build());
      }
      if (cmd.forceFirstToken) {
        o.println(
            "longdoc: DIAGNOSTIC (--force-first-token): each value's first token is forced to the"
                + " truth's; the fields right are not the model's reading");
      }
      o.printf(
          "longdoc: %d held-out documents of %d-%d tokens (%s generator, %s values), %d questions each, model %s, device %s%n",
          cmd.docs,
          cmd.docTokensMin,
          cmd.docTokensMax,
          cmd.generator,
          cmd.values,
          q,
          dir,
          rtJf.device());
      o.flush();
      for (int d = 0; d < cmd.docs; d++) {
        long citySeed = City.EVAL_SEED_BASE + d;
        boolean open = cmd.values.equals("open");
        City city = open ? City.open(citySeed) : City.of(citySeed);
        int target = cmd.docTokensMin + lengths.nextInt(cmd.docTokensMax - cmd.docTokensMin + 1);
        String doc =
            cmd.generator.equals("second")
                ? GazetteerDocument.text(city, citySeed, target, rtJf.tokenizer())
                : CityDocument.text(city, citySeed, target, rtJf.tokenizer(), open);
        int docLength = rtJf.tokenizer().encode(doc).length;
        String docRegex =
            cmd.forceFirstToken ? FirstTokenForcing.regex(regex, city, rtJf.tokenizer()) : regex;
        for (int i = 0; i < q; i++) {
          SamplingParams sp =
              SamplingParams.builder()
                  .temperature(cmd.temperature)
                  .seed(cmd.seed + i)
                  .maxTokens(cmd.maxTokens)
                  .build();
          GenerationRequest r =
              GenerationRequest.of(
                  CityDocument.prompt(doc, questions.get(i)), Constraint.regex(docRegex), sp);
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
            m.groups.add(d);
          }
        }
        o.printf(
            "  %d/%d documents (%d tokens%s): fields equal to the truth so far %.1f%% (jump-forward), %.1f%% (token-by-token)%n",
            d + 1,
            cmd.docs,
            docLength,
            d == 0 ? ", four modes" : "",
            100 * jf.fieldAccuracy(),
            100 * tbt.fieldAccuracy());
        o.flush();
      }
      for (ModeResult m : List.of(jf, tbt, jfCold, tbtCold)) {
        m.score(p, rtJf.tokenizer());
        ModeReport.failIfErrors(m);
      }
    }
    List<String> differences = ModeReport.greedyDifferences(tbt, jf);
    int agree = jf.batch1.size() - differences.size();
    double agreement = (double) agree / jf.batch1.size();
    List<ModeResult> modes = List.of(jf, tbt, jfCold, tbtCold);
    ObjectNode json =
        ModeReport.report(
            "longdoc",
            dir,
            cmd.runtimeOptions.device(),
            cmd.maxTokens,
            cmd.temperature,
            cmd.parallel,
            modes,
            agreement);
    json.put("documents", cmd.docs);
    json.put("forcedFirstToken", cmd.forceFirstToken);
    json.put("questionsPerDocument", q);
    ArrayNode diffs = json.putArray("greedyDifferences");
    differences.forEach(diffs::add);
    ModeReport.write(outFile, json);
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
    for (ModeResult m : List.of(jf, tbt)) {
      StringBuilder f = new StringBuilder();
      m.fieldAccuracyByField()
          .forEach((k, v) -> f.append(String.format(Locale.ROOT, ", %s %.0f%%", k, 100 * v)));
      o.printf("%nfields right by field, %s: %s", m.name, f.substring(2));
    }
    o.println();
    for (ModeResult m : List.of(jf, tbt)) {
      o.printf(
          Locale.ROOT,
          "%nfields right, %s: %.1f%% (standard error %.1f points over %d documents: the questions"
              + " about one document are not independent)",
          m.name,
          100 * m.fieldAccuracy(),
          100 * m.fieldAccuracyStandardError(),
          cmd.docs);
    }
    o.println();
    o.printf(
        "%ngreedy output of jump-forward identical to token-by-token: %d of %d (%.1f%%)%n",
        agree, jf.batch1.size(), 100 * agreement);
    differences.forEach(d -> o.println("  " + d));
    o.printf("%nwrote %s%n", outFile);
    o.flush();
    return 0;
  }
}
