package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.grammar.RuleAutomata;
import dev.leap.testkit.Shared;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Lean conversion ({@link Converter#lean}: a thin value around large automata left as a tree for
 * the enclosing automaton) with its {@link AutomatonCache} (each distinct tree compiled once)
 * against their twin, the conversion without either ({@code JsonSchema.compileDetailed(root,
 * options, false)}, the code as it was): the same result for every schema, compared in full (the
 * DFA's table state by state and byte by byte, or each grammar rule's automaton, what was ignored
 * and narrowed, or the error's class and message). On a seeded sample of JSONSchemaBench in both
 * option sets the fingerprint test uses, and on generated schemas of thin wrappers around large
 * members at state limits small enough to reach every fallback (a lean conversion that reaches a
 * limit is converted again without it).
 */
class JsonSchemaLeanTest {
  static final ObjectMapper M = new ObjectMapper();

  static final List<JsonSchemaOptions> OPTION_SETS =
      List.of(
          JsonSchemaOptions.defaults(),
          JsonSchemaOptions.defaults().withIndent(2).withLenient(true));

  /** What {@code compileDetailed} gave, in a form that compares by value. */
  static String outcome(JsonNode root, JsonSchemaOptions options, boolean lean) {
    StringBuilder sb = new StringBuilder();
    try {
      JsonSchema.Compiled c = JsonSchema.compileDetailed(root, options, lean);
      if (c.grammar().isPresent()) {
        sb.append("grammar ").append(c.grammar().get().compiledRules()).append('\n');
        for (Dfa d : RuleAutomata.of(c.grammar().get())) {
          table(d, sb);
        }
      } else {
        table(c.fsm().dfa(), sb);
      }
      sb.append("ignored ").append(c.ignored()).append("\nnarrowed ").append(c.narrowed());
    } catch (RuntimeException e) {
      return "fail " + e.getClass().getName() + ": " + e.getMessage();
    }
    return sb.toString();
  }

  /** The whole table: both sides are minimal and canonically numbered, so equal means equal. */
  static void table(Dfa d, StringBuilder sb) {
    sb.append("states ").append(d.stateCount()).append(" initial ").append(d.initialState());
    for (int s = 0; s < d.stateCount(); s++) {
      sb.append('\n').append(d.isAccepting(s) ? 'A' : 'N');
      for (int b = 0; b < 256; b++) {
        sb.append(' ').append(d.step(s, b));
      }
    }
    sb.append('\n');
  }

  static void assertSame(String schema, JsonSchemaOptions options, String what) throws Exception {
    JsonNode root = M.readTree(schema);
    String lean = outcome(root, options, true);
    String exact = outcome(root, options, false);
    assertEquals(exact.length(), lean.length(), what + ": lean and exact outcomes differ in size");
    assertTrue(exact.equals(lean), what + ": lean and exact outcomes differ");
  }

  @Test
  void jsonSchemaBenchSampleCompilesAsWithoutLeanTrees() throws Exception {
    Path dir = Shared.require("corpora/jsonschemabench");
    long seed = 2727L;
    SplittableRandom rnd = new SplittableRandom(seed);
    int compared = 0;
    for (String subset : SchemaBenchCorpus.SUBSETS) {
      Path f = dir.resolve(subset + ".jsonl.gz");
      if (!Files.exists(f)) {
        continue;
      }
      // Github_hard is where lean trees matter most (and its schemas take longest): one in 60
      // elsewhere; the whole corpus was compared once by a program (BENCHMARKS.md, issue 27).
      int oneIn = 60;
      try (BufferedReader in = SchemaBenchCorpus.open(f)) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (rnd.nextInt(oneIn) != 0) {
            continue;
          }
          JsonNode rec = M.readTree(line);
          String schema = rec.get("schema").toString();
          for (int o = 0; o < OPTION_SETS.size(); o++) {
            assertSame(
                schema,
                OPTION_SETS.get(o),
                subset
                    + "/"
                    + rec.path("file").asText()
                    + " options "
                    + o
                    + " (seed "
                    + seed
                    + ")");
            compared++;
          }
        }
      }
    }
    assertTrue(compared > 250, "compared " + compared);
  }

  /**
   * Generated schemas: definitions nested in thin wrappers (an object with one member, {@code
   * anyOf} with null, arrays), around members large enough to be automata (enums, patterns with
   * lengths, which are intersections, enums beside other keywords), used several times, under state
   * limits from small to the default.
   */
  @Test
  void thinWrappersCompileAsWithoutLeanTrees() throws Exception {
    long seed = 2728L;
    SplittableRandom r = new SplittableRandom(seed);
    int[] limits = {150, 400, 1_000, 3_000, 100_000};
    for (int round = 0; round < 200; round++) {
      String schema = wrapped(r, 3 + r.nextInt(3));
      if (r.nextInt(3) == 0) {
        // Recursion around it: past the state limit, grammar rules (compact) or narrowing.
        schema =
            "{\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"v\":"
                + schema
                + ",\"next\":{\"$ref\":\"#/$defs/n\"}},\"required\":[\"v\"]}},"
                + "\"$ref\":\"#/$defs/n\"}";
      }
      JsonSchemaOptions base = OPTION_SETS.get(r.nextInt(OPTION_SETS.size()));
      int limit = limits[r.nextInt(limits.length)];
      assertSame(
          schema,
          base.withMaxDfaStates(limit),
          "round " + round + " limit " + limit + " (seed " + seed + "): " + schema);
    }
  }

  private static String wrapped(SplittableRandom r, int depth) {
    if (depth == 0) {
      return switch (r.nextInt(4)) {
        case 0 -> enumOf(r, 20 + r.nextInt(40));
        case 1 ->
            "{\"type\":\"string\",\"pattern\":\"^[a-z]+[0-9]{2}$\",\"minLength\":"
                + (3 + r.nextInt(4))
                + ",\"maxLength\":"
                + (12 + r.nextInt(20))
                + "}";
        case 2 -> "{\"type\":\"string\",\"maxLength\":5," + enumOf(r, 30).substring(1);
        default ->
            "{\"type\":\"object\",\"properties\":{\"a\":"
                + enumOf(r, 10)
                + ",\"b\":{\"type\":\"integer\",\"minimum\":-5,\"maximum\":"
                + (100 + r.nextInt(10_000))
                + "},\"c\":{\"type\":\"boolean\"}},\"required\":[\"a\"]}";
      };
    }
    String inner = wrapped(r, depth - 1);
    return switch (r.nextInt(5)) {
      case 0 -> "{\"type\":\"object\",\"properties\":{\"v\":" + inner + "},\"required\":[\"v\"]}";
      case 1 -> "{\"anyOf\":[" + inner + ",{\"type\":\"null\"}]}";
      case 2 -> "{\"type\":\"array\",\"items\":" + inner + ",\"maxItems\":" + r.nextInt(4) + "}";
      case 3 ->
          "{\"type\":\"object\",\"properties\":{\"x\":"
              + inner
              + ",\"y\":"
              + inner
              + ",\"z\":{\"type\":\"string\"}}}";
      default ->
          "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\"},\"w\":"
              + inner
              + "},\"additionalProperties\":"
              + (r.nextBoolean() ? "true" : inner)
              + "}";
    };
  }

  /**
   * The rule that leaves the lean attempt out ({@link JsonSchema#skipsLean}: many recursive
   * reference sites): its count on a hand-written schema, and the result against the twin on the
   * GitHub Hard schemas it applies to (a seeded sixth of them) and on generated recursive schemas
   * with from 1 to 40 sites, under state limits that reach every outcome (DFA, rules, error).
   */
  @Test
  void schemasWithManyRecursiveSitesCompileAsTheTwin() throws Exception {
    String three =
        "{\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"},"
            + "\"b\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/n\"}},"
            + "\"c\":{\"$ref\":\"#/$defs/leaf\"}}},\"leaf\":{\"type\":\"string\"}},"
            + "\"$ref\":\"#/$defs/n\"}";
    JsonNode root = M.readTree(three);
    JsonSchemaOptions compact = JsonSchemaOptions.defaults();
    assertEquals(
        3,
        Converter.lean(root, compact, new AutomatonCache())
            .references
            .recursiveReferenceSites(root),
        "the root's $ref and the two inside n; not the one to leaf");

    SplittableRandom r = new SplittableRandom(2728L);
    int skipped = 0;
    for (int k = 0; k < 24; k++) {
      int sites = 1 + r.nextInt(40);
      StringBuilder props = new StringBuilder();
      for (int i = 0; i < sites - 1; i++) {
        props.append(i == 0 ? "" : ",").append("\"p").append(i).append("\":");
        props.append(
            r.nextBoolean()
                ? "{\"$ref\":\"#/$defs/n\"}"
                : "{\"type\":\"array\",\"maxItems\":2,\"items\":{\"$ref\":\"#/$defs/n\"}}");
      }
      String schema =
          "{\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"id\":"
              + enumOf(r, 1 + r.nextInt(20))
              + (sites > 1 ? "," + props : "")
              + "}}},\"$ref\":\"#/$defs/n\"}";
      int limit = new int[] {300, 3_000, 100_000}[r.nextInt(3)];
      JsonSchemaOptions o = compact.withMaxDfaStates(limit);
      JsonNode g = M.readTree(schema);
      boolean skips = JsonSchema.skipsLean(Converter.lean(g, o, new AutomatonCache()), g, o);
      assertEquals(sites >= JsonSchema.LEAN_MAX_RECURSIVE_SITES, skips, schema);
      skipped += skips ? 1 : 0;
      assertSame(schema, o, "generated, " + sites + " sites, limit " + limit);
    }
    assertTrue(skipped > 0, "the rule applied to none");

    Path f = Shared.require("corpora/jsonschemabench").resolve("Github_hard.jsonl.gz");
    SplittableRandom pick = new SplittableRandom(2729L);
    int compared = 0;
    try (BufferedReader in = SchemaBenchCorpus.open(f)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonNode rec = M.readTree(line);
        JsonNode schema = rec.get("schema");
        if (!JsonSchema.skipsLean(
                Converter.lean(schema, compact, new AutomatonCache()), schema, compact)
            || pick.nextInt(6) != 0) {
          continue;
        }
        assertSame(schema.toString(), compact, "Github_hard/" + rec.path("file").asText());
        compared++;
      }
    }
    assertTrue(compared >= 10, "compared " + compared);
  }

  private static String enumOf(SplittableRandom r, int n) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add("\"v" + Integer.toString(r.nextInt(1 << 20), 36) + "\"");
    }
    return "{\"enum\":[" + String.join(",", values) + "]}";
  }
}
