package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The <b>hostile</b> scenario of {@code leap bench abuse}: malformed, oversized or unexpected
 * requests (deep nesting, huge numbers and names, bad UTF-8, bad headers, a foreign {@code Host},
 * an unknown HTTP version), each sent once on its own connection. Per case: the status, whether the
 * body has OpenAI's error shape ({@code message}, {@code type}, {@code param}, {@code code}),
 * whether a {@code Server} header leaks, and how many characters of the input the body quotes (the
 * longest run of the input's filler character, {@code x} unless the case names another).
 */
final class HostileInput {
  private HostileInput() {}

  static ArrayNode run(AbuseClient c, PrintWriter o) throws Exception {
    o.printf(
        "%n## hostile input%n%n| case | status | OpenAI shape | Server header | input quoted (chars) |%n|---|---|---|---|---|%n");
    Map<String, AbuseClient.Reply> cases = new LinkedHashMap<>();
    Map<String, Character> filler = new LinkedHashMap<>();
    cases.put(
        "JSON nested 3,000 deep",
        c.postJson("{\"prompt\":" + "[".repeat(3000) + "]".repeat(3000) + "}"));
    filler.put("JSON nested 3,000 deep", '[');
    cases.put(
        "a 10,000-digit number",
        c.postJson("{\"prompt\":\"a\",\"max_tokens\":" + "7".repeat(10_000) + "}"));
    filler.put("a 10,000-digit number", '7');
    cases.put(
        "20,000 nested regex groups",
        c.postJson(
            "{\"prompt\":\"a\",\"structured_outputs\":{\"regex\":\""
                + "(".repeat(20_000)
                + "a"
                + ")".repeat(20_000)
                + "\"}}"));
    filler.put("20,000 nested regex groups", '(');
    cases.put(
        "a 2 MB model name",
        c.postJson("{\"model\":\"" + "x".repeat(2_000_000) + "\",\"prompt\":\"a\"}"));
    cases.put(
        "unknown response_format.type (100,000 chars)",
        c.postJson(
            "{\"prompt\":\"a\",\"response_format\":{\"type\":\"" + "x".repeat(100_000) + "\"}}"));
    cases.put(
        "undefined grammar rule (100,000 chars)",
        c.postJson(
            "{\"prompt\":\"a\",\"structured_outputs\":{\"grammar\":"
                + "\"root ::= "
                + "x".repeat(100_000)
                + "\"}}"));
    byte[] ok = "{\"prompt\":\"a\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    cases.put("Content-Type: text/plain", c.post("/v1/completions", "text/plain", ok));
    cases.put(
        "Host: evil.example (DNS rebinding)",
        c.exchange(
            ("POST /v1/completions HTTP/1.1\r\nHost: evil.example\r\n"
                    + "Content-Type: application/json\r\nContent-Length: "
                    + ok.length
                    + "\r\nConnection: close\r\n\r\n"
                    + new String(ok, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8)));
    cases.put("trailing junk", c.postJson("{\"prompt\":\"a\",\"max_tokens\":1} junk"));
    cases.put(
        "a second JSON object",
        c.postJson("{\"prompt\":\"a\",\"max_tokens\":1}{\"prompt\":\"b\"}"));
    byte[] overlong = "{\"prompt\":\"??\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    overlong[11] = (byte) 0xC0;
    overlong[12] = (byte) 0xAF;
    cases.put("overlong UTF-8", c.post("/v1/completions", "application/json", overlong));
    cases.put(
        "a lone surrogate in the prompt",
        c.postJson("{\"prompt\":\"a\\ud800b\",\"max_tokens\":1}"));
    cases.put(
        "unknown chat role",
        c.post(
            "/v1/chat/completions",
            "application/json",
            "{\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}],\"max_tokens\":1}"
                .getBytes(StandardCharsets.UTF_8)));
    cases.put(
        "content part without text",
        c.post(
            "/v1/chat/completions",
            "application/json",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}],\"max_tokens\":1}"
                .getBytes(StandardCharsets.UTF_8)));
    cases.put(
        "100 KB header (431)",
        c.exchange(
            ("GET /health HTTP/1.1\r\nHost: "
                    + c.host
                    + "\r\nX-A: "
                    + "x".repeat(100_000)
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
    cases.put(
        "HTTP/3.0 (505)",
        c.exchange(
            ("GET /health HTTP/3.0\r\nHost: " + c.host + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
    cases.put(
        "bad URI /%zz",
        c.exchange(
            ("GET /%zz HTTP/1.1\r\nHost: " + c.host + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (Map.Entry<String, AbuseClient.Reply> e : cases.entrySet()) {
      AbuseClient.Reply rep = e.getValue();
      char fill = filler.getOrDefault(e.getKey(), 'x');
      boolean shape = false;
      try {
        JsonNode err = Json.MAPPER.readTree(rep.body()).get("error");
        shape =
            err != null
                && err.has("message")
                && err.has("type")
                && err.has("param")
                && err.has("code");
      } catch (IOException ex) {
        shape = false;
      }
      boolean serverHeader = rep.head().toLowerCase().contains("\nserver:");
      int quoted = longestRun(new String(rep.body(), StandardCharsets.UTF_8), fill);
      ObjectNode n = a.addObject();
      n.put("case", e.getKey());
      n.put("status", rep.status());
      n.put("openAiShape", shape);
      n.put("serverHeader", serverHeader);
      n.put("inputQuotedChars", quoted);
      n.put("bodyBytes", rep.body().length);
      o.printf(
          "| %s | %d | %s | %s | %d |%n",
          e.getKey(), rep.status(), shape ? "yes" : "NO", serverHeader ? "YES" : "no", quoted);
    }
    o.flush();
    return a;
  }

  private static int longestRun(String s, char c) {
    int best = 0;
    int run = 0;
    for (int i = 0; i < s.length(); i++) {
      run = s.charAt(i) == c ? run + 1 : 0;
      best = Math.max(best, run);
    }
    return best;
  }
}
