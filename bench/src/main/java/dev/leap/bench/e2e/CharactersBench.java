package dev.leap.bench.e2e;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import dev.leap.train.data.Character;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code leap bench characters}: SGLang's character benchmark (its 50 names, prompt template and
 * {@code character_regex}), jump-forward against token-by-token on one model in one process.
 * Batch-1 latency runs the requests one at a time, rotating which mode goes first request by
 * request; throughput runs {@code --parallel} requests at once per mode, alternating which mode
 * goes first for {@code --repeats} rounds; medians are reported. With {@code --compare-dtype} two
 * more runtimes in that dtype join the batch-1 rotation, and their latency and greedy agreement
 * with the main dtype are reported.
 *
 * <p>Invariants: every mode sees the same requests in the same order (request {@code i} samples
 * with seed {@code --seed + i}), so greedy outputs can be compared index by index; each runtime
 * generates one warm-up request before anything is timed; a failed request stops the benchmark.
 */
final class CharactersBench {
  private final BenchCommand cmd;

  CharactersBench(BenchCommand cmd) {
    this.cmd = cmd;
  }

  int run(Path dir, Path outFile, Path chartFile) throws IOException {
    PrintWriter o = cmd.spec.commandLine().getOut();
    List<String> names = BenchData.characterNames();
    int n = cmd.requests == null ? names.size() : Math.min(cmd.requests, names.size());
    String regex = BenchData.characterRegex();
    List<GenerationRequest> reqs = new ArrayList<>();
    SamplingParams params =
        SamplingParams.builder()
            .temperature(cmd.temperature)
            .seed(cmd.seed)
            .maxTokens(cmd.maxTokens)
            .build();
    for (int i = 0; i < n; i++) {
      SamplingParams p =
          SamplingParams.builder()
              .temperature(cmd.temperature)
              .seed(cmd.seed + i)
              .maxTokens(cmd.maxTokens)
              .build();
      reqs.add(
          GenerationRequest.of(
              BenchData.characterPrompt(names.get(i)), Constraint.regex(regex), p));
    }
    ModeResult tbt = new ModeResult("token-by-token");
    ModeResult jf = new ModeResult("jump-forward");
    int capacity = Math.max(32_768, Math.min(cmd.parallel, n) * (cmd.maxTokens + 64));
    ModeResult cmpTbt = new ModeResult("token-by-token, " + cmd.compareDtype);
    ModeResult cmpJf = new ModeResult("jump-forward, " + cmd.compareDtype);
    String[] labels =
        new String[2]; // the main dtype, the compared one (null without --compare-dtype)
    try (LeapRuntime rtTbt = cmd.runtime(dir, false, true, capacity, cmd.runtimeOptions.dtype());
        LeapRuntime rtJf = cmd.runtime(dir, true, true, capacity, cmd.runtimeOptions.dtype());
        LeapRuntime cTbt =
            cmd.compareDtype == null
                ? null
                : cmd.runtime(dir, false, true, 4096, cmd.compareDtype);
        LeapRuntime cJf =
            cmd.compareDtype == null
                ? null
                : cmd.runtime(dir, true, true, 4096, cmd.compareDtype)) {
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
          Math.min(cmd.parallel, n),
          Math.min(cmd.parallel, n) == 1 ? "" : "s",
          cmd.repeats,
          cmd.repeats == 1 ? "" : "s");
      o.flush();
      List<GenerationRequest> wave = reqs.subList(0, Math.min(cmd.parallel, n));
      for (int r = 0; r < cmd.repeats; r++) {
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
    ModeReport.failIfErrors(tbt);
    ModeReport.failIfErrors(jf);
    List<String> differences = ModeReport.greedyDifferences(tbt, jf);
    int agree = n - differences.size();
    ObjectNode json =
        ModeReport.report(
            "characters",
            dir,
            cmd.runtimeOptions.device(),
            cmd.maxTokens,
            cmd.temperature,
            cmd.parallel,
            List.of(tbt, jf),
            (double) agree / n);
    ArrayNode diffs = json.putArray("greedyDifferences");
    differences.forEach(diffs::add);
    ModeReport.write(outFile, json);
    o.println();
    o.println(ModeReport.table(tbt, jf, (double) agree / n, Math.min(cmd.parallel, n)));
    if (!differences.isEmpty()) {
      o.println("Greedy differences (token-by-token vs jump-forward):");
      differences.forEach(d -> o.println("  " + d));
    }
    if (labels[1] != null) {
      String mainDtype = labels[0];
      String cmpLabel = labels[1];
      ModeReport.failIfErrors(cmpTbt);
      ModeReport.failIfErrors(cmpJf);
      List<String> dTbt = ModeReport.greedyDifferences(tbt, cmpTbt);
      List<String> dJf = ModeReport.greedyDifferences(jf, cmpJf);
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
      ModeReport.write(outFile, json);
    }
    try {
      ModeReport.drawChart(chartFile, tbt, jf, Math.min(cmd.parallel, n));
      o.printf("%nwrote %s and %s%n", outFile, chartFile);
    } catch (LinkageError | RuntimeException e) {
      // AWT's font natives need the system's font libraries (libharfbuzz, fontconfig), which a
      // machine may lack (the CUDA image did): the results stand without their chart.
      o.printf(
          "%nwrote %s; no chart: AWT cannot draw here (%s: %s)%n",
          outFile, e.getClass().getSimpleName(), e.getMessage());
    }
    o.flush();
    return 0;
  }

  /** One throughput round: all of {@code wave} at once on {@code rt}, its wall time and counts. */
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
}
