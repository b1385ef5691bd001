package dev.leap.bench.xgrammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The Node process running XGrammar ({@code bench/xgrammar/side.mjs}): one JSON command per line
 * in, one reply per line out. A case that does not answer within its limit (plus time for its
 * instances) is counted as over the limit; the process is then ended and started again.
 */
final class XGrammarProcess implements AutoCloseable {
  private final String node;
  private final Path script;
  private final ObjectMapper m;
  private Process process;
  private BlockingQueue<String> lines;
  private Path loaded;
  private boolean cache = true;

  XGrammarProcess(String node, Path script, ObjectMapper m) throws IOException {
    this.node = node;
    this.script = script;
    this.m = m;
    start();
  }

  private void start() throws IOException {
    process =
        new ProcessBuilder(node, script.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BlockingQueue<String> q = new LinkedBlockingQueue<>();
    lines = q;
    Process p = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  // Replies are JSON objects; anything else (a warning printed by the module
                  // despite side.mjs) is passed on to stderr, not taken for a reply.
                  if (line.startsWith("{")) {
                    q.add(line);
                  } else {
                    System.err.println("xgrammar: " + line);
                  }
                }
              } catch (IOException ignored) {
                // the process ended
              }
              q.add("{\"ok\":false,\"error\":\"node exited\"}");
            },
            "xgrammar-reader");
    reader.setDaemon(true);
    reader.start();
  }

  private JsonNode call(String json, long timeoutS) throws IOException, InterruptedException {
    OutputStream os = process.getOutputStream();
    os.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    os.flush();
    String line = lines.poll(timeoutS, TimeUnit.SECONDS);
    return line == null ? null : m.readTree(line);
  }

  /**
   * Loads the inputs file's vocabulary; returns XGrammar's set-up time (TokenizerInfo and
   * GrammarCompiler) in ms. With {@code cache} false, XGrammar's compiled-grammar cache is off (a
   * case run again is compiled again), for this vocabulary and after a restart.
   */
  double loadVocabulary(Path inputs, boolean cache) throws IOException, InterruptedException {
    loaded = inputs;
    this.cache = cache;
    JsonNode r =
        call(
            "{\"cmd\":\"vocab\",\"inputs\":"
                + m.writeValueAsString(inputs.toString())
                + (cache ? "" : ",\"cache\":false")
                + "}",
            600);
    if (r == null || !r.has("setupMs")) {
      throw new IllegalStateException("xgrammar vocabulary set-up failed: " + r);
    }
    return r.get("setupMs").asDouble();
  }

  Outcome run(int index, Path inputs, int limitS) throws IOException, InterruptedException {
    Outcome o = new Outcome();
    JsonNode r = call("{\"cmd\":\"case\",\"index\":" + index + "}", limitS + 60L);
    if (r == null) {
      o.error = "over " + limitS + " s (no answer)";
      restart();
      return o;
    }
    if (!r.path("ok").asBoolean()) {
      o.error = r.path("error").asText();
      if (o.error.equals("node exited")) {
        restart();
      }
      return o;
    }
    o.compileMs = r.get("compileMs").asDouble();
    o.firstMaskMs = r.get("firstMaskMs").asDouble();
    if (o.compileMs > limitS * 1000.0) {
      o.error = "over " + limitS + " s";
      return o;
    }
    o.compiled = true;
    for (JsonNode in : r.get("instances")) {
      o.accepted.add(in.get("accepted").asBoolean());
      o.rejectedAt.add(in.get("rejectedAt").asInt());
      o.forcedBytes.add(in.get("forcedBytes").asInt());
      o.acceptsText.add(in.path("acceptsText").asBoolean());
      for (JsonNode us : in.get("maskUs")) {
        o.maskUs.add(us.asDouble());
      }
    }
    return o;
  }

  private void restart() throws IOException, InterruptedException {
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    start();
    loadVocabulary(loaded, cache);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      process.getOutputStream().write("{\"cmd\":\"quit\"}\n".getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
