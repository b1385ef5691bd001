package dev.leap.bench.serve;

import static dev.leap.bench.serve.AbuseRequests.PHONE;
import static dev.leap.bench.serve.AbuseRequests.bigBody;
import static dev.leap.bench.serve.AbuseRequests.phoneBody;
import static dev.leap.bench.serve.AbuseTimings.put;
import static dev.leap.bench.serve.AbuseTimings.times;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.runtime.DemoModel;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The <b>heavy</b> scenario of {@code leap bench abuse}: the issue's request (prompt of 2,000
 * tokens, {@code n} 16, {@code max_tokens} 2,096) is sent (its status: over the budget); then the
 * biggest request within the default budget ({@code n} 4, 2,000 prompt tokens, 2,000 output tokens,
 * non-streamed, on a raw socket) runs while small streamed requests measure their time to first
 * token; the process RSS is sampled every 50 ms; then the big request's client closes its
 * connection and the forward passes until the server has dropped it ({@code
 * leap:http_requests_in_flight} falls) are counted.
 *
 * <p>RSS and the KV pool's size are known only for a server in this process (-1 otherwise); the
 * sampler thread is stopped and joined before it returns.
 */
final class HeavyRequest {
  private HeavyRequest() {}

  static ObjectNode run(AbuseClient c, PrintWriter o, int samples) throws Exception {
    o.printf("%n## heavy requests%n%n");
    ObjectNode r = Json.MAPPER.createObjectNode();
    String issueBody = bigBody(16, 2096);
    AbuseClient.Reply issue =
        c.post("/v1/completions", "application/json", issueBody.getBytes(StandardCharsets.UTF_8));
    r.put("issueRequestStatus", issue.status());
    r.put("issueRequestMessage", AbuseClient.message(issue));
    o.printf(
        "the issue's request (n 16, max_tokens 2096, 2,000 prompt tokens): %d %s%n",
        issue.status(), AbuseClient.message(issue));

    List<Double> idleTtft = times(Math.max(5, samples / 5), () -> c.ttft(phoneBody(PHONE)));
    long rssBefore = c.rssKb();
    long kvBytes = c.inProcess ? kvPoolBytes() : -1;
    // The biggest request within the default budget, non-streamed, on a raw socket we can close.
    String big = bigBody(4, 2000);
    Socket bigClient = new Socket(c.host, c.port);
    bigClient
        .getOutputStream()
        .write(
            c.request("/v1/completions", "application/json", big.getBytes(StandardCharsets.UTF_8)));
    bigClient.getOutputStream().flush();
    long sentAt = System.nanoTime();
    // Wait until it is generating (its KV in use), then time small requests beside it.
    for (int i = 0; i < 600 && c.metric("vllm:num_requests_running") < 4; i++) {
      Thread.sleep(100);
    }
    double runningWhenMeasured = c.metric("vllm:num_requests_running");
    long[] peak = {rssBefore};
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                peak[0] = Math.max(peak[0], c.rssKb());
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    sampler.setDaemon(true);
    sampler.start();
    List<Double> busyTtft = times(Math.max(5, samples / 5), () -> c.ttft(phoneBody(PHONE)));
    double bigRunning = c.metric("vllm:num_requests_running");
    // The client leaves: count the forward passes until the server has let go of the request.
    double passesAtClose = c.metric("leap:forward_passes_total");
    double inFlightBefore = c.metric("leap:http_requests_in_flight");
    long closedAt = System.nanoTime();
    bigClient.close();
    double passesAtCancel = Double.NaN;
    double cancelMs = Double.NaN;
    for (int i = 0; i < 6000; i++) {
      if (c.metric("leap:http_requests_in_flight") < inFlightBefore) {
        cancelMs = (System.nanoTime() - closedAt) / 1e6;
        passesAtCancel = c.metric("leap:forward_passes_total");
        break;
      }
      Thread.sleep(5);
    }
    sampler.interrupt();
    sampler.join();
    r.put(
        "bigRequest",
        "n 4, 2,000 prompt tokens, max_tokens 2,000, regex of 3,000 digit pairs, non-streamed");
    r.put("bigSequencesRunningWhenMeasured", runningWhenMeasured);
    r.put("bigRanForMs", (closedAt - sentAt) / 1e6);
    r.put("bigStillRunningAtClose", bigRunning);
    put(r, "smallTtftIdleMs", idleTtft);
    put(r, "smallTtftBesideBigMs", busyTtft);
    r.put("rssBeforeMb", rssBefore / 1024.0);
    r.put("rssPeakMb", peak[0] / 1024.0);
    r.put("kvPoolMb", kvBytes / 1048576.0);
    r.put("cancelAfterCloseMs", cancelMs);
    r.put("forwardPassesAfterClose", passesAtCancel - passesAtClose);
    o.println("| measure | p50 | p99 |");
    o.println("|---|---|---|");
    o.printf(
        "| small streamed request, time to first token, idle (ms) | %.0f | %.0f |%n",
        Percentile.of(idleTtft, 0.5), Percentile.of(idleTtft, 0.99));
    o.printf(
        "| the same beside the big request (ms) | %.0f | %.0f |%n",
        Percentile.of(busyTtft, 0.5), Percentile.of(busyTtft, 0.99));
    o.printf(
        "%nbig request: %.0f sequences running when measured, ran %.1f s; RSS %.0f MB before, %.0f MB at peak "
            + "(KV pool %.0f MB); its client closed: dropped after %.0f ms and %.0f forward passes%n",
        runningWhenMeasured,
        (closedAt - sentAt) / 1e9,
        rssBefore / 1024.0,
        peak[0] / 1024.0,
        kvBytes / 1048576.0,
        cancelMs,
        passesAtCancel - passesAtClose);
    o.flush();
    return r;
  }

  /** The demo model's KV pool: slots x layers x 2 (K and V) x KV heads x head size x 4 bytes. */
  private static long kvPoolBytes() {
    try {
      JsonNode c = Json.MAPPER.readTree(DemoModel.ensure().resolve("config.json").toFile());
      int layers = c.get("num_hidden_layers").asInt();
      int heads = c.path("num_key_value_heads").asInt(c.get("num_attention_heads").asInt());
      int headDim =
          c.path("head_dim")
              .asInt(c.get("hidden_size").asInt() / c.get("num_attention_heads").asInt());
      return 32_768L * layers * 2 * heads * headDim * 4;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
