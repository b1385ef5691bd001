package dev.leap.server;

import dev.leap.runtime.LeapRuntime;
import dev.leap.server.chat.ChatTemplate;
import dev.leap.server.chat.ChatTemplateException;
import dev.leap.server.http.ApiHandler;
import dev.leap.server.openai.Completions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An OpenAI-compatible HTTP server over one {@link LeapRuntime} (Jetty 12 core): every connection's
 * requests share the runtime's continuous batching and radix cache. {@link #start} binds the port
 * ({@code 0} picks a free one, see {@link #port}); {@link #close} stops accepting, lets the
 * requests in flight finish for up to {@code stopTimeoutMs}, then closes the runtime.
 */
public final class LeapServer implements AutoCloseable {
  private final LeapRuntime runtime;
  private final Server server;
  private final ServerConnector connector;
  private final ApiHandler handler;
  private final String modelName;

  /** Server settings. */
  public record Options(String host, int port, String apiKey, String modelName, long maxBodyBytes, int maxInFlight,
      long idleTimeoutMs, long stopTimeoutMs) {
    public static Options defaults() {
      return new Options("127.0.0.1", 8000, null, null, 8L << 20, 512, 300_000, 30_000);
    }

    public Options withPort(int p) {
      return new Options(host, p, apiKey, modelName, maxBodyBytes, maxInFlight, idleTimeoutMs, stopTimeoutMs);
    }

    public Options withApiKey(String key) {
      return new Options(host, port, key, modelName, maxBodyBytes, maxInFlight, idleTimeoutMs, stopTimeoutMs);
    }
  }

  public LeapServer(LeapRuntime runtime, Options o) {
    this.runtime = runtime;
    String name = o.modelName() != null ? o.modelName() : defaultName(runtime.modelDir());
    this.modelName = name;
    ChatTemplate template = null;
    if (Files.exists(runtime.modelDir().resolve("tokenizer_config.json"))) {
      try {
        template = ChatTemplate.fromModelDir(runtime.modelDir());
      } catch (ChatTemplateException e) {
        template = null; // chat requests answer 400 naming the missing template
      }
    }
    Completions completions = new Completions(runtime, name, template, runtime.contextLength());
    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setName("leap-http");
    this.server = new Server(threads);
    this.connector = new ServerConnector(server);
    connector.setHost(o.host());
    connector.setPort(o.port());
    connector.setIdleTimeout(o.idleTimeoutMs());
    server.addConnector(connector);
    this.handler = new ApiHandler(completions, runtime, o.apiKey(), o.maxBodyBytes(), o.maxInFlight());
    server.setHandler(handler);
    server.setStopTimeout(o.stopTimeoutMs());
  }

  private static String defaultName(Path dir) {
    Path f = dir.getFileName();
    return f == null ? "leap" : f.toString();
  }

  /** Binds and starts serving. */
  public LeapServer start() throws Exception {
    server.start();
    return this;
  }

  /** The model's name in the API. */
  public String modelName() {
    return modelName;
  }

  /** Requests accepted and not yet answered. */
  public int inFlight() {
    return handler.inFlight();
  }

  /** The bound port. */
  public int port() {
    return connector.getLocalPort();
  }

  public void join() throws InterruptedException {
    server.join();
  }

  @Override
  public void close() throws Exception {
    try {
      server.stop();
    } finally {
      runtime.close();
    }
  }
}
