package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The load benchmark's HTTP client: one streamed {@code /v1/completions} request, timed as vLLM's
 * {@code benchmarks/serve.py} times it: TTFT (send to first text chunk), inter-chunk latencies
 * (gaps between text chunks), end-to-end latency, output tokens from the usage chunk, and TPOT =
 * (end-to-end − TTFT) / (tokens − 1).
 */
final class LoadClient {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** One request's measurements; {@code error} is null when it succeeded. */
  record Outcome(
      String text,
      int status,
      String error,
      double ttftMs,
      double e2eMs,
      List<Double> interChunkMs,
      int chunks,
      int outputTokens,
      long tokensJumped,
      String finishReason) {
    double tpotMs() {
      return outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : Double.NaN;
    }
  }

  Outcome send(String baseUrl, String prompt, String regex, int maxTokens) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("prompt", prompt);
    body.put("max_tokens", maxTokens);
    body.put("temperature", 0);
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    body.put("regex", regex);
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(baseUrl + "/v1/completions"))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofMinutes(10))
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    long t0 = System.nanoTime();
    try {
      HttpResponse<Stream<String>> resp = http.send(r, HttpResponse.BodyHandlers.ofLines());
      if (resp.statusCode() != 200) {
        String text = String.join("\n", resp.body().toList());
        return new Outcome("", resp.statusCode(), text, 0, ms(t0), List.of(), 0, 0, 0, null);
      }
      StringBuilder out = new StringBuilder();
      List<Double> gaps = new ArrayList<>();
      double ttft = -1;
      long last = 0;
      int chunks = 0;
      int tokens = 0;
      long jumped = 0;
      String finish = null;
      Iterator<String> lines = resp.body().iterator();
      while (lines.hasNext()) {
        String line = lines.next();
        if (!line.startsWith("data: ")) {
          continue;
        }
        String data = line.substring(6);
        if (data.equals("[DONE]")) {
          break;
        }
        JsonNode c = Json.MAPPER.readTree(data);
        if (c.has("error")) {
          return new Outcome(
              out.toString(),
              200,
              c.get("error").toString(),
              ttft,
              ms(t0),
              gaps,
              chunks,
              tokens,
              jumped,
              null);
        }
        for (JsonNode choice : c.path("choices")) {
          String t = choice.path("text").asText("");
          if (!t.isEmpty()) {
            long now = System.nanoTime();
            if (ttft < 0) {
              ttft = (now - t0) / 1e6;
            } else {
              gaps.add((now - last) / 1e6);
            }
            last = now;
            chunks++;
            out.append(t);
          }
          if (!choice.path("finish_reason").isNull() && choice.has("finish_reason")) {
            finish = choice.get("finish_reason").asText();
          }
        }
        JsonNode usage = c.get("usage");
        if (usage != null && !usage.isNull()) {
          tokens = usage.path("completion_tokens").asInt();
          jumped = c.path("leap").path("tokens_jumped").asLong();
        }
      }
      return new Outcome(
          out.toString(), 200, null, ttft, ms(t0), gaps, chunks, tokens, jumped, finish);
    } catch (Exception e) {
      return new Outcome("", 0, e.toString(), 0, ms(t0), List.of(), 0, 0, 0, null);
    }
  }

  private static double ms(long t0) {
    return (System.nanoTime() - t0) / 1e6;
  }
}
