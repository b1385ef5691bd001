package dev.leap.bench.xgrammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.bench.BenchData;
import dev.leap.fsm.json.KeyOrder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * The cases {@link XGrammarSideBySide} measures and the warm-up cases it runs first: the example
 * grammars with their valid and invalid texts, the built-in JSON grammar, and a seeded sample of
 * every JSONSchemaBench subset with its labelled instances (written compactly in schema order).
 * Deterministic: the same arguments give the same cases; the warm-up never shares a schema (by text
 * or file name) with the measured sample ({@code XGrammarSampleTest}).
 */
final class CaseSample {
  private CaseSample() {}

  static final String[] GRAMMARS = {"arithmetic", "json", "sql-select", "tool-call"};

  /**
   * Texts for the example grammars (the ones {@code GrammarExamplesTest} checks): valid, then
   * invalid.
   */
  static final Map<String, List<String[]>> GRAMMAR_TEXTS =
      Map.of(
          "arithmetic",
              List.of(
                  new String[] {"valid", "12.5 * (3 - -4)"},
                  new String[] {"valid", "((((7))))+-(-(1))/2"},
                  new String[] {"invalid", "1  + 2"},
                  new String[] {"invalid", "(1"}),
          "json",
              List.of(
                  new String[] {"valid", "{\"a\":[1,{\"b\":null}],\"c\":\"é\"}"},
                  new String[] {"valid", "[[[[[]]]]]"},
                  new String[] {"invalid", "[1,]"},
                  new String[] {"invalid", "01"}),
          "sql-select",
              List.of(
                  new String[] {
                    "valid", "SELECT a, b AS c FROM t WHERE a = 1 AND (b < 'x''y' OR c IS NULL);"
                  },
                  new String[] {
                    "valid",
                    "SELECT COUNT(*) FROM t x INNER JOIN u y ON x.id = y.id WHERE x.k IN (SELECT k FROM v WHERE"
                        + " NOT k = 3) GROUP BY x.k ORDER BY x.k DESC LIMIT 5"
                  },
                  new String[] {"invalid", "SELECT FROM t"},
                  new String[] {"invalid", "SELECT * FROM t LIMIT x"}),
          "tool-call",
              List.of(
                  new String[] {
                    "valid",
                    "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>"
                  },
                  new String[] {
                    "valid",
                    "<tool_call>\n{\"name\":\"send_email\",\"arguments\":{}}\n</tool_call>\n<tool_call>\n"
                        + "{\"name\":\"search_web\",\"arguments\":{\"q\":[1,true,{\"x\":-0.5}]}}\n</tool_call>"
                  },
                  new String[] {
                    "invalid", "<tool_call>\n{\"name\":\"rm_rf\",\"arguments\":{}}\n</tool_call>"
                  },
                  new String[] {
                    "invalid",
                    "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":[]}\n</tool_call>"
                  }));

  /** Warm-up grammars, neither of them measured: one regular, one recursive. */
  static final String[][] WARM_GRAMMARS = {
    {
      "warm-list.gbnf",
      "root ::= \"[\" item (\",\" item)* \"]\"\nitem ::= [a-z]+ | [0-9]+ (\".\" [0-9]+)?\n",
      "[ab,12.5,c]",
      "[ab,]"
    },
    {
      "warm-sexpr.gbnf",
      "root ::= list\nlist ::= \"(\" (atom (\" \" atom)*)? \")\"\natom ::= [a-z]+ | list\n",
      "(a (b c) ())",
      "(a b"
    }
  };

  /** Largest schema text drawn for the warm-up (its cases must not reach the limit). */
  static final int WARM_MAX_SCHEMA_CHARS = 8_000;

  /**
   * The warm-up cases, disjoint from the measured ones: per subset the next {@code warmPerSubset}
   * schemas of the same seeded shuffle after the {@code perSubset} measured ones (skipping any
   * whose text or file name equals a measured schema's, as the corpus holds a few names twice, or
   * whose text passes {@link #WARM_MAX_SCHEMA_CHARS}, or that has no instance to walk), then the
   * two {@link #WARM_GRAMMARS}.
   */
  static List<Case> warmUp(
      ObjectMapper m,
      List<Case> measured,
      int perSubset,
      int warmPerSubset,
      int validPer,
      int invalidPer)
      throws IOException {
    List<Case> warm = new ArrayList<>();
    if (warmPerSubset <= 0) {
      return warm;
    }
    Set<String> seen = new HashSet<>();
    for (Case c : measured) {
      seen.add(c.source());
      seen.add(c.id());
    }
    Path dir = BenchData.file("corpora/jsonschemabench");
    for (String subset : BenchData.SCHEMA_BENCH_SUBSETS) {
      Path file = dir.resolve(subset + ".jsonl.gz");
      if (!Files.exists(file)) {
        continue;
      }
      List<String> lines = shuffled(file, subset);
      int taken = 0;
      for (int k = perSubset; k < lines.size() && taken < warmPerSubset; k++) {
        JsonNode rec = m.readTree(lines.get(k));
        JsonNode schema = rec.get("schema");
        String text = schema.toString();
        String id = subset + "/" + rec.path("file").asText();
        if (text.length() > WARM_MAX_SCHEMA_CHARS || seen.contains(id) || !seen.add(text)) {
          continue;
        }
        List<Instance> inst = instances(m, rec, schema, validPer, invalidPer, null);
        if (inst.isEmpty()) {
          continue;
        }
        warm.add(new Case("warm-up/" + id, "warm-up", "schema", text, inst));
        taken++;
      }
    }
    for (String[] g : WARM_GRAMMARS) {
      warm.add(
          new Case(
              g[0],
              "warm-up",
              "grammar",
              g[1],
              List.of(new Instance("valid", g[2]), new Instance("invalid", g[3]))));
    }
    return warm;
  }

  private static List<String> shuffled(Path file, String subset) throws IOException {
    List<String> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
    }
    Random rnd = new Random(27L * 1_000_003 + subset.hashCode());
    Collections.shuffle(lines, rnd);
    return lines;
  }

  /**
   * Up to {@code validPer} valid and {@code invalidPer} invalid labelled instances of one record,
   * written compactly in schema order; valid ones short enough also go to {@code jsonTexts} (up to
   * 12) when it is given.
   */
  private static List<Instance> instances(
      ObjectMapper m,
      JsonNode rec,
      JsonNode schema,
      int validPer,
      int invalidPer,
      List<Instance> jsonTexts)
      throws IOException {
    List<Instance> inst = new ArrayList<>();
    int valid = 0;
    int invalid = 0;
    for (JsonNode test : rec.path("tests")) {
      boolean ok = test.path("valid").asBoolean();
      if (ok ? valid >= validPer : invalid >= invalidPer) {
        continue;
      }
      String text = m.writeValueAsString(KeyOrder.schemaOrder(test.get("data"), schema));
      inst.add(new Instance(ok ? "valid" : "invalid", text));
      if (ok) {
        valid++;
        if (jsonTexts != null && jsonTexts.size() < 12 && text.length() < 4000) {
          jsonTexts.add(new Instance("valid", text));
        }
      } else {
        invalid++;
      }
    }
    return inst;
  }

  /**
   * The cases: the grammars (read from {@code grammars}, the repository's {@code docs/grammars}),
   * then {@code perSubset} schemas per subset drawn with a fixed seed.
   */
  static List<Case> sample(
      ObjectMapper m, Path grammars, int perSubset, int validPer, int invalidPer)
      throws IOException {
    List<Case> cases = new ArrayList<>();
    for (String g : GRAMMARS) {
      List<Instance> inst = new ArrayList<>();
      for (String[] t : GRAMMAR_TEXTS.get(g)) {
        inst.add(new Instance(t[0], t[1]));
      }
      if (g.equals("json")) {
        cases.add(
            new Case("Grammar.json()", "JSON (Grammar.json / builtin)", "builtin-json", "", inst));
      } else {
        cases.add(
            new Case(
                g + ".gbnf",
                g + ".gbnf",
                "grammar",
                Files.readString(grammars.resolve(g + ".gbnf")),
                inst));
      }
    }
    Path dir = BenchData.file("corpora/jsonschemabench");
    List<Instance> jsonTexts = new ArrayList<>();
    for (String subset : BenchData.SCHEMA_BENCH_SUBSETS) {
      Path file = dir.resolve(subset + ".jsonl.gz");
      if (!Files.exists(file)) {
        continue;
      }
      List<String> lines = shuffled(file, subset);
      for (int k = 0; k < Math.min(perSubset, lines.size()); k++) {
        JsonNode rec = m.readTree(lines.get(k));
        JsonNode schema = rec.get("schema");
        List<Instance> inst = instances(m, rec, schema, validPer, invalidPer, jsonTexts);
        cases.add(
            new Case(
                subset + "/" + rec.path("file").asText(),
                subset,
                "schema",
                schema.toString(),
                inst));
      }
    }
    // Free-form JSON also walks real instances (any valid JSON value is in its language).
    Case json = cases.get(1);
    List<Instance> all = new ArrayList<>(json.instances());
    all.addAll(jsonTexts);
    cases.set(1, new Case(json.id(), json.group(), json.kind(), json.source(), all));
    return cases;
  }
}
