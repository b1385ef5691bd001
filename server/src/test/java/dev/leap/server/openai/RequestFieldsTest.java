package dev.leap.server.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.runtime.Constraint;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The constraint and sampling fields of OpenAI, vLLM and SGLang requests: what each reads to, and
 * each mistake's 400.
 */
class RequestFieldsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode body(String json) throws Exception {
    return JSON.readTree(json.replace('\'', '"'));
  }

  private static ApiError bad(String json) {
    return assertThrows(
        ApiError.class,
        () -> {
          JsonNode b = body(json);
          StructuredOutput.parse(b);
          GenerationOptions.parse(b, true, 100, 1000);
        });
  }

  @Test
  void constraintsFromEachDialect() throws Exception {
    assertEquals(Constraint.Kind.NONE, StructuredOutput.parse(body("{'prompt': 'x'}")).kind());
    assertEquals(
        Constraint.Kind.NONE,
        StructuredOutput.parse(body("{'response_format': {'type': 'text'}}")).kind());
    Constraint js =
        StructuredOutput.parse(
            body(
                "{'response_format': {'type': 'json_schema', 'json_schema': {'name': 'p', 'schema': {'type': 'object', 'properties': {'a': {'type': 'integer'}}}}}}"));
    assertEquals(Constraint.Kind.JSON_SCHEMA, js.kind());
    assertTrue(((Constraint.JsonSchema) js).schema().contains("\"integer\""));
    assertFalse(((Constraint.JsonSchema) js).lenient());
    assertTrue(
        ((Constraint.JsonSchema)
                StructuredOutput.parse(
                    body(
                        "{'response_format': {'type': 'json_schema', 'json_schema': {'name': 'p', 'strict': false, 'schema': {}}}}")))
            .lenient());
    assertEquals(
        Constraint.jsonObject(),
        StructuredOutput.parse(body("{'response_format': {'type': 'json_object'}}")));
    assertEquals(
        Constraint.grammar("root ::= [ab]+"),
        StructuredOutput.parse(body("{'structured_outputs': {'grammar': 'root ::= [ab]+'}}")));
    assertEquals(
        Constraint.Kind.GRAMMAR,
        StructuredOutput.parse(body("{'ebnf': 'root ::= [a-z]+'}")).kind());
    assertEquals(
        Constraint.jsonObject(),
        StructuredOutput.parse(body("{'structured_outputs': {'json_object': true}}")));
    String tag =
        "{'structures': [{'begin': '<tool_call>', 'schema': {'type': 'object'}, 'end': '</tool_call>'}], "
            + "'triggers': ['<tool_call>']}";
    Constraint st =
        StructuredOutput.parse(
            body(
                "{'response_format': {'type': 'structural_tag', "
                    + tag.substring(1, tag.length() - 1)
                    + "}}"));
    assertEquals(Constraint.Kind.STRUCTURAL_TAG, st.kind());
    assertEquals(List.of("<tool_call>"), ((Constraint.StructuralTag) st).triggers());
    assertEquals("</tool_call>", ((Constraint.StructuralTag) st).tags().get(0).end());
    assertEquals(
        st,
        StructuredOutput.parse(body("{'structured_outputs': {'structural_tag': " + tag + "}}")));
    assertEquals(
        Constraint.regex("[ab]+"),
        StructuredOutput.parse(body("{'structured_outputs': {'regex': '[ab]+'}}")));
    assertEquals(
        Constraint.choice("yes", "no"),
        StructuredOutput.parse(body("{'structured_outputs': {'choice': ['yes', 'no']}}")));
    assertEquals(
        Constraint.Kind.JSON_SCHEMA,
        StructuredOutput.parse(body("{'structured_outputs': {'json': {'type': 'string'}}}"))
            .kind());
    assertEquals(Constraint.regex("a|b"), StructuredOutput.parse(body("{'regex': 'a|b'}")));
    assertEquals(
        Constraint.Kind.JSON_SCHEMA,
        StructuredOutput.parse(
                JSON.readTree("{\"json_schema\": \"{\\\"type\\\": \\\"string\\\"}\"}"))
            .kind());
  }

  @Test
  void constraintMistakesAre400sNamingTheField() {
    ApiError e = bad("{'guided_json': {'type': 'object'}}");
    assertEquals(400, e.status());
    assertEquals("guided_json", e.param());
    assertTrue(e.getMessage().contains("structured_outputs.json"), e.getMessage());
    assertEquals("guided_regex", bad("{'guided_regex': 'a'}").param());
    assertEquals(
        "regex", bad("{'response_format': {'type': 'json_object'}, 'regex': 'a'}").param());
    assertEquals(
        "structured_outputs.grammar",
        bad("{'structured_outputs': {'grammar': ['root ::= a']}}").param());
    assertEquals("ebnf", bad("{'regex': 'a', 'ebnf': 'root ::= [a-z]+'}").param());
    assertEquals(
        "response_format.triggers",
        bad("{'response_format': {'type': 'structural_tag', 'structures': "
                + "[{'begin': '<a>', 'schema': {}, 'end': '</a>'}]}}")
            .param());
    assertEquals(
        "response_format.format",
        bad("{'response_format': {'type': 'structural_tag', 'format': {}}}").param());
    assertEquals(
        "structured_outputs.json_object",
        bad("{'structured_outputs': {'json_object': false}}").param());
    assertEquals(
        "structured_outputs",
        bad("{'structured_outputs': {'regex': 'a', 'choice': ['b']}}").param());
    assertEquals("response_format.type", bad("{'response_format': {'type': 'xml'}}").param());
    assertEquals(
        "response_format.json_schema.schema",
        bad("{'response_format': {'type': 'json_schema', 'json_schema': {'name': 'x'}}}").param());
    assertEquals("response_format", bad("{'response_format': 'json'}").param());
    assertEquals("json_schema", bad("{'json_schema': '{not json'}").param());
    assertEquals(
        "structured_outputs.choice", bad("{'structured_outputs': {'choice': []}}").param());
  }

  @Test
  void samplingFields() throws Exception {
    GenerationOptions o =
        GenerationOptions.parse(
            body(
                "{'temperature': 0, 'top_p': 0.9, 'top_k': 5, 'seed': 7, 'max_tokens': 50, 'max_completion_tokens': 40, "
                    + "'stop': ['\\n', 'END'], 'n': 3, 'stream': true, 'stream_options': {'include_usage': true}, 'jump_forward': false}"),
            true,
            100,
            1000);
    assertEquals(0, o.sampling().temperature());
    assertEquals(0.9, o.sampling().topP());
    assertEquals(5, o.sampling().topK());
    assertEquals(7, o.sampling().seed());
    assertEquals(40, o.sampling().maxTokens(), "max_completion_tokens wins in chat");
    assertEquals(List.of("\n", "END"), o.sampling().stop());
    assertEquals(3, o.n());
    assertTrue(o.stream());
    assertTrue(o.includeUsage());
    assertEquals(Boolean.FALSE, o.jumpForward());
    GenerationOptions d = GenerationOptions.parse(body("{'stop': 'x'}"), false, 16, 1000);
    assertEquals(16, d.sampling().maxTokens(), "the legacy completions default");
    assertEquals(1.0, d.sampling().temperature(), "OpenAI's default temperature");
    assertEquals(List.of("x"), d.sampling().stop());
    assertNull(d.jumpForward());
    assertNotEquals(
        d.sampling().seed(),
        GenerationOptions.parse(body("{'stop': 'x'}"), false, 16, 1000).sampling().seed(),
        "without a seed, requests sample independently");
    assertEquals(
        50,
        GenerationOptions.parse(
                body("{'max_tokens': 50, 'max_completion_tokens': 40}"), false, 16, 1000)
            .sampling()
            .maxTokens(),
        "completions read max_tokens only");
  }

  @Test
  void samplingMistakesAre400sNamingTheField() {
    assertEquals("temperature", bad("{'temperature': 'hot'}").param());
    assertEquals("temperature", bad("{'temperature': 3}").param());
    assertEquals("top_p", bad("{'top_p': 0}").param());
    assertEquals("max_tokens", bad("{'max_tokens': 0}").param());
    assertEquals("max_tokens", bad("{'max_tokens': 5000}").param());
    assertEquals("max_tokens", bad("{'max_tokens': 1.5}").param());
    assertEquals("stop", bad("{'stop': ['a', 'b', 'c', 'd', 'e']}").param());
    assertEquals("stop", bad("{'stop': 5}").param());
    assertEquals("n", bad("{'n': 0}").param());
    assertEquals("stream_options", bad("{'stream_options': {'include_usage': true}}").param());
    assertEquals("logprobs", bad("{'logprobs': true}").param());
    assertEquals("presence_penalty", bad("{'presence_penalty': 0.5}").param());
  }

  @Test
  void errorBodyHasOpenAisShape() {
    ApiError e = ApiError.badRequest("stop", "bad stop");
    JsonNode b = e.body();
    assertEquals("bad stop", b.at("/error/message").asText());
    assertEquals("invalid_request_error", b.at("/error/type").asText());
    assertEquals("stop", b.at("/error/param").asText());
    assertTrue(b.at("/error/code").isNull());
    assertEquals(401, ApiError.unauthorized("no").status());
  }
}
