package dev.leap.bench.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.fsm.TokenIndex;
import dev.leap.fsm.TokenizerJsonVocabulary;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaException;
import dev.leap.fsm.json.JsonSchemaOptions;
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
import java.util.zip.GZIPInputStream;

/**
 * JSONSchemaBench coverage: for every schema of every subset in {@code corpora/jsonschemabench},
 * compile it (declared coverage: compiled without error within 10 s), then check every labelled
 * instance (serialized compactly, keys in the instance's order and in the schema's order): valid
 * ones accepted in either order, invalid ones rejected in both. Also the compile time per schema including the first token mask against the Llama 3
 * vocabulary (built lazily, as decoding would), and the share of bytes of the valid instances
 * covered by jump edges (forced).
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.leap.bench.jsonschema.SchemaCoverage [OUT.json]
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
    final List<Double> compileMs = new ArrayList<>();
    final Map<String, Integer> reasons = new TreeMap<>();
  }

  private static final java.util.concurrent.ExecutorService POOL = java.util.concurrent.Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "schema-compile");
    t.setDaemon(true);
    return t;
  });

  public static void main(String[] args) throws Exception {
    Path dir = BenchData.file("corpora/jsonschemabench");
    TokenizerJsonVocabulary llama3 = TokenizerJsonVocabulary.load(BenchData.file("tokenizers/llama3/tokenizer.json"));
    ObjectMapper m = new ObjectMapper();
    String[] subsets = {"Glaiveai2K", "Github_trivial", "Github_easy", "Github_medium", "Github_hard", "Kubernetes",
      "Snowplow", "WashingtonPost", "JME"};
    ObjectNode report = m.createObjectNode();
    ArrayNode rows = report.putArray("subsets");
    System.out.println("| subset | schemas | declared coverage | valid accepted | invalid rejected | wrongly accepted | compile p50 (ms) | compile p99 (ms) | forced bytes |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String name : subsets) {
      Path file = dir.resolve(name + ".jsonl.gz");
      if (!Files.exists(file)) {
        continue;
      }
      Subset s = new Subset();
      try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file)),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          JsonNode rec = m.readTree(line);
          s.schemas++;
          String schema = rec.get("schema").toString();
          long t0 = System.nanoTime();
          CompressedFsm fsm;
          java.util.concurrent.Future<CompressedFsm> job = POOL.submit(() -> {
            CompressedFsm f = JsonSchema.compile(schema, JsonSchemaOptions.defaults());
            TokenIndex.of(f.dfa(), llama3).allowed(f.dfa().initialState());
            return f;
          });
          try {
            fsm = job.get(10, java.util.concurrent.TimeUnit.SECONDS);
          } catch (java.util.concurrent.TimeoutException e) {
            job.cancel(true);
            s.timedOut++;
            s.reasons.merge("over 10 s", 1, Integer::sum);
            continue;
          } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof EmptyLanguageException) {
              boolean anyValid = false;
              for (JsonNode test : rec.path("tests")) {
                anyValid |= test.path("valid").asBoolean();
              }
              s.reasons.merge(anyValid ? "empty language, but valid instances exist" : "empty language (no valid instance)",
                  1, Integer::sum);
            } else if (c instanceof JsonSchemaException j) {
              s.reasons.merge(j.keyword(), 1, Integer::sum);
            } else if (c instanceof ConstraintException k && k.getMessage().contains("state limit")) {
              s.reasons.merge("DFA state limit", 1, Integer::sum);
            } else {
              s.reasons.merge(c.getClass().getSimpleName(), 1, Integer::sum);
            }
            continue;
          }
          double ms = (System.nanoTime() - t0) / 1e6;
          s.compiled++;
          s.compileMs.add(ms);
          JsonNode schemaNode = rec.get("schema");
          for (JsonNode test : rec.path("tests")) {
            // Keys in the instance's order, and in the schema's (an instance is valid or not in
            // either order; an invalid one counts as wrongly accepted if either is accepted).
            byte[] asGiven = m.writeValueAsString(test.get("data")).getBytes(StandardCharsets.UTF_8);
            byte[] ordered = m.writeValueAsString(schemaOrder(test.get("data"), schemaNode, schemaNode, 0))
                .getBytes(StandardCharsets.UTF_8);
            boolean acceptedAsGiven = fsm.dfa().matches(asGiven);
            byte[] inst = acceptedAsGiven ? asGiven : ordered;
            boolean accepted = acceptedAsGiven || fsm.dfa().matches(ordered);
            if (test.get("valid").asBoolean()) {
              s.validTotal++;
              if (accepted) {
                s.validAccepted++;
                forced(fsm, inst, s);
              }
            } else {
              s.invalidTotal++;
              if (!accepted) {
                s.invalidRejected++;
              } else {
                System.err.println("WRONGLY ACCEPTED: " + rec.get("file").asText() + ": " + new String(inst, StandardCharsets.UTF_8));
              }
            }
          }
        }
      }
      double[] t = s.compileMs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double p50 = t.length == 0 ? Double.NaN : t[t.length / 2];
      double p99 = t.length == 0 ? Double.NaN : t[Math.min(t.length - 1, (int) Math.ceil(t.length * 0.99) - 1)];
      int wrong = s.invalidTotal - s.invalidRejected;
      System.out.printf(Locale.ROOT, "| %s | %d | %.2f | %d/%d | %d/%d | %d | %.1f | %.1f | %.1f%% |%n", name, s.schemas,
          (double) s.compiled / s.schemas, s.validAccepted, s.validTotal, s.invalidRejected, s.invalidTotal, wrong, p50, p99,
          100.0 * s.forcedBytes / Math.max(1, s.totalBytes));
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
      ObjectNode reasons = row.putObject("notCompiledBecause");
      s.reasons.forEach(reasons::put);
    }
    Path out = Path.of(args.length > 0 ? args[0] : "bench-results/jsonschemabench.json");
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    m.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), report);
    System.out.println("wrote " + out);
  }

  /**
   * {@code value} with object keys in the order of the schema's {@code properties} (following
   * local {@code $ref}s, {@code allOf} and the first {@code anyOf}/{@code oneOf} branch that lists
   * properties), recursively; keys the schema does not list keep their order after the listed ones.
   */
  static JsonNode schemaOrder(JsonNode value, JsonNode schema, JsonNode root, int depth) {
    if (schema == null || !schema.isObject() || depth > 64) {
      return value;
    }
    if (schema.has("$ref") && schema.get("$ref").asText().startsWith("#")) {
      JsonNode target = root.at(schema.get("$ref").asText().substring(1));
      return schemaOrder(value, target.isMissingNode() ? null : target, root, depth + 1);
    }
    if (value.isObject()) {
      java.util.LinkedHashMap<String, JsonNode> props = new java.util.LinkedHashMap<>();
      collectProperties(schema, root, props, 0);
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (java.util.Map.Entry<String, JsonNode> e : props.entrySet()) {
        if (value.has(e.getKey())) {
          out.set(e.getKey(), schemaOrder(value.get(e.getKey()), e.getValue(), root, depth + 1));
        }
      }
      value.fields().forEachRemaining(e -> {
        if (!out.has(e.getKey())) {
          out.set(e.getKey(), schemaOrder(e.getValue(), schema.path("additionalProperties"), root, depth + 1));
        }
      });
      return out;
    }
    if (value.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (int i = 0; i < value.size(); i++) {
        JsonNode itemSchema = schema.has("prefixItems") && i < schema.get("prefixItems").size() ? schema.get("prefixItems").get(i)
            : schema.path("items").isArray() ? schema.get("items").get(Math.min(i, schema.get("items").size() - 1))
            : schema.get("items");
        out.add(schemaOrder(value.get(i), itemSchema, root, depth + 1));
      }
      return out;
    }
    return value;
  }

  private static void collectProperties(JsonNode schema, JsonNode root, java.util.Map<String, JsonNode> out, int depth) {
    if (schema == null || !schema.isObject() || depth > 16) {
      return;
    }
    if (schema.has("$ref") && schema.get("$ref").asText().startsWith("#")) {
      collectProperties(root.at(schema.get("$ref").asText().substring(1)), root, out, depth + 1);
    }
    schema.path("properties").fields().forEachRemaining(e -> out.putIfAbsent(e.getKey(), e.getValue()));
    schema.path("allOf").forEach(b -> collectProperties(b, root, out, depth + 1));
    for (String k : new String[] {"anyOf", "oneOf"}) {
      for (JsonNode b : schema.path(k)) {
        if (b.has("properties") || b.has("$ref")) {
          collectProperties(b, root, out, depth + 1);
          break;
        }
      }
    }
  }

  /** Counts the instance's bytes that jump edges cover when it is walked through the FSM. */
  static void forced(CompressedFsm fsm, byte[] inst, Subset s) {
    Dfa dfa = fsm.dfa();
    int state = dfa.initialState();
    int i = 0;
    while (i < inst.length) {
      byte[] jump = fsm.jumpBytes(state);
      if (jump.length > 0 && i + jump.length <= inst.length
          && Arrays.equals(jump, 0, jump.length, inst, i, i + jump.length)) {
        s.forcedBytes += jump.length;
        i += jump.length;
        state = fsm.jumpTarget(state);
        continue;
      }
      state = dfa.step(state, inst[i]);
      i++;
    }
    s.totalBytes += inst.length;
  }
}
