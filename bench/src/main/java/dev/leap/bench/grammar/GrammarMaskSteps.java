package dev.leap.bench.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.bench.BenchData;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.retokenize.HfTokenizer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Free-form JSON outputs through {@link Grammar#json()} with Llama 3's vocabulary: the valid test
 * instances of JSONSchemaBench (compact, as Jackson writes them, which is the grammar's layout),
 * each encoded by the tokenizer and walked token by token through a fresh matcher (one per
 * instance, as one per request). At each token, {@code allowed(state)} is timed (almost always the
 * first call for a state in the matcher: computed; a configuration seen before in the same instance
 * is a cache hit, as it would be in a run); reported as p50, p99, max over all steps and over the
 * computed ones alone. Also: the share of the instances' bytes that {@code forcedBytes} supplies
 * (at every position the walk reaches: where bytes are forced they are taken as a whole, else one
 * byte is read).
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.leap.bench.grammar.GrammarMaskSteps [maxInstancesPerSubset]
 * </pre>
 */
public final class GrammarMaskSteps {
  private GrammarMaskSteps() {}

  public static void main(String[] args) throws Exception {
    int perSubset = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    HfTokenizer tokenizer = HfTokenizer.load(BenchData.file("tokenizers/llama3/tokenizer.json"));
    long c0 = System.nanoTime();
    CompiledGrammar cg = CompiledGrammar.compile(Grammar.json(), tokenizer.vocabulary());
    double compileMs = (System.nanoTime() - c0) / 1e6;
    System.out.printf(
        "compile Grammar.json() with Llama 3: %.1f ms (first, cold JIT); %s%n",
        compileMs, cg.describe());
    ObjectMapper m = Json.MAPPER;
    Path dir = BenchData.file("corpora/jsonschemabench");
    List<String> subsets = BenchData.SCHEMA_BENCH_SUBSETS;
    List<byte[]> texts = new ArrayList<>();
    for (String name : subsets) {
      Path file = dir.resolve(name + ".jsonl.gz");
      if (!Files.exists(file)) {
        continue;
      }
      int taken = 0;
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(
                  new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null && taken < perSubset) {
          for (JsonNode t : m.readTree(line).path("tests")) {
            if (t.path("valid").asBoolean(false) && taken < perSubset) {
              texts.add(m.writeValueAsBytes(t.get("data")));
              taken++;
            }
          }
        }
      }
    }
    // Warm-up pass (JIT), then the measured pass.
    run(cg, tokenizer, texts, false);
    run(cg, tokenizer, texts, true);
  }

  private static void run(
      CompiledGrammar cg, HfTokenizer tokenizer, List<byte[]> texts, boolean report) {
    List<Double> micros = new ArrayList<>();
    List<Double> computed = new ArrayList<>();
    long forcedBytes = 0;
    long totalBytes = 0;
    int instances = 0;
    int skipped = 0;
    int maxStates = 0;
    for (byte[] text : texts) {
      int[] ids = tokenizer.encode(new String(text, StandardCharsets.UTF_8));
      GrammarMatcher gm = cg.newMatcher();
      int s = gm.initialState();
      boolean ok = true;
      BitSet seen = new BitSet();
      for (int id : ids) {
        long t0 = System.nanoTime();
        long[] mask = gm.allowed(s);
        double us = (System.nanoTime() - t0) / 1e3;
        micros.add(us);
        if (!seen.get(s)) {
          seen.set(s);
          computed.add(us);
        }
        if ((mask[id >>> 6] & (1L << id)) == 0) {
          ok = false;
          break;
        }
        s = gm.nextState(s, id);
      }
      if (!ok || !gm.isAccepting(s)) {
        skipped++;
        continue;
      }
      instances++;
      maxStates = Math.max(maxStates, gm.stateCount());
      // Forced share: walk the bytes, taking forced runs whole.
      GrammarMatcher fm = cg.newMatcher();
      int st = fm.initialState();
      int at = 0;
      while (at < text.length) {
        byte[] f = fm.forcedBytes(st);
        if (f.length > 0
            && at + f.length <= text.length
            && Arrays.equals(f, 0, f.length, text, at, at + f.length)) {
          forcedBytes += f.length;
          st = fm.walk(st, f);
          at += f.length;
        } else {
          st = fm.walk(st, text, at, at + 1);
          at++;
        }
        if (st == ByteAutomaton.DEAD) {
          throw new IllegalStateException("the grammar rejects a JSON text it must accept");
        }
      }
      totalBytes += text.length;
    }
    if (report) {
      System.out.printf(
          "instances %d (not walked: %d), %d bytes, %d mask steps%n",
          instances, skipped, totalBytes, micros.size());
      System.out.printf(
          "allowed() per step (a state seen before in the request is a cache hit): p50 %.2f us, p99 %.1f us,"
              + " max %.1f us%n",
          Percentile.of(micros, 0.5), Percentile.of(micros, 0.99), Percentile.of(micros, 1.0));
      System.out.printf(
          "allowed() computed (first use of a state in the request, %d of the steps): p50 %.1f us, p99 %.1f us,"
              + " max %.1f us%n",
          computed.size(),
          Percentile.of(computed, 0.5),
          Percentile.of(computed, 0.99),
          Percentile.of(computed, 1.0));
      System.out.printf(
          "forced bytes %.1f%% of the output; most states interned by one matcher %d%n",
          100.0 * forcedBytes / Math.max(1, totalBytes), maxStates);
    }
  }
}
