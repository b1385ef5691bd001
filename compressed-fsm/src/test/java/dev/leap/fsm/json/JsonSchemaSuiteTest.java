package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.testkit.Shared;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JSON Schema Test Suite (draft 2020-12, required tests): each group's schema compiled with the
 * defaults (compact JSON), each instance serialized compactly with its keys in its own order and in
 * the order Leap generates them ({@link KeyOrder}). A valid instance counts as accepted if either
 * is; an invalid one as wrongly accepted if either is (asserted never to happen).
 *
 * <p>Two readings. {@link #testSuiteDraft2020}: a group is <em>run</em> when its schema compiles
 * and <em>passes</em> when every instance's answer equals the suite's; valid instances that Leap's
 * generation rules exclude (members beyond {@code properties}, formats asserted, ...) make their
 * group fail and are counted. {@link #paperEraAsInJsonSchemaBench}: the suite as of the
 * JSONSchemaBench paper, scored by its rule (Figure 6): a test case passes if every valid instance
 * is accepted and every invalid one rejected, and a case whose schema does not compile passes only
 * if it has no valid instance; {@code format}, {@code refRemote} and {@code vocabulary} left out
 * (43 categories).
 */
class JsonSchemaSuiteTest {
  private static final ObjectMapper M = new ObjectMapper();

  static final class Tally {
    int groups;
    int run;
    int passed;
    int unsupported;
    int wronglyRejected;
    int paperPassed;
  }

  /**
   * Runs every group of every file in {@code dir}; wrongly accepted instances go to {@code
   * wrongAccepts}.
   */
  static Map<String, Tally> run(
      Path dir, Set<String> skip, List<String> wrongAccepts, List<String> rejectedValid)
      throws IOException {
    return run(
        dir,
        skip,
        wrongAccepts,
        rejectedValid,
        s -> JsonSchema.compileDetailed(s, JsonSchemaOptions.defaults()));
  }

  /** As above, each schema compiled by {@code compiler}. */
  static Map<String, Tally> run(
      Path dir,
      Set<String> skip,
      List<String> wrongAccepts,
      List<String> rejectedValid,
      java.util.function.Function<String, JsonSchema.Compiled> compiler)
      throws IOException {
    Map<String, Tally> byKeyword = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    for (Path f : files) {
      String keyword = f.getFileName().toString().replace(".json", "");
      if (skip.contains(keyword)) {
        continue;
      }
      Tally t = byKeyword.computeIfAbsent(keyword, k -> new Tally());
      for (JsonNode group : M.readTree(f.toFile())) {
        t.groups++;
        JsonNode schemaNode = group.get("schema");
        boolean anyValid = false;
        for (JsonNode test : group.get("tests")) {
          anyValid |= test.get("valid").asBoolean();
        }
        java.util.function.Predicate<byte[]> fsm;
        try {
          fsm = CompiledMatch.of(compiler.apply(schemaNode.toString()));
        } catch (EmptyLanguageException e) {
          fsm = null; // accepts nothing
        } catch (ConstraintException e) {
          t.unsupported++;
          t.paperPassed += anyValid ? 0 : 1;
          continue;
        }
        t.run++;
        boolean all = true;
        for (JsonNode test : group.get("tests")) {
          byte[] asGiven = M.writeValueAsString(test.get("data")).getBytes(StandardCharsets.UTF_8);
          byte[] ordered =
              M.writeValueAsString(KeyOrder.schemaOrder(test.get("data"), schemaNode))
                  .getBytes(StandardCharsets.UTF_8);
          boolean accepted = fsm != null && (fsm.test(asGiven) || fsm.test(ordered));
          boolean valid = test.get("valid").asBoolean();
          if (accepted != valid) {
            all = false;
            String what =
                keyword
                    + " / "
                    + group.get("description").asText()
                    + " / "
                    + test.get("description").asText()
                    + ": "
                    + new String(asGiven, StandardCharsets.UTF_8);
            if (accepted) {
              wrongAccepts.add(what);
            } else {
              t.wronglyRejected++;
              rejectedValid.add(what);
            }
          }
        }
        if (all) {
          t.passed++;
          t.paperPassed++;
        }
      }
    }
    return byKeyword;
  }

  /** Prints one row per key and a total, then the valid instances rejected; returns the total. */
  private static Tally printTable(
      String title, Map<String, Tally> rows, List<String> rejectedValid) {
    StringBuilder sb = new StringBuilder(title).append('\n');
    Tally total = new Tally();
    for (Map.Entry<String, Tally> e : rows.entrySet()) {
      Tally t = e.getValue();
      sb.append(
          String.format(
              "  %-22s %3d %3d %3d %3d %3d%n",
              e.getKey(), t.groups, t.run, t.passed, t.unsupported, t.wronglyRejected));
      total.groups += t.groups;
      total.run += t.run;
      total.passed += t.passed;
      total.unsupported += t.unsupported;
      total.wronglyRejected += t.wronglyRejected;
    }
    sb.append(
        String.format(
            "  %-22s %3d %3d %3d %3d %3d%n",
            "TOTAL",
            total.groups,
            total.run,
            total.passed,
            total.unsupported,
            total.wronglyRejected));
    sb.append("valid instances rejected:\n");
    rejectedValid.forEach(r -> sb.append("  ").append(r).append('\n'));
    System.out.print(sb);
    return total;
  }

  @Test
  void testSuiteDraft2020() throws IOException {
    Path dir = Shared.require("corpora/json-schema-test-suite/draft2020-12");
    List<String> wrongAccepts = new ArrayList<>();
    List<String> rejectedValid = new ArrayList<>();
    Map<String, Tally> byKeyword = run(dir, Set.of(), wrongAccepts, rejectedValid);
    Tally total =
        printTable(
            "JSON Schema Test Suite draft 2020-12 (keyword: groups, run, passed, rejected as "
                + "unsupported, valid instances rejected)",
            byKeyword,
            rejectedValid);
    assertEquals(List.of(), wrongAccepts, "invalid instances accepted");
    assertTrue(total.run > 150, "too few groups run: " + total.run);
  }

  /**
   * The suite's {@code optional/format} files: {@code format} asserted, as Leap reads it (each
   * format a subset of its strings, so valid strings outside the subset are rejected and counted).
   * No invalid string may be accepted.
   */
  @Test
  void optionalFormatsAsserted() throws IOException {
    Path dir = Shared.require("corpora/json-schema-test-suite/draft2020-12/optional/format");
    List<String> wrongAccepts = new ArrayList<>();
    List<String> rejectedValid = new ArrayList<>();
    Map<String, Tally> byFormat = run(dir, Set.of(), wrongAccepts, rejectedValid);
    Tally total =
        printTable(
            "JSON Schema Test Suite draft 2020-12 optional/format (format: groups, run, passed, "
                + "rejected as unsupported, valid instances rejected)",
            byFormat,
            rejectedValid);
    assertEquals(List.of(), wrongAccepts, "invalid instances accepted");
    assertTrue(total.run >= 19, "too few groups run: " + total.run);
  }

  @Test
  void paperEraAsInJsonSchemaBench() throws IOException {
    Path dir = Shared.require("corpora/json-schema-test-suite/draft2020-12-paper-era");
    List<String> wrongAccepts = new ArrayList<>();
    Map<String, Tally> byCategory =
        run(dir, Set.of("format", "refRemote", "vocabulary"), wrongAccepts, new ArrayList<>());
    StringBuilder sb =
        new StringBuilder(
            "JSON Schema Test Suite, paper era, JSONSchemaBench's rule (category: passed/cases)\n");
    int[] levels = new int[5]; // > 0, > 25%, > 50%, > 75%, 100%
    for (Map.Entry<String, Tally> e : byCategory.entrySet()) {
      Tally t = e.getValue();
      double f = (double) t.paperPassed / t.groups;
      sb.append(
          String.format(
              Locale.ROOT, "  %-24s %2d/%2d %.2f%n", e.getKey(), t.paperPassed, t.groups, f));
      levels[0] += f > 0 ? 1 : 0;
      levels[1] += f > 0.25 ? 1 : 0;
      levels[2] += f > 0.5 ? 1 : 0;
      levels[3] += f > 0.75 ? 1 : 0;
      levels[4] += t.paperPassed == t.groups ? 1 : 0;
    }
    sb.append(
        String.format(
            "  categories: %d; above 0%%: %d, above 25%%: %d, above 50%%: %d, above 75%%: %d, 100%%: %d%n",
            byCategory.size(), levels[0], levels[1], levels[2], levels[3], levels[4]));
    System.out.print(sb);
    assertEquals(43, byCategory.size(), "the paper's 43 categories");
    assertEquals(List.of(), wrongAccepts, "invalid instances accepted");
  }
}
