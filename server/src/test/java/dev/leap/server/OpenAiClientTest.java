package dev.leap.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonSchemaLocalValidation;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.StructuredChatCompletion;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionChoice;
import com.openai.models.completions.CompletionCreateParams;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.openai.Json;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server on a free loopback port, driven by the official OpenAI Java client (openai-java from
 * Maven Central) and by plain HTTP, on the trained demo model: structured output parsed into a
 * record, a completion constrained by a regex through vLLM's field, streamed chat and completions
 * reassembled (with the usage chunk), each kind of error as the client's typed exception, and a
 * client that goes away mid-stream cancelling its request.
 */
class OpenAiClientTest {
  static final String KEY = "test-key";
  static LeapRuntime runtime;
  static LeapServer server;
  static OpenAIClient client;
  static String base;

  /** A character sheet's house, as the demo model learned them. */
  enum House {
    Gryffindor,
    Slytherin,
    Ravenclaw,
    Hufflepuff
  }

  /** The structured output of the test: parsed by the client from the server's JSON. */
  record Wizard(String name, House house) {}

  @BeforeAll
  static void start() throws Exception {
    runtime = LeapRuntime.builder().setModelDir(DemoModel.ensure()).optKvCapacity(8192).build();
    server =
        new LeapServer(runtime, LeapServer.Options.defaults().withPort(0).withApiKey(KEY)).start();
    base = "http://127.0.0.1:" + server.port() + "/v1";
    client = OpenAIOkHttpClient.builder().baseUrl(base).apiKey(KEY).maxRetries(0).build();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  /** The phone number pattern the regex tests constrain to. */
  private static final String PHONE = "\\([0-9]{3}\\) [0-9]{3}-[0-9]{4}";

  /**
   * A greedy completion of at most 20 tokens after {@code "Phone: "}; callers add the constraint.
   */
  private CompletionCreateParams.Builder phoneRequest() {
    return CompletionCreateParams.builder()
        .model(server.modelName())
        .prompt("Phone: ")
        .maxTokens(20)
        .temperature(0.0);
  }

  @Test
  void structuredOutputParsedIntoARecord() {
    String prompt =
        "Hermione Granger is a character in Harry Potter. Please fill in the following information about this character.\n";
    StructuredChatCompletion<Wizard> c =
        client
            .chat()
            .completions()
            .create(
                ChatCompletionCreateParams.builder()
                    .model(server.modelName())
                    .addUserMessage(prompt)
                    .maxCompletionTokens(64)
                    .temperature(0.0)
                    .responseFormat(Wizard.class, JsonSchemaLocalValidation.YES)
                    .build());
    Wizard w = c.choices().get(0).message().content().orElseThrow();
    assertTrue(w.name() != null && w.house() != null, "parsed " + w);
    assertEquals("stop", c.choices().get(0).finishReason().asString());
  }

  @Test
  void regexThroughStructuredOutputsWithUsageAndLeapStats() {
    Completion c =
        client
            .completions()
            .create(
                phoneRequest()
                    .putAdditionalBodyProperty(
                        "structured_outputs", JsonValue.from(Map.of("regex", PHONE)))
                    .build());
    String text = c.choices().get(0).text();
    assertTrue(Pattern.matches(PHONE, text), text);
    assertTrue(c.usage().orElseThrow().completionTokens() > 0);
    JsonValue leap = c._additionalProperties().get("leap");
    assertTrue(
        leap != null && leap.toString().contains("forward_passes"), "Leap's statistics: " + leap);
    Map<?, ?> on = leap.convert(Map.class);
    assertTrue(
        ((Number) on.get("tokens_jumped")).intValue() > 0, "the forced ') ' and '-' jump: " + on);

    // Leap's extension field turns jump-forward off for this request alone: every token sampled.
    Completion plain =
        client
            .completions()
            .create(
                phoneRequest()
                    .putAdditionalBodyProperty(
                        "structured_outputs", JsonValue.from(Map.of("regex", PHONE)))
                    .putAdditionalBodyProperty("jump_forward", JsonValue.from(false))
                    .build());
    Map<?, ?> off = plain._additionalProperties().get("leap").convert(Map.class);
    assertEquals(0, ((Number) off.get("tokens_jumped")).intValue(), off.toString());
    assertTrue(Pattern.matches(PHONE, plain.choices().get(0).text()), plain.toString());
    assertTrue(
        ((Number) off.get("forward_passes")).intValue()
            > ((Number) on.get("forward_passes")).intValue(),
        "token by token takes more forward passes: " + off + " vs " + on);
  }

  @Test
  void streamedChatReassemblesToTheUnstreamedTextWithUsage() {
    String prompt =
        "Harry Potter is a character in Harry Potter. Please fill in the following information about this character.\n";
    ChatCompletionCreateParams.Builder b =
        ChatCompletionCreateParams.builder()
            .model(server.modelName())
            .addUserMessage(prompt)
            .maxCompletionTokens(80)
            .temperature(0.0)
            .putAdditionalBodyProperty(
                "regex",
                JsonValue.from(
                    "\\{\n    \"name\": \"[\\w\\d\\s]{1,16}\",\n    \"house\": \"(Gryffindor|Slytherin|Ravenclaw|Hufflepuff)\"\n\\}"));
    String whole =
        client
            .chat()
            .completions()
            .create(b.build())
            .choices()
            .get(0)
            .message()
            .content()
            .orElseThrow();
    StringBuilder streamed = new StringBuilder();
    List<String> roles = new ArrayList<>();
    List<Long> usage = new ArrayList<>();
    int[] chunks = {0};
    try (StreamResponse<ChatCompletionChunk> r =
        client
            .chat()
            .completions()
            .createStreaming(
                b.streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
                    .build())) {
      r.stream()
          .forEach(
              c -> {
                chunks[0]++;
                for (ChatCompletionChunk.Choice ch : c.choices()) {
                  ch.delta().role().ifPresent(role -> roles.add(role.asString()));
                  ch.delta().content().ifPresent(streamed::append);
                }
                c.usage().ifPresent(u -> usage.add(u.completionTokens()));
              });
    }
    assertEquals(
        whole, streamed.toString(), "the streamed deltas reassemble to the unstreamed text");
    assertTrue(whole.contains("\"house\""), whole);
    assertEquals(List.of("assistant"), roles, "one role, in the first delta");
    assertEquals(1, usage.size(), "one usage chunk");
    assertTrue(usage.get(0) > 0);
    assertTrue(chunks[0] >= 4, "role, text deltas, finish, usage: " + chunks[0] + " chunks");
  }

  @Test
  void streamedCompletionOverTheLegacyEndpoint() {
    CompletionCreateParams p =
        phoneRequest().putAdditionalBodyProperty("regex", JsonValue.from(PHONE)).build();
    String whole = client.completions().create(p).choices().get(0).text();
    StringBuilder streamed = new StringBuilder();
    List<String> reasons = new ArrayList<>();
    try (StreamResponse<Completion> r = client.completions().createStreaming(p)) {
      r.stream()
          .forEach(
              c ->
                  c.choices()
                      .forEach(
                          ch -> {
                            streamed.append(ch.text());
                            ch._finishReason().asKnown().ifPresent(f -> reasons.add(f.asString()));
                          }));
    }
    assertEquals(whole, streamed.toString());
    assertEquals(List.of("stop"), reasons);
  }

  @Test
  void grammarsAndFreeFormJsonObjectsThroughTheGrammarEngine() throws Exception {
    String arithmetic =
        "root ::= expr\nexpr ::= term ([+-] term)*\nterm ::= [0-9]{1,3} | \"(\" expr \")\"";
    Completion c =
        client
            .completions()
            .create(
                CompletionCreateParams.builder()
                    .model(server.modelName())
                    .prompt("2+2=")
                    .maxTokens(24)
                    .temperature(0.0)
                    .putAdditionalBodyProperty(
                        "structured_outputs", JsonValue.from(Map.of("grammar", arithmetic)))
                    .build());
    String text = c.choices().get(0).text();
    assertTrue(Pattern.matches("[0-9()+-]+", text) && balanced(text), text);

    // json_object: any JSON object, nested without bound; streamed as it is generated.
    ChatCompletionCreateParams p =
        ChatCompletionCreateParams.builder()
            .model(server.modelName())
            .addUserMessage(
                "Hermione Granger is a character in Harry Potter. Please fill in the following information about this character.\n")
            .maxCompletionTokens(120)
            .temperature(0.0)
            .responseFormat(ResponseFormatJsonObject.builder().build())
            .build();
    ChatCompletion whole = client.chat().completions().create(p);
    String json = whole.choices().get(0).message().content().orElseThrow();
    if (whole.choices().get(0).finishReason() == ChatCompletion.Choice.FinishReason.STOP) {
      assertTrue(Json.MAPPER.readTree(json).isObject(), json);
    } else {
      assertTrue(json.startsWith("{"), json);
    }

    BadRequestException bad =
        assertThrows(
            BadRequestException.class,
            () ->
                client
                    .completions()
                    .create(
                        CompletionCreateParams.builder()
                            .model(server.modelName())
                            .prompt("x")
                            .putAdditionalBodyProperty(
                                "structured_outputs",
                                JsonValue.from(Map.of("grammar", "root ::= value")))
                            .build()));
    assertTrue(
        bad.getMessage().contains("line 1") && bad.getMessage().contains("value"),
        bad.getMessage());
  }

  @Test
  void aStructuralTagLetsTheModelWriteFreeTextAndConstrainsTheTag() throws Exception {
    Map<String, Object> tag =
        Map.of(
            "type", "structural_tag",
            "structures",
                List.of(
                    Map.of(
                        "begin",
                        "<fact>",
                        "end",
                        "</fact>",
                        "schema",
                        Map.of(
                            "type",
                            "object",
                            "properties",
                            Map.of("town", Map.of("type", "string", "maxLength", 12)),
                            "required",
                            List.of("town"),
                            "additionalProperties",
                            false))),
            "triggers", List.of("<fact>"));
    String prompt = "The nearby town of Ivelport <fact>";
    Completion c =
        client
            .completions()
            .create(
                CompletionCreateParams.builder()
                    .model(server.modelName())
                    .prompt(prompt)
                    .maxTokens(60)
                    .temperature(0.0)
                    .putAdditionalBodyProperty("response_format", JsonValue.from(tag))
                    .build());
    String text = c.choices().get(0).text();
    // Every <fact> opens a tag whose content is the schema's JSON, closed by </fact>.
    java.util.regex.Matcher m = Pattern.compile("<fact>").matcher(text);
    int tags = 0;
    while (m.find()) {
      int close = text.indexOf("</fact>", m.end());
      if (close < 0) {
        assertEquals(CompletionChoice.FinishReason.LENGTH, c.choices().get(0).finishReason(), text);
        break;
      }
      JsonNode fact = Json.MAPPER.readTree(text.substring(m.end(), close));
      assertTrue(fact.isObject() && fact.size() == 1 && fact.get("town").isTextual(), text);
      tags++;
    }
    assertTrue(tags >= 0);
    Map<?, ?> leap = c._additionalProperties().get("leap").convert(Map.class);
    if (text.contains("<fact>")) {
      assertTrue(
          ((Number) leap.get("tokens_jumped")).intValue() > 0,
          "the tag's {\"town\":\" is forced: " + leap);
    }
  }

  private static boolean balanced(String s) {
    int depth = 0;
    for (char ch : s.toCharArray()) {
      depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
      if (depth < 0) {
        return false;
      }
    }
    return true;
  }

  @Test
  void errorsAreTheClientsTypedExceptions() {
    BadRequestException bad =
        assertThrows(
            BadRequestException.class,
            () ->
                client
                    .completions()
                    .create(
                        CompletionCreateParams.builder()
                            .model(server.modelName())
                            .prompt("x")
                            .putAdditionalBodyProperty(
                                "guided_json", JsonValue.from(Map.of("type", "object")))
                            .build()));
    assertTrue(bad.getMessage().contains("structured_outputs.json"), bad.getMessage());
    BadRequestException schema =
        assertThrows(
            BadRequestException.class,
            () ->
                client
                    .completions()
                    .create(
                        CompletionCreateParams.builder()
                            .model(server.modelName())
                            .prompt("x")
                            .putAdditionalBodyProperty(
                                "structured_outputs",
                                JsonValue.from(
                                    Map.of("json", Map.of("type", "string", "pattern", "(?<=a)b"))))
                            .build()));
    assertTrue(
        schema.getMessage().contains("pattern") || schema.getMessage().contains("(?<="),
        schema.getMessage());
    assertThrows(
        NotFoundException.class,
        () ->
            client
                .completions()
                .create(
                    CompletionCreateParams.builder().model("no-such-model").prompt("x").build()));
    OpenAIClient wrongKey =
        OpenAIOkHttpClient.builder().baseUrl(base).apiKey("wrong").maxRetries(0).build();
    assertThrows(
        UnauthorizedException.class,
        () ->
            wrongKey
                .completions()
                .create(
                    CompletionCreateParams.builder()
                        .model(server.modelName())
                        .prompt("x")
                        .build()));
  }

  @Test
  void metricsInPrometheusTextWithVllmNames() throws Exception {
    client
        .completions()
        .create(phoneRequest().putAdditionalBodyProperty("regex", JsonValue.from(PHONE)).build());
    String m =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base.replace("/v1", "") + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    for (String name :
        List.of(
            "vllm:time_to_first_token_seconds_bucket",
            "vllm:time_per_output_token_seconds_count",
            "vllm:e2e_request_latency_seconds_sum",
            "vllm:prompt_tokens_total",
            "vllm:generation_tokens_total",
            "vllm:num_requests_running",
            "vllm:num_requests_waiting",
            "vllm:request_queue_time_seconds_count",
            "leap:http_requests_in_flight",
            "vllm:kv_cache_usage_perc",
            "vllm:prefix_cache_queries_total",
            "vllm:prefix_cache_hits_total",
            "leap:tokens_jumped_total",
            "leap:bytes_jumped_total",
            "leap:forward_passes_total")) {
      assertTrue(m.contains(name), name + " in\n" + m);
    }
    java.util.regex.Matcher jumped =
        Pattern.compile("leap:tokens_jumped_total\\{[^}]*\\} (\\d+)").matcher(m);
    assertTrue(
        jumped.find() && Long.parseLong(jumped.group(1)) > 0,
        "the phone number's forced ') ' and '-' were jumped");
    java.util.regex.Matcher e2e =
        Pattern.compile("vllm:e2e_request_latency_seconds_count\\{[^}]*\\} (\\d+)").matcher(m);
    assertTrue(e2e.find() && Long.parseLong(e2e.group(1)) >= 1);
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(base.replace("/v1", "") + path))
            .header("Authorization", "Bearer " + KEY)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HttpClient.newHttpClient().send(r, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void plainHttpMistakesAre4xxInOpenAisShape() throws Exception {
    HttpResponse<String> malformed = post("/v1/completions", "{\"prompt\": ");
    assertEquals(400, malformed.statusCode());
    JsonNode e = Json.MAPPER.readTree(malformed.body());
    assertEquals("invalid_request_error", e.at("/error/type").asText());
    assertTrue(e.at("/error/message").asText().contains("not valid JSON"));
    // A body over the limit is refused from its Content-Length, before any of it is read.
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              ("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                      + KEY
                      + "\r\nContent-Type: application/json\r\nContent-Length: "
                      + (9 << 20)
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      String status = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
      assertEquals("HTTP/1.1 413", status);
    }
    assertEquals(404, post("/v2/nothing", "{}").statusCode());
    HttpResponse<String> tooLong =
        post(
            "/v1/completions", "{\"prompt\": \"" + "word ".repeat(5000) + "\", \"max_tokens\": 4}");
    assertEquals(400, tooLong.statusCode(), tooLong.body());
    assertEquals(
        "max_tokens",
        Json.MAPPER
            .readTree(post("/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": -1}").body())
            .at("/error/param")
            .asText());
    HttpResponse<String> models =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/models"))
                    .header("Authorization", "Bearer " + KEY)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    // The demo model's context: its config's max_position_embeddings (4,608 positions).
    assertEquals(4608, Json.MAPPER.readTree(models.body()).at("/data/0/max_model_len").asInt());
  }

  @Test
  void aClientThatGoesAwayMidStreamCancelsItsRequest() throws Exception {
    long before = runtime.forwardPasses();
    String body =
        "{\"prompt\": \"Letters: \", \"max_tokens\": 2000, \"temperature\": 0, \"stream\": true, "
            + "\"regex\": \"([a-z]+ )+END\"}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                  + KEY
                  + "\r\nContent-Type: application/json\r\nContent-Length: "
                  + bytes.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      byte[] head = s.getInputStream().readNBytes(200);
      assertTrue(
          new String(head, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200"),
          "the stream began");
      assertTrue(
          runtime.forwardPasses() > before, "the request is running before the client goes away");
    }
    // The next writes fail, which cancels the request: it ends at the runtime's next step, forward
    // passes stop growing and no slot stays with a running request.
    long t0 = System.nanoTime();
    while (server.inFlight() > 0 && System.nanoTime() - t0 < 30e9) {
      Thread.sleep(50);
    }
    assertEquals(0, server.inFlight(), "the request ended");
    long after = runtime.forwardPasses();
    Thread.sleep(300);
    assertEquals(after, runtime.forwardPasses(), "no forward pass for it any more");
    assertTrue(
        after - before < 1500,
        "cancelled long before its 2,000 tokens: " + (after - before) + " passes");
    assertEquals(
        runtime.kvCapacity(),
        runtime.freeKvSlots() + runtime.cachedKvSlots(),
        "no slot held by a running request");
  }
}
