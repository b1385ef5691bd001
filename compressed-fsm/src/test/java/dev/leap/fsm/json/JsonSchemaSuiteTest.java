package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.fsm.Shared;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JSON Schema Test Suite (draft 2020-12, required tests): each group's schema compiled, each
 * instance serialized compactly (Jackson, keys in the instance's order), accepted by the DFA or
 * not. A group is run when its schema compiles, and passes when every instance's answer equals the
 * suite's. Invalid instances are never accepted (asserted); valid instances that Leap's generation
 * rules exclude (members beyond {@code properties}, key order, non-canonical string escapes, ...)
 * make their group fail and are counted.
 */
class JsonSchemaSuiteTest {

  static final class Tally {
    int groups;
    int run;
    int passed;
    int unsupported;
    int wronglyRejected;
  }

  @Test
  void testSuiteDraft2020() throws IOException {
    Path dir = Shared.require("corpora/json-schema-test-suite/draft2020-12");
    ObjectMapper m = new ObjectMapper();
    Map<String, Tally> byKeyword = new TreeMap<>();
    List<String> wrongAccepts = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    for (Path f : files) {
      String keyword = f.getFileName().toString().replace(".json", "");
      Tally t = byKeyword.computeIfAbsent(keyword, k -> new Tally());
      for (JsonNode group : m.readTree(f.toFile())) {
        t.groups++;
        String schema = group.get("schema").toString();
        CompressedFsm fsm = null;
        try {
          fsm = JsonSchema.compile(schema, JsonSchemaOptions.defaults());
        } catch (EmptyLanguageException e) {
          fsm = null; // accepts nothing
        } catch (ConstraintException e) {
          t.unsupported++;
          continue;
        }
        t.run++;
        boolean all = true;
        for (JsonNode test : group.get("tests")) {
          byte[] instance = m.writeValueAsString(test.get("data")).getBytes(StandardCharsets.UTF_8);
          boolean accepted = fsm != null && fsm.dfa().matches(instance);
          boolean valid = test.get("valid").asBoolean();
          if (accepted != valid) {
            all = false;
            if (accepted) {
              wrongAccepts.add(keyword + " / " + group.get("description").asText() + " / " + test.get("description").asText()
                  + ": " + new String(instance, StandardCharsets.UTF_8));
            } else {
              t.wronglyRejected++;
            }
          }
        }
        if (all) {
          t.passed++;
        }
      }
    }
    StringBuilder sb = new StringBuilder("JSON Schema Test Suite draft 2020-12 (keyword: groups, run, passed, rejected as unsupported, valid instances rejected)\n");
    Tally total = new Tally();
    for (Map.Entry<String, Tally> e : byKeyword.entrySet()) {
      Tally t = e.getValue();
      sb.append(String.format("  %-22s %3d %3d %3d %3d %3d%n", e.getKey(), t.groups, t.run, t.passed, t.unsupported, t.wronglyRejected));
      total.groups += t.groups;
      total.run += t.run;
      total.passed += t.passed;
      total.unsupported += t.unsupported;
      total.wronglyRejected += t.wronglyRejected;
    }
    sb.append(String.format("  %-22s %3d %3d %3d %3d %3d%n", "TOTAL", total.groups, total.run, total.passed, total.unsupported,
        total.wronglyRejected));
    System.out.print(sb);
    assertEquals(List.of(), wrongAccepts, "invalid instances accepted");
    assertTrue(total.run > 100, "too few groups run: " + total.run);
  }
}
