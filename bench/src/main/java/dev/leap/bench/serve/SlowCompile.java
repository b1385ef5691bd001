package dev.leap.bench.serve;

import static dev.leap.bench.serve.AbuseRequests.PHONE;
import static dev.leap.bench.serve.AbuseRequests.phoneBody;
import static dev.leap.bench.serve.AbuseTimings.put;
import static dev.leap.bench.serve.AbuseTimings.times;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The <b>slowCompile</b> scenario of {@code leap bench abuse}: trivial regex requests (each a new
 * regex, so each compiles: the phone regex behind a forced five-digit tag, the same cost each time)
 * idle and while a grammar that takes seconds to compile ({@link AbuseRequests#slowGrammar()}: 900
 * stack rules of bounded repetitions) is compiled for one request.
 *
 * <p>What it exercises: one constraint whose compilation no size limit stops (each rule is small;
 * together they are slow) holds a compile thread for seconds, until it is done or the server's
 * {@code --compile-timeout-ms} (10 s by default) stops it; meanwhile other requests' constraints
 * compile on the compile pool's other thread ({@code --compile-threads}, 2 by default), so their
 * latency should stay near idle's. The slow request's status, time and message are reported as they
 * come (a 200 when it compiled within the limit, an error naming the time limit when not).
 *
 * <p>The tags come from one counter for the idle and the busy samples alike, so no trivial regex is
 * ever a cache hit; at most 200 trivial requests are sent while the slow one runs.
 */
final class SlowCompile {
  private SlowCompile() {}

  static ObjectNode run(AbuseClient c, PrintWriter o, int samples) throws Exception {
    o.printf("%n## a slow grammar compiling%n%n");
    ObjectNode r = Json.MAPPER.createObjectNode();
    // A new regex each time (so each compiles), all of the same cost: a forced five-digit tag
    // before the phone
    // number, drawn from one counter for the idle and the busy samples alike.
    int[] next = {0};
    AbuseTimings.Timed trivial =
        () -> {
          c.completion(phoneBody(String.format("#%05d ", next[0]++) + PHONE));
          return null;
        };
    List<Double> idle = times(samples, trivial);
    String body = AbuseRequests.slowGrammarBody();
    long t0 = System.nanoTime();
    CompletableFuture<AbuseClient.Reply> slow =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return c.post(
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
    AbuseClient.Reply s = slow.join();
    double slowMs = (System.nanoTime() - t0) / 1e6;
    r.put("slowRequest", "GBNF, 900 stack rules of bounded repetitions of 4,000+ letters");
    r.put("slowStatus", s.status());
    r.put("slowMs", slowMs);
    r.put("slowMessage", AbuseClient.message(s));
    put(r, "trivialIdleMs", idle);
    put(r, "trivialDuringMs", during);
    r.put("trivialP50Ratio", Percentile.of(during, 0.5) / Percentile.of(idle, 0.5));
    r.put("trivialP99Ratio", Percentile.of(during, 0.99) / Percentile.of(idle, 0.99));
    o.printf(
        "slow grammar: %d after %.0f ms (%s)%n",
        s.status(),
        slowMs,
        s.status() == 200 ? "compiled within the compile time limit" : AbuseClient.message(s));
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
}
