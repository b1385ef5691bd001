package dev.leap.bench.serve;

import dev.leap.bench.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server under {@code leap bench abuse}, as its scenarios talk to it: well-formed requests
 * through {@link HttpClient} (timed {@code /health}, completions, the time to a streamed request's
 * first text, one {@code /metrics} value) and raw HTTP/1.1 exchanges on a socket of its own for
 * what a well-behaved client cannot send (bad headers, bad bytes, a connection closed mid-request).
 *
 * <p>Invariants: {@code base} has no trailing slash and no {@code /v1}; every raw exchange sends
 * {@code Connection: close} unless its caller wrote the request itself, and reads the answer up to
 * its {@code Content-Length} (or to the end of the stream), so a {@link Reply} is one answer. The
 * process's memory is known only when the server runs in this process ({@code inProcess}).
 */
final class AbuseClient {
  /** A raw HTTP exchange: the status (-1 when no header came back), the header block, the body. */
  record Reply(int status, String head, byte[] body) {}

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(30))
          .build();
  final String base;
  final String host;
  final int port;
  final boolean inProcess;

  /**
   * @param base the server's root URL, {@code http://host:port} without a trailing slash
   * @param inProcess whether the server runs in this process (its RSS is this process's)
   */
  AbuseClient(String base, boolean inProcess) {
    this.base = base;
    URI u = URI.create(base);
    this.host = u.getHost();
    this.port = u.getPort();
    this.inProcess = inProcess;
  }

  Void health() throws Exception {
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

  Void completion(String body) throws Exception {
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
  double ttft(String body) throws Exception {
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

  /** A value of the server's {@code /metrics} (the first series of that name). */
  double metric(String name) throws Exception {
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
  long rssKb() {
    if (!inProcess) {
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

  /** The error message of an OpenAI-shaped error body; empty when there is none. */
  static String message(Reply r) {
    try {
      return Json.MAPPER.readTree(r.body).at("/error/message").asText("");
    } catch (IOException e) {
      return "";
    }
  }

  Reply postJson(String body) throws IOException {
    return post("/v1/completions", "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  Reply post(String path, String contentType, byte[] body) throws IOException {
    return exchange(request(path, contentType, body));
  }

  /** The bytes of a POST with {@code Connection: close}. */
  byte[] request(String path, String contentType, byte[] body) {
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

  /** Sends {@code request} as it is on a new connection and reads one answer. */
  Reply exchange(byte[] request) throws IOException {
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
