package dev.leap.server;

import dev.leap.options.RuntimeOptionsMixin;
import dev.leap.runtime.LeapRuntime;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code leap serve}: the OpenAI-compatible server on a model directory or the demo model. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description =
        "Serve the OpenAI API (/v1/completions, /v1/chat/completions, /v1/models, /health) with Leap's constraints.")
public final class ServeCommand implements Callable<Integer> {
  /** Made by {@code leap}'s command line, by class name. */
  public ServeCommand() {}

  @Spec CommandSpec spec;

  @Mixin RuntimeOptionsMixin runtimeOptions;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to bind. Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(
      names = "--port",
      defaultValue = "8000",
      description = "Port (0: a free one). Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(
      names = "--api-key",
      description = "Require 'Authorization: Bearer KEY' (default: no key). Also LEAP_API_KEY.")
  String apiKey;

  @Option(
      names = "--served-model-name",
      description = "The model's name in the API. Default: the directory's name.")
  String servedName;

  @Option(
      names = "--kv-capacity",
      defaultValue = "32768",
      description = "KV cache slots (tokens). Default: ${DEFAULT-VALUE}.")
  int kvCapacity;

  @Option(
      names = "--max-batch",
      defaultValue = "64",
      description = "Sequences per forward pass. Default: ${DEFAULT-VALUE}.")
  int maxBatch;

  @Option(
      names = "--max-in-flight",
      defaultValue = "512",
      description = "Requests at once before 503. Default: ${DEFAULT-VALUE}.")
  int maxInFlight;

  @Option(
      names = "--max-body-bytes",
      defaultValue = "8388608",
      description = "Largest request body (413 above). Default: ${DEFAULT-VALUE}.")
  long maxBody;

  @Option(
      names = "--allowed-hosts",
      split = ",",
      paramLabel = "NAME[,NAME...]",
      description =
          "Host header names accepted besides the bind address's (a loopback bind: localhost, 127.0.0.1, ::1); '*' for any. Other names get 403 (DNS rebinding).")
  List<String> allowedHosts = new ArrayList<>();

  @Option(
      names = "--max-connections",
      defaultValue = "16384",
      description =
          "Open connections at most; past it new ones wait in the accept backlog. Default: ${DEFAULT-VALUE}.")
  int maxConnections;

  @Option(
      names = "--body-timeout-ms",
      defaultValue = "10000",
      description =
          "Longest time to receive a request body (408 past it; a stalled upload holds a connection, never a thread). Default: ${DEFAULT-VALUE}.")
  long bodyTimeoutMs;

  @Option(
      names = "--max-request-tokens",
      defaultValue = "16384",
      description =
          "Most output tokens one request may ask for, n x max_tokens (400 above; a default max_tokens is lowered to fit). Default: ${DEFAULT-VALUE}.")
  int maxRequestTokens;

  @Option(
      names = "--max-request-kv",
      defaultValue = "0",
      description =
          "Most KV slots one request may hold, n x (prompt + max_tokens) (400 above). Default: half of --kv-capacity.")
  int maxRequestKv;

  @Option(
      names = "--small-request-reserve",
      defaultValue = "-1",
      description =
          "KV slots kept for small requests (those needing at most a quarter of it), so they start while big ones run; 0: none. Default: an eighth of --kv-capacity.")
  int smallReserve;

  @Option(
      names = "--compile-threads",
      defaultValue = "2",
      description =
          "Threads compiling constraints, shared by all requests. Default: ${DEFAULT-VALUE}.")
  int compileThreads;

  @Option(
      names = "--compile-timeout-ms",
      defaultValue = "10000",
      description =
          "Time limit of one constraint's compilation (400 naming it past that; 0: none). Default: ${DEFAULT-VALUE}.")
  long compileTimeoutMs;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port must be within 0..65535, got " + port);
    }
    String key = apiKey != null ? apiKey : System.getenv("LEAP_API_KEY");
    Path dir = runtimeOptions.modelDir(err);
    LeapRuntime runtime =
        runtimeOptions
            .configure(LeapRuntime.builder().setModelDir(dir))
            .optKvCapacity(kvCapacity)
            .optMaxBatch(maxBatch)
            .optSmallRequestReserve(smallReserve)
            .optCompileThreads(compileThreads)
            .optCompileTimeoutMs(compileTimeoutMs)
            .build();
    String name =
        servedName != null
            ? servedName
            : "demo".equals(runtimeOptions.model()) ? "leap-demo" : null;
    LeapServer.Options d = LeapServer.Options.defaults();
    LeapServer.Options o =
        new LeapServer.Options(
            host,
            port,
            key,
            name,
            maxBody,
            maxInFlight,
            300_000,
            30_000,
            allowedHosts,
            maxConnections,
            bodyTimeoutMs,
            maxRequestTokens,
            maxRequestKv);
    LeapServer server = new LeapServer(runtime, o).start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (Exception e) {
                    // stopping anyway
                  }
                },
                "leap-serve-stop"));
    err.printf(
        "leap serve: %s on http://%s:%d/v1 (%s)%n",
        dir, host, server.port(), key == null ? "no API key" : "API key required");
    err.flush();
    server.join();
    return 0;
  }
}
