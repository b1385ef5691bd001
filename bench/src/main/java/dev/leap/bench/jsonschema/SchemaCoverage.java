package dev.leap.bench.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.fsm.TokenIndex;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.GrammarLimitException;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaException;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.fsm.json.KeyOrder;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.retokenize.JumpRetokenizer;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;

/**
 * JSONSchemaBench coverage: for every schema of every subset in {@code corpora/jsonschemabench},
 * compile it (declared coverage: compiled without error within 10 s, or {@code
 * -Dleap.bench.compileSeconds}), then check every labelled instance (serialized compactly, keys in
 * the instance's order and in the schema's order): valid ones accepted in either order, invalid
 * ones rejected in both. Also the compile time per schema including the first token mask against
 * the Llama 3 vocabulary (built lazily, as decoding would), (a schema compiled to a grammar,
 * recursion as rules: the grammar's token sets precomputed for every rule state, and its instances
 * matched and replayed through a {@code GrammarMatcher}) and for the accepted valid instances: the
 * share of bytes covered by jump edges (forced), the share of their Llama 3 tokens that are forced,
 * and a replay of jump-forward decoding ({@link ForcedTokens}).
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.leap.bench.jsonschema.SchemaCoverage [OUT.json [SUBSET...]]
 * </pre>
 */
public final class SchemaCoverage {
  private SchemaCoverage() {}

  static final class Subset {
    int schemas;
    int compiled;
    int timedOut;
    int validTotal;
    int validAccepted;
    int invalidTotal;
    int invalidRejected;
    long forcedBytes;
    long totalBytes;
    long canonicalTokens;
    long forcedTokens;
    long outputTokens;
    long sampledTokens;
    long jumps;
    int replays;
    int replaysCanonical;

    /** Schemas compiled to a grammar (recursion as rules), and their valid instances accepted. */
    int grammars;

    int grammarValidAccepted;
    final List<Double> compileMs = new ArrayList<>();
    final Map<String, Integer> reasons = new TreeMap<>();
  }

  /**
   * The compile time limit per schema in seconds ({@code -Dleap.bench.compileSeconds}, 10 by
   * default; the paper's is 40).
   */
  static final int LIMIT_S = Integer.getInteger("leap.bench.compileSeconds", 10);

  /**
   * How long a compile past {@link #LIMIT_S} is still waited for (not counted), so it does not slow
   * the next ones.
   */
  static final int ABANDONED_WAIT_S = 300;

  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "schema-compile");
            t.setDaemon(true);
            return t;
          });

  public static void main(String[] args) throws Exception {
    Path dir = BenchData.file("corpora/jsonschemabench");
    HfTokenizer tokenizer = HfTokenizer.load(BenchData.file("tokenizers/llama3/tokenizer.json"));
    TokenizerJsonVocabulary llama3 = tokenizer.vocabulary();
    ForcedTokens forcedTokens = new ForcedTokens(tokenizer);
    ObjectMapper m = Json.MAPPER;
    List<String> subsets =
        args.length > 1
            ? List.of(Arrays.copyOfRange(args, 1, args.length))
            : BenchData.SCHEMA_BENCH_SUBSETS;
    ObjectNode report = m.createObjectNode();
    ArrayNode rows = report.putArray("subsets");
    List<Double> allCompileMs = new ArrayList<>();
    System.out.println(
        "| subset | schemas | declared coverage | valid accepted | invalid rejected | wrongly accepted"
            + " | compile p50 (ms) | compile p99 (ms) | forced bytes | forced tokens | tokens the model samples | replays canonical |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String name : subsets) {
      Path file = dir.resolve(name + ".jsonl.gz");
      if (!Files.exists(file)) {
        continue;
      }
      Subset s = new Subset();
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(
                  new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          JsonNode rec = m.readTree(line);
          s.schemas++;
          String schema = rec.get("schema").toString();
          long t0 = System.nanoTime();
          Forcing fsm;
          CountDownLatch finished = new CountDownLatch(1);
          Future<Forcing> job =
              POOL.submit(
                  () -> {
                    try {
                      return compile(schema, llama3);
                    } finally {
                      finished.countDown();
                    }
                  });
          try {
            fsm = job.get(LIMIT_S, TimeUnit.SECONDS);
          } catch (TimeoutException e) {
            job.cancel(true);
            // Compilation does not stop when interrupted: wait for it (up to ABANDONED_WAIT_S, not
            // counted), else it would slow the next schemas into the limit.
            finished.await(ABANDONED_WAIT_S, TimeUnit.SECONDS);
            s.timedOut++;
            s.reasons.merge("over " + LIMIT_S + " s", 1, Integer::sum);
            continue;
          } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof EmptyLanguageException) {
              boolean anyValid = false;
              for (JsonNode test : rec.path("tests")) {
                anyValid |= test.path("valid").asBoolean();
              }
              s.reasons.merge(
                  anyValid
                      ? "empty language, but valid instances exist"
                      : "empty language (no valid instance)",
                  1,
                  Integer::sum);
            } else if (c instanceof JsonSchemaException j) {
              s.reasons.merge(j.keyword(), 1, Integer::sum);
            } else if (c instanceof AutomatonTooLargeException) {
              s.reasons.merge("automaton too large", 1, Integer::sum);
            } else {
              s.reasons.merge(c.getClass().getSimpleName(), 1, Integer::sum);
            }
            continue;
          }
          double ms = (System.nanoTime() - t0) / 1e6;
          s.compiled++;
          s.compileMs.add(ms);
          boolean grammar = fsm.automaton() instanceof GrammarMatcher;
          s.grammars += grammar ? 1 : 0;
          JsonNode schemaNode = rec.get("schema");
          JumpRetokenizer retokenizer = new JumpRetokenizer(tokenizer, fsm.automaton(), true);
          for (JsonNode test : rec.path("tests")) {
            // Keys in the instance's order, and in the schema's (an instance is valid or not in
            // either order; an invalid one counts as wrongly accepted if either is accepted).
            byte[] asGiven =
                m.writeValueAsString(test.get("data")).getBytes(StandardCharsets.UTF_8);
            byte[] ordered =
                m.writeValueAsString(KeyOrder.schemaOrder(test.get("data"), schemaNode))
                    .getBytes(StandardCharsets.UTF_8);
            boolean acceptedAsGiven = matches(fsm, asGiven);
            byte[] inst = acceptedAsGiven ? asGiven : ordered;
            boolean accepted = acceptedAsGiven || matches(fsm, ordered);
            if (test.get("valid").asBoolean()) {
              s.validTotal++;
              if (accepted) {
                s.validAccepted++;
                s.grammarValidAccepted += grammar ? 1 : 0;
                boolean[] forced = ForcedTokens.forcedBytes(fsm, inst);
                for (boolean f : forced) {
                  s.forcedBytes += f ? 1 : 0;
                }
                s.totalBytes += inst.length;
                ForcedTokens.Counts c = forcedTokens.measure(fsm, retokenizer, inst);
                s.canonicalTokens += c.canonicalTokens();
                s.forcedTokens += c.forcedTokens();
                s.outputTokens += c.outputTokens();
                s.sampledTokens += c.sampledTokens();
                s.jumps += c.jumps();
                s.replays++;
                s.replaysCanonical += c.outputCanonical() ? 1 : 0;
              }
            } else {
              s.invalidTotal++;
              if (!accepted) {
                s.invalidRejected++;
              } else {
                System.err.println(
                    "WRONGLY ACCEPTED: "
                        + rec.get("file").asText()
                        + ": "
                        + new String(inst, StandardCharsets.UTF_8));
              }
            }
          }
        }
      }
      allCompileMs.addAll(s.compileMs);
      if (s.grammars > 0) {
        System.err.printf(
            Locale.ROOT,
            "%s: %d schemas compiled to grammars (recursion as rules), %d of their valid"
                + " instances accepted%n",
            name,
            s.grammars,
            s.grammarValidAccepted);
      }
      double p50 = Percentile.of(s.compileMs, 0.50);
      double p99 = Percentile.of(s.compileMs, 0.99);
      int wrong = s.invalidTotal - s.invalidRejected;
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %.2f | %d/%d | %d/%d | %d | %.1f | %.1f | %.1f%% | %.1f%% | %.1f%% | %d/%d |%n",
          name,
          s.schemas,
          (double) s.compiled / s.schemas,
          s.validAccepted,
          s.validTotal,
          s.invalidRejected,
          s.invalidTotal,
          wrong,
          p50,
          p99,
          100.0 * s.forcedBytes / Math.max(1, s.totalBytes),
          100.0 * s.forcedTokens / Math.max(1, s.canonicalTokens),
          100.0 * s.sampledTokens / Math.max(1, s.outputTokens),
          s.replaysCanonical,
          s.replays);
      ObjectNode row = rows.addObject();
      row.put("subset", name);
      row.put("schemas", s.schemas);
      row.put("compiled", s.compiled);
      row.put("declaredCoverage", (double) s.compiled / s.schemas);
      row.put("validAccepted", s.validAccepted);
      row.put("validTotal", s.validTotal);
      row.put("invalidRejected", s.invalidRejected);
      row.put("invalidTotal", s.invalidTotal);
      row.put("wronglyAccepted", wrong);
      row.put("compileMsP50", p50);
      row.put("compileMsP99", p99);
      row.put("forcedByteShare", (double) s.forcedBytes / Math.max(1, s.totalBytes));
      row.put("canonicalTokens", s.canonicalTokens);
      row.put("forcedTokenShare", (double) s.forcedTokens / Math.max(1, s.canonicalTokens));
      row.put("replayOutputTokens", s.outputTokens);
      row.put("replaySampledTokens", s.sampledTokens);
      row.put("replaySampledShare", (double) s.sampledTokens / Math.max(1, s.outputTokens));
      row.put("replayJumps", s.jumps);
      row.put("replays", s.replays);
      row.put("replaysCanonical", s.replaysCanonical);
      row.put("grammars", s.grammars);
      row.put("grammarValidAccepted", s.grammarValidAccepted);
      ObjectNode reasons = row.putObject("notCompiledBecause");
      s.reasons.forEach(reasons::put);
    }
    System.out.printf(
        Locale.ROOT,
        "compile time over all compiled schemas (%d): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms%n",
        allCompileMs.size(),
        Percentile.of(allCompileMs, 0.50),
        Percentile.of(allCompileMs, 0.90),
        Percentile.of(allCompileMs, 0.99));
    report.put("compileMsP50", Percentile.of(allCompileMs, 0.50));
    report.put("compileMsP90", Percentile.of(allCompileMs, 0.90));
    report.put("compileMsP99", Percentile.of(allCompileMs, 0.99));
    Path out = Path.of(args.length > 0 ? args[0] : "bench-results/jsonschemabench.json");
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    m.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), report);
    System.out.println("wrote " + out);
  }

  /**
   * Compiles {@code schema} as the runtime does before a request can decode: a DFA and its first
   * token mask, or (recursion as rules) a grammar whose rule states get their token sets on first
   * use, with the first mask computed.
   */
  private static Forcing compile(String schema, TokenizerJsonVocabulary vocab) {
    JsonSchema.Compiled c = JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults());
    if (c.grammar().isPresent()) {
      GrammarMatcher gm = CompiledGrammar.compileLazily(c.grammar().get(), vocab).newMatcher();
      gm.allowed(gm.initialState());
      return Forcing.of(gm);
    }
    CompressedFsm f = c.fsm();
    TokenIndex.of(f.dfa(), vocab).allowed(f.dfa().initialState());
    return Forcing.of(f);
  }

  /** Whether the whole of {@code text} matches. */
  private static boolean matches(Forcing f, byte[] text) {
    ByteAutomaton a = f.automaton();
    try {
      int s = a.walk(a.initialState(), text, 0, text.length);
      return s != ByteAutomaton.DEAD && a.isAccepting(s);
    } catch (GrammarLimitException e) {
      return false; // a grammar's stack depth or live stacks exceeded: not accepted
    }
  }
}
