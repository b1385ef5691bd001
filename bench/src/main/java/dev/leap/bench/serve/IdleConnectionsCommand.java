package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench idle}: many idle connections against a running {@code leap serve}. Opens {@code
 * --connections} TCP connections (every other one sends the first lines of a request and then
 * nothing, as a slow client would), and while they are all held asks for {@code /health} and a
 * constrained completion, checking that both answer, how fast, and that the output is valid; then
 * counts how many of the held connections the server still keeps open, closes them and asks again.
 * Runs against a server in another process ({@code --url}), so that the connections' two ends do
 * not share one process's file-descriptor limit.
 */
@Command(
    name = "idle",
    mixinStandardHelpOptions = true,
    description =
        "Hold many idle (and half-sent) connections open against a running leap serve while it answers.")
public final class IdleConnectionsCommand implements Callable<Integer> {
  private static final String PHONE = "\\([0-9]{3}\\) [0-9]{3}-[0-9]{4}";
  @Spec CommandSpec spec;

  @Option(names = "--url", required = true, description = "The server, e.g. http://127.0.0.1:8000.")
  String url;

  @Option(
      names = "--connections",
      defaultValue = "10000",
      description = "Default: ${DEFAULT-VALUE}.")
  int connections;

  @Option(
      names = "--hold-seconds",
      defaultValue = "10",
      description = "How long to hold them before counting. Default: ${DEFAULT-VALUE}.")
  int holdSeconds;

  @Option(
      names = "--out",
      defaultValue = "bench-results/idle.json",
      description = "Default: ${DEFAULT-VALUE}.")
  Path out;

  @Override
  public Integer call() throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    URI base = URI.create(url);
    InetSocketAddress address =
        new InetSocketAddress(base.getHost(), base.getPort() < 0 ? 80 : base.getPort());
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    ObjectNode report = Json.MAPPER.createObjectNode();
    report.put("benchmark", "idle-connections");
    report.put("requested", connections);
    List<SocketChannel> held = new ArrayList<>(connections);
    String openError = null;
    long t0 = System.nanoTime();
    byte[] partial =
        ("POST /v1/completions HTTP/1.1\r\nHost: " + address.getHostString() + "\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    try {
      for (int i = 0; i < connections; i++) {
        try {
          SocketChannel ch = SocketChannel.open(address);
          if (i % 2 == 1) {
            ch.write(ByteBuffer.wrap(partial));
          }
          held.add(ch);
        } catch (IOException e) {
          openError = "connection " + (i + 1) + ": " + e.getMessage();
          break;
        }
      }
      report.put("opened", held.size());
      report.put("openMs", (System.nanoTime() - t0) / 1e6);
      if (openError != null) {
        report.put("openError", openError);
      }
      o.printf(
          "opened %,d of %,d connections in %.0f ms%s%n",
          held.size(),
          connections,
          (System.nanoTime() - t0) / 1e6,
          openError == null ? "" : " (stopped at " + openError + ")");
      o.flush();
      check(http, o, report.putObject("whileHeld"));
      Thread.sleep(holdSeconds * 1000L);
      int open = 0;
      for (SocketChannel ch : held) {
        ch.configureBlocking(false);
        if (ch.read(ByteBuffer.allocate(512)) >= 0) {
          open++; // nothing to read yet (0): still open; -1 would be the server's close
        }
      }
      report.put("stillOpenAfterHold", open);
      o.printf("after %d s, %,d of them still open%n", holdSeconds, open);
      check(http, o, report.putObject("afterHold"));
    } finally {
      for (SocketChannel ch : held) {
        try {
          ch.close();
        } catch (IOException ignored) {
          // closing anyway
        }
      }
    }
    check(http, o, report.putObject("afterClose"));
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report.toPrettyString());
    o.println("wrote " + out);
    boolean ok =
        report.path("whileHeld").path("ok").asBoolean()
            && report.path("afterClose").path("ok").asBoolean();
    return ok ? 0 : 1;
  }

  /** {@code /health} and one constrained completion: status, time, validity. */
  private void check(HttpClient http, PrintWriter o, ObjectNode r) throws InterruptedException {
    try {
      long t0 = System.nanoTime();
      HttpResponse<String> h =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "/health"))
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      r.put("healthStatus", h.statusCode());
      r.put("healthMs", (System.nanoTime() - t0) / 1e6);
      String body =
          "{\"prompt\": \"Phone: \", \"max_tokens\": 20, \"temperature\": 0, \"regex\": \""
              + PHONE.replace("\\", "\\\\")
              + "\"}";
      t0 = System.nanoTime();
      HttpResponse<String> c =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "/v1/completions"))
                  .header("Content-Type", "application/json")
                  .timeout(Duration.ofSeconds(120))
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      r.put("completionStatus", c.statusCode());
      r.put("completionMs", (System.nanoTime() - t0) / 1e6);
      String text =
          c.statusCode() == 200
              ? Json.MAPPER.readTree(c.body()).path("choices").path(0).path("text").asText()
              : c.body();
      boolean valid = c.statusCode() == 200 && Pattern.matches(PHONE, text);
      r.put("text", text);
      r.put("ok", h.statusCode() == 200 && valid);
      o.printf(
          "  /health %d in %.0f ms; completion %d in %.0f ms: %s (%s)%n",
          h.statusCode(),
          r.get("healthMs").asDouble(),
          c.statusCode(),
          r.get("completionMs").asDouble(),
          text,
          valid ? "valid" : "NOT valid");
    } catch (IOException e) {
      r.put("ok", false);
      r.put("error", e.toString());
      o.println("  request failed: " + e);
    }
    o.flush();
  }
}
