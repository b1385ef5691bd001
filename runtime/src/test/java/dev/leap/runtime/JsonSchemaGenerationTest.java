package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Constraint.jsonSchema end to end: outputs parse as JSON and keep the schema's shape. */
class JsonSchemaGenerationTest {

  static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{"
          + "\"name\":{\"type\":\"string\",\"maxLength\":10},"
          + "\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":120},"
          + "\"score\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"
          + "\"tags\":{\"type\":\"array\",\"items\":{\"enum\":[\"a\",\"b\",\"c\"]},\"maxItems\":3},"
          + "\"born\":{\"type\":\"string\",\"format\":\"date\"}},"
          + "\"required\":[\"name\",\"age\",\"score\"]}";

  @Test
  void generatedJsonFitsTheSchema() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    ObjectMapper m = new ObjectMapper();
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      List<GenerationRequest> reqs = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        int indent = i % 3 == 0 ? 2 : -1;
        reqs.add(
            GenerationRequest.of(
                "Person " + i + ":",
                Constraint.jsonSchema(SCHEMA, indent),
                SamplingParams.builder()
                    .maxTokens(200)
                    .temperature(i % 2 == 0 ? 0 : 0.8)
                    .seed(i)
                    .build()));
      }
      for (Generation g : rt.generateAll(reqs)) {
        assertFalse(g.isError(), g.toString());
        if (!g.isComplete()) {
          assertEquals(FinishReason.LENGTH, g.finishReason());
          continue;
        }
        JsonNode v = m.readTree(g.text());
        assertTrue(
            v.get("name").isTextual()
                && v.get("name").asText().codePointCount(0, v.get("name").asText().length()) <= 10,
            g.text());
        assertTrue(
            v.get("age").isInt() && v.get("age").asInt() >= 0 && v.get("age").asInt() <= 120,
            g.text());
        assertTrue(
            v.get("score").isNumber()
                && v.get("score").asDouble() >= 0
                && v.get("score").asDouble() <= 1,
            g.text());
        assertTrue(g.stats().jumps() > 0, "the keys were jumped: " + g.stats());
      }
      Generation bad =
          rt.generate(
              "x",
              Constraint.jsonSchema("{\"type\":\"object\",\"propertyNames\":{\"maxLength\":3}}"));
      assertTrue(
          bad.isError() && bad.error().contains("propertyNames") && bad.error().contains("#"),
          bad.error());
      // Lenient: a schema with propertyNames runs, the keyword ignored (logged), the rest still
      // enforced.
      String lenientSchema =
          "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1,"
              + "\"maximum\":9}},\"required\":[\"id\"],\"propertyNames\":{\"maxLength\":3}}";
      Generation ok = rt.generate("x", Constraint.jsonSchema(lenientSchema, -1, true));
      assertFalse(ok.isError(), ok.toString());
      assertTrue(ok.text().matches("\\{\"id\":[1-9]\\}"), ok.text());
      assertTrue(rt.generate("x", Constraint.jsonSchema(lenientSchema, -1, false)).isError());
    }
  }
}
