package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.ConstraintException;
import dev.leap.testkit.Shared;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Recursion and free-form values as grammar rules ({@link RecursiveRules}), forced on every schema
 * that has either ({@link JsonSchema#compileAsRules}), checked on real schemas and labelled
 * instances against the unrolled DFA of the same schema: no invalid instance is accepted, and every
 * valid instance the DFA accepts the grammar accepts too (rules are exact where unrolling cuts, so
 * the grammar's language contains the DFA's). Corpora: the JSON Schema Test Suite (draft 2020-12,
 * every group) and the recursive subsets of JSONSchemaBench (Washington Post, Kubernetes, GitHub
 * hard and medium; a seeded sample of the GitHub ones).
 */
class RecursiveRulesCorpusTest {
  private static final ObjectMapper M = new ObjectMapper();

  static final class Tally {
    int grammars;
    int valid;
    int validAcceptedDfa;
    int validAccepted;
    int invalid;
  }

  /** Checks one schema's instances; returns false where the schema does not become a grammar. */
  static boolean check(
      String name,
      String schema,
      JsonNode tests,
      JsonNode schemaNode,
      Tally t,
      List<String> wrong,
      List<String> lost)
      throws IOException {
    JsonSchema.Compiled rules;
    try {
      rules = JsonSchema.compileAsRules(schema, JsonSchemaOptions.defaults());
    } catch (ConstraintException | StackOverflowError e) {
      return false;
    }
    if (rules.grammar().isEmpty()) {
      return false;
    }
    Predicate<byte[]> dfa;
    try {
      dfa = CompiledMatch.of(JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults()));
    } catch (ConstraintException | StackOverflowError e) {
      dfa = text -> false;
    }
    Predicate<byte[]> grammar = CompiledMatch.of(rules);
    t.grammars++;
    for (JsonNode test : tests) {
      byte[] asGiven = M.writeValueAsString(test.get("data")).getBytes(StandardCharsets.UTF_8);
      byte[] ordered =
          M.writeValueAsString(KeyOrder.schemaOrder(test.get("data"), schemaNode))
              .getBytes(StandardCharsets.UTF_8);
      boolean byGrammar = grammar.test(asGiven) || grammar.test(ordered);
      boolean byDfa = dfa.test(asGiven) || dfa.test(ordered);
      String what = name + ": " + new String(asGiven, StandardCharsets.UTF_8);
      if (test.get("valid").asBoolean()) {
        t.valid++;
        t.validAccepted += byGrammar ? 1 : 0;
        t.validAcceptedDfa += byDfa ? 1 : 0;
        if (byDfa && !byGrammar) {
          lost.add(what);
        }
      } else {
        t.invalid++;
        if (byGrammar) {
          wrong.add(what);
        }
      }
    }
    return true;
  }

  @Test
  void testSuiteAsRules() throws IOException {
    Path dir = Shared.require("corpora/json-schema-test-suite/draft2020-12");
    Map<String, Tally> byKeyword = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    List<Path> files;
    try (var s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    for (Path f : files) {
      String keyword = f.getFileName().toString().replace(".json", "");
      int i = 0;
      for (JsonNode group : M.readTree(f.toFile())) {
        Tally t = byKeyword.computeIfAbsent(keyword, k -> new Tally());
        check(
            keyword + "/" + i++,
            group.get("schema").toString(),
            group.get("tests"),
            group.get("schema"),
            t,
            wrong,
            lost);
      }
    }
    print(
        "JSON Schema Test Suite draft 2020-12, recursion and free-form values as rules", byKeyword);
    assertEquals(List.of(), wrong, "invalid instances accepted");
    assertEquals(List.of(), lost, "valid instances the DFA accepts but the grammar does not");
    assertTrue(
        byKeyword.values().stream().mapToInt(x -> x.grammars).sum() > 30, "too few grammars");
  }

  @Test
  void recursiveJsonSchemaBenchSubsetsAsRules() throws IOException {
    Path dir = Shared.require("corpora/jsonschemabench");
    Map<String, Tally> bySubset = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(17L);
    for (String subset :
        new String[] {"WashingtonPost", "Kubernetes", "Github_hard", "Github_medium"}) {
      int oneIn = subset.startsWith("Github") ? 10 : 4;
      Tally t = bySubset.computeIfAbsent(subset, k -> new Tally());
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(
                  new GZIPInputStream(Files.newInputStream(dir.resolve(subset + ".jsonl.gz"))),
                  StandardCharsets.UTF_8))) {
        String line;
        int n = 0;
        while ((line = in.readLine()) != null) {
          n++;
          if (rnd.nextInt(oneIn) != 0 || line.length() > 40_000) {
            continue; // a sample; documents over 40 KB take seconds each (the full run is
            // SchemaCoverage's)
          }
          JsonNode rec = M.readTree(line);
          check(
              subset + "/" + n,
              rec.get("schema").toString(),
              rec.path("tests"),
              rec.get("schema"),
              t,
              wrong,
              lost);
        }
      }
    }
    print("JSONSchemaBench samples, recursion and free-form values as rules", bySubset);
    assertEquals(List.of(), wrong, "invalid instances accepted");
    assertEquals(List.of(), lost, "valid instances the DFA accepts but the grammar does not");
  }

  private static void print(String title, Map<String, Tally> rows) {
    StringBuilder sb =
        new StringBuilder(
            title + " (grammars, valid accepted by DFA -> by grammar / valid, invalid rejected)\n");
    rows.forEach(
        (k, t) -> {
          if (t.grammars > 0) {
            sb.append(
                String.format(
                    "  %-24s %4d  %4d -> %4d / %4d  %4d%n",
                    k, t.grammars, t.validAcceptedDfa, t.validAccepted, t.valid, t.invalid));
          }
        });
    System.out.print(sb);
  }
}
