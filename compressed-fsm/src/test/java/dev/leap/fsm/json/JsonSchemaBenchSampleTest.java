package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.ConstraintException;
import dev.leap.testkit.Shared;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A seeded sample of JSONSchemaBench (every subset): no invalid instance is ever accepted by a
 * compiled schema, and most valid ones are. The full corpus is a program ({@code
 * dev.leap.bench.jsonschema.SchemaCoverage}), not a test.
 */
class JsonSchemaBenchSampleTest {

  @Test
  void sampledSchemasNeverAcceptInvalidInstances() throws Exception {
    Path dir = Shared.require("corpora/jsonschemabench");
    long seed = 99L;
    SplittableRandom rnd = new SplittableRandom(seed);
    ObjectMapper m = new ObjectMapper();
    int schemas = 0;
    int compiled = 0;
    int valid = 0;
    int validAccepted = 0;
    int invalid = 0;
    List<String> wrong = new ArrayList<>();
    for (String subset : SchemaBenchCorpus.SUBSETS) {
      Path f = dir.resolve(subset + ".jsonl.gz");
      if (!Files.exists(f)) {
        continue;
      }
      try (BufferedReader in = SchemaBenchCorpus.open(f)) {
        String line;
        while ((line = in.readLine()) != null) {
          if (rnd.nextInt(20) != 0) {
            continue; // about 5% of each subset
          }
          JsonNode rec = m.readTree(line);
          schemas++;
          java.util.function.Predicate<byte[]> fsm;
          try {
            fsm =
                CompiledMatch.of(
                    JsonSchema.compileDetailed(
                        rec.get("schema").toString(), JsonSchemaOptions.defaults()));
          } catch (ConstraintException | StackOverflowError e) {
            continue;
          }
          compiled++;
          for (JsonNode t : rec.path("tests")) {
            byte[] inst = m.writeValueAsString(t.get("data")).getBytes(StandardCharsets.UTF_8);
            boolean accepted = fsm.test(inst);
            if (t.get("valid").asBoolean()) {
              valid++;
              validAccepted += accepted ? 1 : 0;
            } else {
              invalid++;
              if (accepted) {
                wrong.add(
                    rec.get("file").asText() + ": " + new String(inst, StandardCharsets.UTF_8));
              }
            }
          }
        }
      }
    }
    System.out.printf(
        "JSONSchemaBench sample (seed %d): %d schemas, %d compiled, valid accepted %d/%d, invalid %d, wrongly accepted %d%n",
        seed, schemas, compiled, validAccepted, valid, invalid, wrong.size());
    assertEquals(List.of(), wrong, "invalid instances accepted");
    assertTrue(compiled > schemas / 2, compiled + " of " + schemas);
    assertTrue(validAccepted > valid * 3 / 4, validAccepted + " of " + valid);
  }
}
