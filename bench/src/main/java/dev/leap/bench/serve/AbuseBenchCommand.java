package dev.leap.bench.serve;

import static dev.leap.bench.serve.AbuseRequests.PHONE;
import static dev.leap.bench.serve.AbuseRequests.phoneBody;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.LeapServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
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
 *   <li><b>heavy</b>: the request (prompt of 2,000 tokens, {@code n} 16, {@code max_tokens}
 *       2,096) is sent (its status: over the budget); then the biggest request within the default
 *       budget (n 4, 2,000 prompt tokens, 2,000 output tokens, non-streamed) runs while small
 *       streamed requests measure their time to first token; the process RSS is sampled; then the
 *       big request's client closes its connection and the forward passes until the server has
 *       dropped it are counted;
 *   <li><b>slowCompile</b>: trivial regex requests (each a new regex, so each compiles: the phone
 *       regex behind a forced five-digit tag, the same cost each time) idle and while a GBNF
 *       grammar of 900 stack rules of bounded repetitions compiles for seconds (only the compile
 *       time limit can end it; no size limit stops it early);
 *   <li><b>hostile</b>: each hostile case's status, whether it has OpenAI's shape, a {@code Server}
 *       header, and how many characters of the input its body quotes (the longest run of the
 *       input's filler character).
 * </ol>
 *
 * Prints a table per part and writes the JSON to {@code --out}. One class per part ({@link
 * StalledUploads}, {@link HeavyRequest}, {@link SlowCompile}, {@link HostileInput}); the HTTP and
 * raw-socket plumbing in {@link AbuseClient}, the request bodies in {@link AbuseRequests}, the
 * timing and its summaries in {@link AbuseTimings}.
 */
@Command(
    name = "abuse",
    mixinStandardHelpOptions = true,
    description =
        "Stalled uploads, a heavy request, a slow compile and hostile input against a live leap serve (issue 29).")
public final class AbuseBenchCommand implements Callable<Integer> {
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

  @Override
  public Integer call() throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    LeapServer server = null;
    try {
      String base;
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
      AbuseClient c = new AbuseClient(base, server != null);
      ObjectNode report = Json.MAPPER.createObjectNode();
      report.put("benchmark", "abuse");
      report.put("server", url == null ? "in-process, demo model" : base);
      report.put("loadAverage", loadAverage());
      warmUp(c);
      report.set("stalled", StalledUploads.run(c, o, samples, stalled));
      report.set("heavy", HeavyRequest.run(c, o, samples));
      report.set("slowCompile", SlowCompile.run(c, o, samples));
      report.set("hostile", HostileInput.run(c, o));
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

  /** The JIT and the server's caches warm, so that "idle" is not "cold". */
  private static void warmUp(AbuseClient c) throws Exception {
    for (int i = 0; i < 20; i++) {
      c.completion(phoneBody(PHONE));
      c.health();
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
