package dev.leap.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.openai.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile input against a real server on a free loopback port (the demo model, raw sockets): every
 * case is a 4xx in OpenAI's error shape, with no {@code Server} header, no Java class name, and at
 * most 200 characters of the input quoted, however long the input.
 */
class HostileInputTest {
  static LeapServer server;

  @BeforeAll
  static void start() throws Exception {
    LeapRuntime runtime =
        LeapRuntime.builder().setModelDir(DemoModel.ensure()).optKvCapacity(4096).build();
    server = new LeapServer(runtime, LeapServer.Options.defaults().withPort(0)).start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  /** A raw HTTP exchange: the status line, the headers and the body. */
  record Reply(int status, String head, byte[] body) {
    JsonNode json() throws IOException {
      return Json.MAPPER.readTree(body);
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  static Reply exchange(byte[] request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(60_000);
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      int headEnd = -1;
      int length = -1;
      for (int r; (r = in.read(buf)) > 0; ) {
        all.write(buf, 0, r);
        byte[] sofar = all.toByteArray();
        if (headEnd < 0) {
          headEnd = indexOf(sofar, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          if (headEnd >= 0) {
            Matcher m =
                Pattern.compile("(?im)^content-length:\\s*(\\d+)")
                    .matcher(new String(sofar, 0, headEnd, StandardCharsets.ISO_8859_1));
            length = m.find() ? Integer.parseInt(m.group(1)) : -1;
          }
        }
        if (headEnd >= 0 && length >= 0 && sofar.length >= headEnd + 4 + length) {
          break;
        }
      }
      byte[] bytes = all.toByteArray();
      headEnd = indexOf(bytes, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String head = new String(bytes, 0, headEnd, StandardCharsets.ISO_8859_1);
      int status = Integer.parseInt(head.split(" ")[1]);
      byte[] body = java.util.Arrays.copyOfRange(bytes, headEnd + 4, bytes.length);
      return new Reply(status, head, body);
    }
  }

  static Reply post(String path, String contentType, byte[] body, String host) throws IOException {
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Type: "
            + contentType
            + "\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[h.length + body.length];
    System.arraycopy(h, 0, all, 0, h.length);
    System.arraycopy(body, 0, all, h.length, body.length);
    return exchange(all);
  }

  static Reply post(String body) throws IOException {
    return post(
        "/v1/completions", "application/json", body.getBytes(StandardCharsets.UTF_8), "127.0.0.1");
  }

  static Reply chat(String body) throws IOException {
    return post(
        "/v1/chat/completions",
        "application/json",
        body.getBytes(StandardCharsets.UTF_8),
        "localhost");
  }

  private static int indexOf(byte[] a, byte[] b) {
    outer:
    for (int i = 0; i + b.length <= a.length; i++) {
      for (int j = 0; j < b.length; j++) {
        if (a[i + j] != b[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * The longest run of {@code c} in the reply: how much of a long input made of {@code c} it
   * quotes.
   */
  static int longestRun(Reply r, char c) {
    int best = 0;
    int run = 0;
    for (char x : r.text().toCharArray()) {
      run = x == c ? run + 1 : 0;
      best = Math.max(best, run);
    }
    return best;
  }

  /**
   * The common checks: status, OpenAI's shape, no Server header, no Java names, the input quoted
   * within bounds.
   */
  static JsonNode expectError(Reply r, int status, char inputChar) throws IOException {
    assertEquals(status, r.status(), r.head() + "\n" + r.text());
    JsonNode e = r.json().get("error");
    assertTrue(
        e != null
            && e.get("message").isTextual()
            && e.has("type")
            && e.has("param")
            && e.has("code"),
        r.text());
    assertFalse(r.head().toLowerCase().contains("\nserver:"), "no Server header: " + r.head());
    assertFalse(
        Pattern.compile("java\\.|Exception|StackOverflow").matcher(r.text()).find(), r.text());
    assertTrue(
        longestRun(r, inputChar) <= 200,
        "at most 200 characters of input quoted: " + r.text().length());
    return e;
  }

  @Test
  void jsonNestedTooDeepIsA400NamingTheLimitAndThePath() throws IOException {
    JsonNode e =
        expectError(post("{\"prompt\":" + "[".repeat(3000) + "]".repeat(3000) + "}"), 400, '[');
    assertTrue(e.get("message").asText().contains("limit of " + Json.MAX_DEPTH), e.toString());
    assertTrue(e.get("param").asText().startsWith("prompt[0]"), e.toString());
  }

  @Test
  void aTenThousandDigitNumberIsA400NamingTheField() throws IOException {
    JsonNode e =
        expectError(post("{\"prompt\":\"a\",\"max_tokens\":" + "7".repeat(10_000) + "}"), 400, '7');
    assertEquals("max_tokens", e.get("param").asText());
    assertTrue(
        e.get("message").asText().contains("limit of " + Json.MAX_NUMBER_LENGTH), e.toString());
  }

  @Test
  void deeplyNestedRegexAndGrammarGroupsAre400sNamingTheNestingLimit() throws IOException {
    String regex = "(".repeat(20_000) + "a" + ")".repeat(20_000);
    JsonNode e =
        expectError(
            post(
                Json.MAPPER
                    .createObjectNode()
                    .put("prompt", "a")
                    .set("structured_outputs", Json.MAPPER.createObjectNode().put("regex", regex))
                    .toString()),
            400,
            '(');
    assertTrue(e.get("message").asText().contains("nested deeper than the limit"), e.toString());
    String grammar = "root ::= " + "(".repeat(20_000) + "\"a\"" + ")".repeat(20_000);
    e =
        expectError(
            post(
                Json.MAPPER
                    .createObjectNode()
                    .put("prompt", "a")
                    .set(
                        "structured_outputs",
                        Json.MAPPER.createObjectNode().put("grammar", grammar))
                    .toString()),
            400,
            '(');
    assertTrue(e.get("message").asText().contains("nested deeper than the limit"), e.toString());
  }

  @Test
  void longInputsAreQuotedAtMost200Characters() throws IOException {
    String huge = "x".repeat(2_000_000);
    Reply model = post("{\"model\":\"" + huge + "\",\"prompt\":\"a\"}");
    expectError(model, 404, 'x');
    assertTrue(
        model.body().length < 1000, "a 2 MB model name gives a short 404: " + model.body().length);
    expectError(
        post("{\"prompt\":\"a\",\"response_format\":{\"type\":\"" + "x".repeat(100_000) + "\"}}"),
        400,
        'x');
    expectError(
        post(
            "{\"prompt\":\"a\",\"structured_outputs\":{\"grammar\":\"root ::= "
                + "x".repeat(100_000)
                + "\"}}"),
        400,
        'x');
    expectError(
        chat("{\"messages\":[{\"role\":\"" + "x".repeat(100_000) + "\",\"content\":\"hi\"}]}"),
        400,
        'x');
  }

  @Test
  void onlyJsonBodiesAndKnownHostsAreServed() throws IOException {
    byte[] ok = "{\"prompt\":\"a\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    assertEquals(
        415,
        expectError(post("/v1/completions", "text/plain", ok, "127.0.0.1"), 415, 'x')
                .path("code")
                .isNull()
            ? 0
            : 415);
    expectError(
        post("/v1/completions", "application/x-www-form-urlencoded", ok, "127.0.0.1"), 415, 'x');
    expectError(
        post("/v1/completions", "application/json; charset=latin1", ok, "127.0.0.1"), 415, 'x');
    JsonNode e =
        expectError(post("/v1/completions", "application/json", ok, "evil.example:8000"), 403, 'x');
    assertEquals("invalid_host", e.get("code").asText());
    expectError(
        exchange(
            ("GET /health HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)),
        403,
        'x');
    for (String host : List.of("127.0.0.1", "localhost:1234", "[::1]:80")) {
      Reply r = post("/v1/completions", "application/json; charset=utf-8", ok, host);
      assertEquals(200, r.status(), host + ": " + r.text());
      assertFalse(r.head().toLowerCase().contains("\nserver:"), r.head());
    }
  }

  @Test
  void strictJsonTrailingContentBadUtf8AndLoneSurrogatesAre400s() throws IOException {
    expectError(post("{\"prompt\":\"a\",\"max_tokens\":1} junk"), 400, 'x');
    JsonNode e =
        expectError(post("{\"prompt\":\"a\",\"max_tokens\":1}{\"prompt\":\"b\"}"), 400, 'x');
    assertTrue(e.get("message").asText().contains("after its JSON value"), e.toString());
    byte[] overlong = "{\"prompt\":\"\u0000\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    byte[] bad = new byte[overlong.length + 1];
    int at = new String(overlong, StandardCharsets.UTF_8).indexOf('\u0000');
    System.arraycopy(overlong, 0, bad, 0, at);
    bad[at] = (byte) 0xC0; // an overlong encoding of '/': C0 AF
    bad[at + 1] = (byte) 0xAF;
    System.arraycopy(overlong, at + 1, bad, at + 2, overlong.length - at - 1);
    e = expectError(post("/v1/completions", "application/json", bad, "127.0.0.1"), 400, 'x');
    assertTrue(e.get("message").asText().contains("UTF-8"), e.toString());
    e = expectError(post("{\"prompt\":\"a\\ud800b\",\"max_tokens\":1}"), 400, 'x');
    assertEquals("prompt", e.get("param").asText());
    assertTrue(e.get("message").asText().contains("surrogate"), e.toString());
  }

  @Test
  void unknownChatRolesAndPartsWithoutTextAre400s() throws IOException {
    JsonNode e =
        expectError(
            chat("{\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}],\"max_tokens\":1}"),
            400,
            'x');
    assertEquals("messages[0].role", e.get("param").asText());
    e =
        expectError(
            chat(
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}],\"max_tokens\":1}"),
            400,
            'x');
    assertEquals("messages[0].content[0].text", e.get("param").asText());
  }

  @Test
  void jettysOwnErrorsHaveOpenAisShape() throws IOException {
    Reply big =
        exchange(
            ("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: " + "x".repeat(100_000) + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    expectError(big, 431, 'x');
    expectError(
        exchange(
            "GET /health HTTP/3.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
        505,
        'x');
    expectError(
        exchange(
            "GET /%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII)),
        400,
        'x');
    Reply missing =
        exchange(
            "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
    expectError(missing, 404, 'x');
    assertNull(Map.of().get("unused"));
  }
}
