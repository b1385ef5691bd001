package dev.leap.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.openai.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's limits against a real server on a free loopback port (the demo model, raw sockets
 * and the JDK's HTTP client): stalled uploads hold no thread and end in a 408, connections past the
 * limit wait for one to close, requests past the in-flight limit get a 503 with Retry-After. No
 * assertion depends on timing: statuses, shapes and counts.
 */
class ServerLimitsTest {
  static LeapRuntime runtime;
  static LeapServer server;
  static final int MAX_CONNECTIONS = 120;
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

  @BeforeAll
  static void start() throws Exception {
    runtime = LeapRuntime.builder().setModelDir(DemoModel.ensure()).optKvCapacity(4096).build();
    server =
        new LeapServer(
                runtime,
                LeapServer.Options.defaults()
                    .withPort(0)
                    .withLimits(MAX_CONNECTIONS, 2, 1500)
                    .withBudget(8192, 3500))
            .start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  static Socket stalledUpload() throws IOException {
    Socket s = new Socket("127.0.0.1", server.port());
    s.getOutputStream()
        .write(
            ("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"mod")
                .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  static HttpResponse<String> health() throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
            .timeout(Duration.ofSeconds(60))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static String readAll(Socket s) throws IOException {
    s.setSoTimeout(60_000);
    return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void moreStalledUploadsThanThreadsLeaveHealthAnsweringAndEndIn408() throws Exception {
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 100; i++) { // more than Jetty's 64 threads: each used to hold one
        stalled.add(stalledUpload());
      }
      assertEquals(200, health().statusCode());
      String reply = readAll(stalled.get(0));
      assertTrue(reply.startsWith("HTTP/1.1 408"), reply);
      assertTrue(
          reply.contains("\"code\":\"request_timeout\"") && reply.contains("1500 ms"), reply);
    } finally {
      for (Socket s : stalled) {
        s.close();
      }
    }
  }

  @Test
  void connectionsPastTheLimitWaitUntilOneCloses() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        held.add(new Socket("127.0.0.1", server.port()));
      }
      // Accepted by the kernel's backlog, not by the server: no answer while the limit is reached.
      try (Socket extra = new Socket("127.0.0.1", server.port())) {
        extra
            .getOutputStream()
            .write(
                "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
        extra.setSoTimeout(1000);
        boolean answered;
        try {
          answered = extra.getInputStream().read() >= 0;
        } catch (SocketTimeoutException e) {
          answered = false;
        }
        assertTrue(
            !answered, "a connection past the limit is not served while the limit is reached");
        for (Socket s : held) {
          s.close(); // (other clients' pooled connections may hold slots too: free them all)
        }
        String reply = readAll(extra);
        assertTrue(reply.startsWith("HTTP/1.1 200"), "served once connections closed: " + reply);
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void requestsPastTheInFlightLimitAre503WithRetryAfter() throws Exception {
    // Two long streamed requests fill the limit of 2 (a constraint that cannot stop before 3,000
    // digits:
    // 3,000 forward passes each).
    String longBody =
        "{\"prompt\": \"Digits: \", \"max_tokens\": 3000, \"stream\": true, \"regex\": \"[0-9]{1000}[0-9]{1000}[0-9]{1000}\"}";
    List<Socket> running = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        Socket s = new Socket("127.0.0.1", server.port());
        OutputStream out = s.getOutputStream();
        out.write(
            ("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                    + longBody.length()
                    + "\r\n\r\n"
                    + longBody)
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        running.add(s);
      }
      // Both are in flight once their bodies are read; each needs 3,000 forward passes, so they
      // stay.
      for (int i = 0; i < 6000 && server.inFlight() < 2; i++) {
        Thread.sleep(10);
      }
      assertEquals(2, server.inFlight());
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + server.port() + "/v1/completions"))
                  .header("Content-Type", "application/json")
                  .timeout(Duration.ofSeconds(60))
                  .POST(
                      HttpRequest.BodyPublishers.ofString("{\"prompt\": \"a\", \"max_tokens\": 1}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(503, r.statusCode(), r.body());
      assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
      assertEquals("overloaded", Json.MAPPER.readTree(r.body()).at("/error/code").asText());
    } finally {
      for (Socket s : running) {
        s.close(); // the client leaves: its request is cancelled at the next write
      }
    }
  }

  static final String LONG =
      "{\"prompt\": \"Digits: \", \"max_tokens\": 3000, \"regex\": \"[0-9]{1000}[0-9]{1000}[0-9]{1000}\"}";

  static long cancelledCount() throws Exception {
    String m =
        HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    java.util.regex.Matcher x =
        java.util.regex.Pattern.compile("finished_reason=\"cancelled\"} (\\d+)").matcher(m);
    assertTrue(x.find(), m);
    return Long.parseLong(x.group(1));
  }

  @Test
  void aNonStreamedRequestIsCancelledWhenItsClientLeaves() throws Exception {
    long before = cancelledCount();
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              ("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      + "Content-Length: "
                      + LONG.length()
                      + "\r\n\r\n"
                      + LONG)
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      for (int i = 0; i < 6000 && server.inFlight() < 1; i++) {
        Thread.sleep(10);
      }
      assertEquals(1, server.inFlight());
    } // the client leaves long before 3,000 forward passes
    for (int i = 0; i < 12_000 && server.inFlight() > 0; i++) {
      Thread.sleep(10);
    }
    assertEquals(0, server.inFlight());
    assertEquals(
        before + 1, cancelledCount(), "the request ended as cancelled, not after its 3,000 tokens");
    assertEquals(
        runtime.kvCapacity(),
        runtime.freeKvSlots() + runtime.cachedKvSlots(),
        "its KV slots came back");
  }

  @Test
  void aRequestOverTheBudgetIsA400NamingTheLimit() throws Exception {
    String big = "{\"prompt\": \"a\", \"n\": 16, \"max_tokens\": 2096}";
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(big))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    String m = Json.MAPPER.readTree(r.body()).at("/error/message").asText();
    assertTrue(m.contains("--max-request-tokens") || m.contains("--max-request-kv"), m);
    assertEquals("max_tokens", Json.MAPPER.readTree(r.body()).at("/error/param").asText());
    // Within the token budget (8,192) but over the KV budget (3,500 slots): the KV limit is named.
    String wide = "{\"prompt\": \"a\", \"n\": 4, \"max_tokens\": 1000}";
    r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(wide))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    assertTrue(r.body().contains("--max-request-kv") && r.body().contains("3500"), r.body());
  }
}
