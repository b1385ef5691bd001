package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.LeapServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench abuse}: the server under stalled clients, heavy requests and hostile input
 * (issue 29), against a live server on the loopback: one it starts in this process on the demo
 * model (port 0), whose in-flight count and process memory it can read, or {@code --url}.
 *
 * <ol>
 *   <li><b>stalled</b>: {@code --stalled} connections send headers and 5 bytes of a 100-byte body,
 *       then wait; meanwhile {@code /health} and a small regex-constrained completion are timed
 *       (p50/p99), against the same measured idle;
 *   <li><b>heavy</b>: the issue's request (prompt of 2,000 tokens, {@code n} 16, {@code max_tokens}
 *       2,096) is sent (its status: over the budget); then the biggest request within the default
 *       budget (n 4, 2,000 prompt tokens, 2,000 output tokens, non-streamed) runs while small
 *       streamed requests measure their time to first token; the process RSS is sampled; then the
 *       big request's client closes its connection and the forward passes until the server has
 *       dropped it are counted;
 *   <li><b>slowCompile</b>: trivial regex requests (each a new regex, so each compiles: the phone
 *       regex behind a forced five-digit tag, the same cost each time) idle and while a schema of
 *       300 strings of {@code maxLength} 1,000 compiles;
 *   <li><b>hostile</b>: each hostile case's status, whether it has OpenAI's shape, a {@code Server}
 *       header, and how many characters of the input its body quotes (the longest run of the
 *       input's filler character).
 * </ol>
 *
 * Prints a table per part and writes the JSON to {@code --out}.
 */
@Command(
    name = "abuse",
    mixinStandardHelpOptions = true,
    description =
        "Stalled uploads, a heavy request, a slow compile and hostile input against a live leap serve (issue 29).")
public final class AbuseBenchCommand implements Callable<Integer> {
  private static final String PHONE = "\\([0-9]{3}\\) [0-9]{3}-[0-9]{4}";

  @Spec CommandSpec spec;

  @Option(
      names = "--url",
      description = "A running server (default: start one in this process on the demo model).")
  String url;

  @Option(
      names = "--stalled",
      defaultValue = "500",
      description = "Stalled uploads held open. Default: ${DEFAULT-VALUE}.")
  int stalled;

  @Option(
      names = "--samples",
      defaultValue = "50",
      description =
          "Timed requests per measurement (/health; completions use a fifth). Default: ${DEFAULT-VALUE}.")
  int samples;

  @Option(
      names = "--out",
      defaultValue = "bench-results/abuse.json",
      description = "Default: ${DEFAULT-VALUE}.")
  Path out;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(30))
          .build();
  private PrintWriter o;
  private String base;
  private String host;
  private int port;
  private LeapServer server;

  @Override
  public Integer call() throws Exception {
    o = spec.commandLine().getOut();
    try {
      if (url == null) {
        LeapRuntime rt =
            LeapRuntime.builder()
                .setModelDir(DemoModel.resolve("demo", spec.commandLine().getErr()))
                .build();
        // The stalled uploads must outlive the measurement: a body timeout longer than it.
        server =
            new LeapServer(
                    rt,
                    LeapServer.Options.defaults()
                        .withPort(0)
                        .withLimits(LeapServer.Options.DEFAULT_MAX_CONNECTIONS, 512, 120_000))
                .start();
        base = "http://127.0.0.1:" + server.port();
      } else {
        base = url.replaceAll("/+$", "").replaceAll("/v1$", "");
      }
      URI u = URI.create(base);
      host = u.getHost();
      port = u.getPort();
      ObjectNode report = Json.MAPPER.createObjectNode();
      report.put("benchmark", "abuse");
      report.put("server", url == null ? "in-process, demo model" : base);
      report.put("loadAverage", loadAverage());
      warmUp();
      report.set("stalled", stalled());
      report.set("heavy", heavy());
      report.set("slowCompile", slowCompile());
      report.set("hostile", hostile());
      report.put("loadAverageAfter", loadAverage());
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, report.toPrettyString());
      o.println("wrote " + out);
      o.flush();
      return 0;
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** The JIT and the server's caches warm, so that "idle" is not "cold". */
  private void warmUp() throws Exception {
    for (int i = 0; i < 20; i++) {
      completion(phoneBody(PHONE));
      health();
    }
  }

  private ObjectNode stalled() throws Exception {
    o.printf(
        "%n## %d stalled uploads (headers and 5 of 100 body bytes, then nothing)%n%n", stalled);
    ObjectNode r = Json.MAPPER.createObjectNode();
    List<Double> idleHealth = times(samples, this::health);
    List<Double> idleCompletion =
        times(Math.max(5, samples / 5), () -> completion(phoneBody(PHONE)));
    List<Socket> held = new ArrayList<>();
    byte[] head =
        ("POST /v1/completions HTTP/1.1\r\nHost: "
                + host
                + ":"
                + port
                + "\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100\r\n\r\n{\"mod")
            .getBytes(StandardCharsets.US_ASCII);
    List<Double> busyHealth;
    List<Double> busyCompletion;
    int stillOpen = 0;
    try {
      for (int i = 0; i < stalled; i++) {
        Socket s = new Socket(host, port);
        s.getOutputStream().write(head);
        s.getOutputStream().flush();
        held.add(s);
      }
      Thread.sleep(500);
      busyHealth = times(samples, this::health);
      busyCompletion = times(Math.max(5, samples / 5), () -> completion(phoneBody(PHONE)));
      for (Socket s : held) {
        s.setSoTimeout(1);
        try {
          stillOpen += s.getInputStream().read() < 0 ? 0 : 1; // a byte: the server answered (a 408)
        } catch (SocketTimeoutException e) {
          stillOpen++; // nothing yet: held open, as a stalled upload is
        }
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
    r.put("stalledUploads", stalled);
    r.put("stillHeldAfterMeasuring", stillOpen);
    put(r, "healthIdleMs", idleHealth);
    put(r, "healthStalledMs", busyHealth);
    put(r, "completionIdleMs", idleCompletion);
    put(r, "completionStalledMs", busyCompletion);
    r.put(
        "completionP99Ratio",
        Percentile.of(busyCompletion, 0.99) / Percentile.of(idleCompletion, 0.99));
    o.println("| measure | idle p50 | idle p99 | stalled p50 | stalled p99 |");
    o.println("|---|---|---|---|---|");
    row("/health (ms)", idleHealth, busyHealth);
    row("small regex completion (ms)", idleCompletion, busyCompletion);
    o.printf(
        "%nstill held open after measuring: %d of %d; completion p99 ratio %.2fx%n",
        stillOpen, stalled, r.get("completionP99Ratio").asDouble());
    o.flush();
    return r;
  }

  private ObjectNode heavy() throws Exception {
    o.printf("%n## heavy requests%n%n");
    ObjectNode r = Json.MAPPER.createObjectNode();
    String issueBody = bigBody(16, 2096);
    Reply issue =
        post("/v1/completions", "application/json", issueBody.getBytes(StandardCharsets.UTF_8));
    r.put("issueRequestStatus", issue.status);
    r.put("issueRequestMessage", message(issue));
    o.printf(
        "the issue's request (n 16, max_tokens 2096, 2,000 prompt tokens): %d %s%n",
        issue.status, message(issue));

    List<Double> idleTtft = times(Math.max(5, samples / 5), () -> ttft(phoneBody(PHONE)));
    long rssBefore = rssKb();
    long kvBytes = server == null ? -1 : kvPoolBytes();
    // The biggest request within the default budget, non-streamed, on a raw socket we can close.
    String big = bigBody(4, 2000);
    Socket bigClient = new Socket(host, port);
    bigClient
        .getOutputStream()
        .write(
            request("/v1/completions", "application/json", big.getBytes(StandardCharsets.UTF_8)));
    bigClient.getOutputStream().flush();
    long sentAt = System.nanoTime();
    // Wait until it is generating (its KV in use), then time small requests beside it.
    for (int i = 0; i < 600 && metric("vllm:num_requests_running") < 4; i++) {
      Thread.sleep(100);
    }
    double runningWhenMeasured = metric("vllm:num_requests_running");
    long[] peak = {rssBefore};
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                peak[0] = Math.max(peak[0], rssKb());
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    sampler.setDaemon(true);
    sampler.start();
    List<Double> busyTtft = times(Math.max(5, samples / 5), () -> ttft(phoneBody(PHONE)));
    double bigRunning = metric("vllm:num_requests_running");
    // The client leaves: count the forward passes until the server has let go of the request.
    double passesAtClose = metric("leap:forward_passes_total");
    double inFlightBefore = metric("leap:http_requests_in_flight");
    long closedAt = System.nanoTime();
    bigClient.close();
    double passesAtCancel = Double.NaN;
    double cancelMs = Double.NaN;
    for (int i = 0; i < 6000; i++) {
      if (metric("leap:http_requests_in_flight") < inFlightBefore) {
        cancelMs = (System.nanoTime() - closedAt) / 1e6;
        passesAtCancel = metric("leap:forward_passes_total");
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

  private ObjectNode slowCompile() throws Exception {
    o.printf("%n## a slow schema compiling%n%n");
    ObjectNode r = Json.MAPPER.createObjectNode();
    // A new regex each time (so each compiles), all of the same cost: a forced five-digit tag
    // before the phone
    // number, drawn from one counter for the idle and the busy samples alike.
    int[] next = {0};
    Timed trivial =
        () -> {
          completion(phoneBody(String.format("#%05d ", next[0]++) + PHONE));
          return null;
        };
    List<Double> idle = times(samples, trivial);
    StringBuilder props = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      props
          .append(i == 0 ? "" : ",")
          .append("\"f")
          .append(i)
          .append("\":{\"type\":\"string\",\"maxLength\":1000}");
    }
    String schema = "{\"type\":\"object\",\"properties\":{" + props + "}}";
    String body =
        "{\"prompt\":\"a\",\"max_tokens\":4,\"structured_outputs\":{\"json\":" + schema + "}}";
    long t0 = System.nanoTime();
    CompletableFuture<Reply> slow =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return post(
                    "/v1/completions", "application/json", body.getBytes(StandardCharsets.UTF_8));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    Thread.sleep(200);
    List<Double> during = new ArrayList<>();
    while (!slow.isDone() && during.size() < 200) {
      during.addAll(times(1, trivial));
    }
    Reply s = slow.join();
    double slowMs = (System.nanoTime() - t0) / 1e6;
    r.put("slowStatus", s.status);
    r.put("slowMs", slowMs);
    r.put("slowMessage", message(s));
    put(r, "trivialIdleMs", idle);
    put(r, "trivialDuringMs", during);
    r.put("trivialP50Ratio", Percentile.of(during, 0.5) / Percentile.of(idle, 0.5));
    r.put("trivialP99Ratio", Percentile.of(during, 0.99) / Percentile.of(idle, 0.99));
    o.printf("slow schema: %d after %.0f ms (%s)%n", s.status, slowMs, message(s));
    o.printf(
        "trivial regex request (a new regex each): idle p50 %.0f ms, p99 %.0f ms; during the slow compile (%d "
            + "requests) p50 %.0f ms, p99 %.0f ms%n",
        Percentile.of(idle, 0.5),
        Percentile.of(idle, 0.99),
        during.size(),
        Percentile.of(during, 0.5),
        Percentile.of(during, 0.99));
    o.flush();
    return r;
  }

  private ArrayNode hostile() throws Exception {
    o.printf(
        "%n## hostile input%n%n| case | status | OpenAI shape | Server header | input quoted (chars) |%n|---|---|---|---|---|%n");
    Map<String, Reply> cases = new LinkedHashMap<>();
    Map<String, Character> filler = new LinkedHashMap<>();
    cases.put(
        "JSON nested 3,000 deep",
        postJson("{\"prompt\":" + "[".repeat(3000) + "]".repeat(3000) + "}"));
    filler.put("JSON nested 3,000 deep", '[');
    cases.put(
        "a 10,000-digit number",
        postJson("{\"prompt\":\"a\",\"max_tokens\":" + "7".repeat(10_000) + "}"));
    filler.put("a 10,000-digit number", '7');
    cases.put(
        "20,000 nested regex groups",
        postJson(
            "{\"prompt\":\"a\",\"structured_outputs\":{\"regex\":\""
                + "(".repeat(20_000)
                + "a"
                + ")".repeat(20_000)
                + "\"}}"));
    filler.put("20,000 nested regex groups", '(');
    cases.put(
        "a 2 MB model name",
        postJson("{\"model\":\"" + "x".repeat(2_000_000) + "\",\"prompt\":\"a\"}"));
    cases.put(
        "unknown response_format.type (100,000 chars)",
        postJson(
            "{\"prompt\":\"a\",\"response_format\":{\"type\":\"" + "x".repeat(100_000) + "\"}}"));
    cases.put(
        "undefined grammar rule (100,000 chars)",
        postJson(
            "{\"prompt\":\"a\",\"structured_outputs\":{\"grammar\":"
                + "\"root ::= "
                + "x".repeat(100_000)
                + "\"}}"));
    byte[] ok = "{\"prompt\":\"a\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    cases.put("Content-Type: text/plain", post("/v1/completions", "text/plain", ok));
    cases.put(
        "Host: evil.example (DNS rebinding)",
        exchange(
            ("POST /v1/completions HTTP/1.1\r\nHost: evil.example\r\n"
                    + "Content-Type: application/json\r\nContent-Length: "
                    + ok.length
                    + "\r\nConnection: close\r\n\r\n"
                    + new String(ok, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8)));
    cases.put("trailing junk", postJson("{\"prompt\":\"a\",\"max_tokens\":1} junk"));
    cases.put(
        "a second JSON object", postJson("{\"prompt\":\"a\",\"max_tokens\":1}{\"prompt\":\"b\"}"));
    byte[] overlong = "{\"prompt\":\"??\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    overlong[11] = (byte) 0xC0;
    overlong[12] = (byte) 0xAF;
    cases.put("overlong UTF-8", post("/v1/completions", "application/json", overlong));
    cases.put(
        "a lone surrogate in the prompt", postJson("{\"prompt\":\"a\\ud800b\",\"max_tokens\":1}"));
    cases.put(
        "unknown chat role",
        post(
            "/v1/chat/completions",
            "application/json",
            "{\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}],\"max_tokens\":1}"
                .getBytes(StandardCharsets.UTF_8)));
    cases.put(
        "content part without text",
        post(
            "/v1/chat/completions",
            "application/json",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}],\"max_tokens\":1}"
                .getBytes(StandardCharsets.UTF_8)));
    cases.put(
        "100 KB header (431)",
        exchange(
            ("GET /health HTTP/1.1\r\nHost: "
                    + host
                    + "\r\nX-A: "
                    + "x".repeat(100_000)
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
    cases.put(
        "HTTP/3.0 (505)",
        exchange(
            ("GET /health HTTP/3.0\r\nHost: " + host + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
    cases.put(
        "bad URI /%zz",
        exchange(
            ("GET /%zz HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (Map.Entry<String, Reply> e : cases.entrySet()) {
      Reply rep = e.getValue();
      char c = filler.getOrDefault(e.getKey(), 'x');
      boolean shape = false;
      try {
        JsonNode err = Json.MAPPER.readTree(rep.body).get("error");
        shape =
            err != null
                && err.has("message")
                && err.has("type")
                && err.has("param")
                && err.has("code");
      } catch (IOException ex) {
        shape = false;
      }
      boolean serverHeader = rep.head.toLowerCase().contains("\nserver:");
      int quoted = longestRun(new String(rep.body, StandardCharsets.UTF_8), c);
      ObjectNode n = a.addObject();
      n.put("case", e.getKey());
      n.put("status", rep.status);
      n.put("openAiShape", shape);
      n.put("serverHeader", serverHeader);
      n.put("inputQuotedChars", quoted);
      n.put("bodyBytes", rep.body.length);
      o.printf(
          "| %s | %d | %s | %s | %d |%n",
          e.getKey(), rep.status, shape ? "yes" : "NO", serverHeader ? "YES" : "no", quoted);
    }
    o.flush();
    return a;
  }

  // ---------------------------------------------------------------------------------------------

  private static String bigBody(int n, int maxTokens) {
    StringBuilder p = new StringBuilder("[");
    for (int i = 0; i < 2000; i++) {
      p.append(i == 0 ? "" : ",").append(198);
    }
    p.append(']');
    return "{\"prompt\":"
        + p
        + ",\"n\":"
        + n
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"temperature\":1,"
        + "\"structured_outputs\":{\"regex\":\"([0-9] ){1000}([0-9] ){1000}([0-9] ){1000}\"}}";
  }

  private static String phoneBody(String regex) {
    return "{\"prompt\":\"Phone: \",\"max_tokens\":20,\"temperature\":0,\"regex\":\""
        + regex.replace("\\", "\\\\")
        + "\"}";
  }

  private Void health() throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/health"))
                .timeout(Duration.ofSeconds(60))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("/health answered " + r.statusCode());
    }
    return null;
  }

  private Void completion(String body) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/completions"))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "a small completion answered " + r.statusCode() + ": " + r.body());
    }
    return null;
  }

  /** Milliseconds to the first streamed text of a small request (read to its end). */
  private double ttft(String body) throws Exception {
    String streamed = body.replace("{\"prompt\"", "{\"stream\":true,\"prompt\"");
    long t0 = System.nanoTime();
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/completions"))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(streamed))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    double first = Double.NaN;
    try (InputStream in = r.body()) {
      if (r.statusCode() != 200) {
        throw new IllegalStateException("a small streamed request answered " + r.statusCode());
      }
      StringBuilder sb = new StringBuilder();
      for (int b; (b = in.read()) >= 0; ) {
        sb.append((char) b);
        if (Double.isNaN(first) && sb.indexOf("\"text\":\"") >= 0) {
          first = (System.nanoTime() - t0) / 1e6;
        }
      }
    }
    return first;
  }

  private interface Timed {
    Object run() throws Exception;
  }

  private static List<Double> times(int n, Timed what) throws Exception {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      Object v = what.run();
      ms.add(v instanceof Double d ? d : (System.nanoTime() - t0) / 1e6);
    }
    return ms;
  }

  private void row(String name, List<Double> idle, List<Double> busy) {
    o.printf(
        "| %s | %.1f | %.1f | %.1f | %.1f |%n",
        name,
        Percentile.of(idle, 0.5),
        Percentile.of(idle, 0.99),
        Percentile.of(busy, 0.5),
        Percentile.of(busy, 0.99));
  }

  private static void put(ObjectNode r, String name, List<Double> ms) {
    ObjectNode n = r.putObject(name);
    n.put("n", ms.size());
    n.put("p50", Percentile.of(ms, 0.5));
    n.put("p99", Percentile.of(ms, 0.99));
    n.put("max", ms.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
  }

  /** A value of the server's {@code /metrics} (the first series of that name). */
  private double metric(String name) throws Exception {
    String m =
        http.send(
                HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher x =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(m);
    return x.find() ? Double.parseDouble(x.group(2)) : Double.NaN;
  }

  /** This process's resident memory in KB (the server's, when it runs here); -1 when not known. */
  private long rssKb() {
    if (server == null) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
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

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
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

  private static String message(Reply r) {
    try {
      return Json.MAPPER.readTree(r.body).at("/error/message").asText("");
    } catch (IOException e) {
      return "";
    }
  }

  /** A raw HTTP exchange. */
  private record Reply(int status, String head, byte[] body) {}

  private Reply postJson(String body) throws IOException {
    return post("/v1/completions", "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  private Reply post(String path, String contentType, byte[] body) throws IOException {
    return exchange(request(path, contentType, body));
  }

  private byte[] request(String path, String contentType, byte[] body) {
    byte[] h =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + ":"
                + port
                + "\r\nContent-Type: "
                + contentType
                + "\r\nContent-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[h.length + body.length];
    System.arraycopy(h, 0, all, 0, h.length);
    System.arraycopy(body, 0, all, h.length, body.length);
    return all;
  }

  private Reply exchange(byte[] request) throws IOException {
    try (Socket s = new Socket(host, port)) {
      s.setSoTimeout(120_000);
      try {
        s.getOutputStream().write(request);
        s.getOutputStream().flush();
      } catch (IOException e) {
        // the server may answer (431) and close before the whole request is written: read what it
        // sent
      }
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[8192];
      try {
        for (int r; (r = in.read(buf)) > 0; ) {
          all.write(buf, 0, r);
          if (complete(all.toByteArray())) {
            break;
          }
        }
      } catch (IOException e) {
        // a reset after the answer
      }
      byte[] bytes = all.toByteArray();
      String text = new String(bytes, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        return new Reply(-1, text, new byte[0]);
      }
      String head = text.substring(0, end);
      int status = Integer.parseInt(head.split(" ")[1]);
      return new Reply(status, head, Arrays.copyOfRange(bytes, end + 4, bytes.length));
    }
  }

  private static boolean complete(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    Matcher m = Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(text.substring(0, end));
    return m.find() && bytes.length >= end + 4 + Integer.parseInt(m.group(1));
  }
}
