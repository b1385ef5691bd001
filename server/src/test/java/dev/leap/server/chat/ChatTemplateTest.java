package dev.leap.server.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.testkit.Shared;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prompts rendered from the Llama 3 and Qwen3 templates of {@code ../shared/tokenizers/}, byte for
 * byte against goldens rendered by {@code @huggingface/jinja} (the reference renderer; see {@code
 * server/scripts/render-chat-goldens.mjs}) for the conversations of {@code cases.json}: plain
 * turns, whitespace, Unicode, thinking in history and {@code enable_thinking}, tools with {@code
 * tojson} and tool calls.
 */
class ChatTemplateTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode resource(String name) throws Exception {
    try (InputStream in = ChatTemplateTest.class.getResourceAsStream(name)) {
      return JSON.readTree(in);
    }
  }

  private static List<Map<String, Object>> list(JsonNode n) {
    return n == null
        ? null
        : JSON.convertValue(n, new TypeReference<List<Map<String, Object>>>() {});
  }

  @Test
  void rendersExactlyAsTheReference() throws Exception {
    JsonNode cases = resource("cases.json");
    JsonNode goldens = resource("goldens.json");
    Map<String, ChatTemplate> templates = new LinkedHashMap<>();
    for (String model : List.of("llama3", "qwen3")) {
      templates.put(model, ChatTemplate.fromModelDir(Shared.require("tokenizers/" + model)));
    }
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (JsonNode g : goldens) {
      JsonNode c = null;
      for (JsonNode x : cases) {
        if (x.get("name").asText().equals(g.get("name").asText())) {
          c = x;
        }
      }
      Map<String, Object> kwargs =
          c.has("kwargs")
              ? JSON.convertValue(c.get("kwargs"), new TypeReference<Map<String, Object>>() {})
              : Map.of();
      String prompt =
          templates
              .get(g.get("model").asText())
              .render(
                  list(c.get("messages")),
                  list(c.get("tools")),
                  c.path("add_generation_prompt").asBoolean(true),
                  kwargs);
      checked++;
      if (!prompt.equals(g.get("prompt").asText())) {
        failures.add(
            g.get("model").asText()
                + " / "
                + g.get("name").asText()
                + ":\n--- expected\n"
                + g.get("prompt").asText()
                + "\n--- got\n"
                + prompt);
      }
    }
    assertEquals(20, checked);
    assertTrue(
        failures.isEmpty(),
        failures.size() + " of " + checked + " differ:\n" + String.join("\n\n", failures));
  }

  @Test
  void raiseExceptionIsAnError() {
    ChatTemplate t =
        ChatTemplate.of(
            "{% if messages[0].role != 'user' %}{{ raise_exception('first message must be from the user') }}{% endif %}ok",
            "", "");
    ChatTemplateException e =
        assertThrows(
            ChatTemplateException.class,
            () ->
                t.render(
                    List.of(Map.of("role", "assistant", "content", "x")), null, true, Map.of()));
    assertTrue(e.getMessage().contains("first message must be from the user"), e.getMessage());
    assertEquals(
        "ok", t.render(List.of(Map.of("role", "user", "content", "x")), null, true, Map.of()));
  }

  @Test
  void pythonJsonMatchesJsonDumps() {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("b", List.of(1, 2.5, true));
    v.put("a", "é\n\u0001\"");
    v.put("e", Map.of());
    // json.dumps(v, ensure_ascii=False) and json.dumps(v, ensure_ascii=False, indent=2) in Python
    // 3.
    assertEquals(
        "{\"b\": [1, 2.5, true], \"a\": \"é\\n\\u0001\\\"\", \"e\": {}}", PythonJson.dumps(v, -1));
    assertEquals(
        "{\n  \"b\": [\n    1,\n    2.5,\n    true\n  ],\n  \"a\": \"é\\n\\u0001\\\"\",\n  \"e\": {}\n}",
        PythonJson.dumps(v, 2));
    assertEquals("1e+20", PythonJson.pythonFloat(1e20));
    assertEquals("1.0", PythonJson.pythonFloat(1.0));
    assertEquals("0.0001", PythonJson.pythonFloat(1e-4));
    assertEquals("1e-05", PythonJson.pythonFloat(1e-5));
  }

  @Test
  void missingTemplateIsAClearError(@TempDir Path dir) {
    ChatTemplateException e =
        assertThrows(ChatTemplateException.class, () -> ChatTemplate.fromModelDir(dir));
    assertTrue(e.getMessage().contains("tokenizer_config.json"), e.getMessage());
  }
}
