package dev.leap.bench.serve;

import static dev.leap.bench.serve.AbuseRequests.PHONE;
import static dev.leap.bench.serve.AbuseRequests.phoneBody;
import static dev.leap.bench.serve.AbuseTimings.put;
import static dev.leap.bench.serve.AbuseTimings.row;
import static dev.leap.bench.serve.AbuseTimings.times;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import java.io.PrintWriter;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The <b>stalled</b> scenario of {@code leap bench abuse}: {@code stalled} connections each send a
 * POST's headers and 5 bytes of its 100-byte body, then wait; meanwhile {@code /health} and a small
 * regex-constrained completion are timed (p50/p99) against the same measured idle, and then each
 * connection is checked for still being held open (no answer yet) rather than answered (a 408).
 *
 * <p>Invariant: every stalled socket is closed before it returns, whatever happened.
 */
final class StalledUploads {
  private StalledUploads() {}

  static ObjectNode run(AbuseClient c, PrintWriter o, int samples, int stalled) throws Exception {
    o.printf(
        "%n## %d stalled uploads (headers and 5 of 100 body bytes, then nothing)%n%n", stalled);
    ObjectNode r = Json.MAPPER.createObjectNode();
    List<Double> idleHealth = times(samples, c::health);
    List<Double> idleCompletion =
        times(Math.max(5, samples / 5), () -> c.completion(phoneBody(PHONE)));
    List<Socket> held = new ArrayList<>();
    byte[] head =
        ("POST /v1/completions HTTP/1.1\r\nHost: "
                + c.host
                + ":"
                + c.port
                + "\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100\r\n\r\n{\"mod")
            .getBytes(StandardCharsets.US_ASCII);
    List<Double> busyHealth;
    List<Double> busyCompletion;
    int stillOpen = 0;
    try {
      for (int i = 0; i < stalled; i++) {
        Socket s = new Socket(c.host, c.port);
        s.getOutputStream().write(head);
        s.getOutputStream().flush();
        held.add(s);
      }
      Thread.sleep(500);
      busyHealth = times(samples, c::health);
      busyCompletion = times(Math.max(5, samples / 5), () -> c.completion(phoneBody(PHONE)));
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
    row(o, "/health (ms)", idleHealth, busyHealth);
    row(o, "small regex completion (ms)", idleCompletion, busyCompletion);
    o.printf(
        "%nstill held open after measuring: %d of %d; completion p99 ratio %.2fx%n",
        stillOpen, stalled, r.get("completionP99Ratio").asDouble());
    o.flush();
    return r;
  }
}
