package dev.leap.server;

import dev.leap.runtime.LeapRuntime;
import dev.leap.server.chat.ChatTemplate;
import dev.leap.server.chat.ChatTemplateException;
import dev.leap.server.http.ApiHandler;
import dev.leap.server.openai.Completions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
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

  /**
   * Server settings.
   *
   * @param allowedHosts names the {@code Host} header may carry besides those of the bind address
   *     (a loopback bind answers to {@code localhost}, {@code 127.0.0.1} and {@code ::1}; a
   *     wildcard bind to any name unless this list is given); {@code "*"} allows any
   * @param maxConnections open connections at most; past it the server stops accepting until one
   *     closes
   * @param bodyTimeoutMs longest wait for the next bytes of a request body before a 408
   * @param maxRequestTokens most output tokens one request may ask for, {@code n x max_tokens}
   * @param maxRequestKv most KV slots one request may hold: {@code n x (prompt + max_tokens)}, 0
   *     for half the runtime's KV capacity
   */
  public record Options(
      String host,
      int port,
      String apiKey,
      String modelName,
      long maxBodyBytes,
      int maxInFlight,
      long idleTimeoutMs,
      long stopTimeoutMs,
      List<String> allowedHosts,
      int maxConnections,
      long bodyTimeoutMs,
      int maxRequestTokens,
      int maxRequestKv) {
    public static final int DEFAULT_MAX_CONNECTIONS = 16_384;
    public static final long DEFAULT_BODY_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_REQUEST_TOKENS = 16_384;

    public static Options defaults() {
      return new Options(
          "127.0.0.1",
          8000,
          null,
          null,
          8L << 20,
          512,
          300_000,
          30_000,
          List.of(),
          DEFAULT_MAX_CONNECTIONS,
          DEFAULT_BODY_TIMEOUT_MS,
          DEFAULT_MAX_REQUEST_TOKENS,
          0);
    }

    public Options withPort(int p) {
      return with(o -> o.port = p);
    }

    public Options withApiKey(String key) {
      return with(o -> o.apiKey = key);
    }

    public Options withAllowedHosts(List<String> hosts) {
      return with(o -> o.allowedHosts = hosts);
    }

    /** Connections, in-flight requests and the body-read timeout. */
    public Options withLimits(int connections, int inFlight, long bodyMs) {
      return with(
          o -> {
            o.maxConnections = connections;
            o.maxInFlight = inFlight;
            o.bodyTimeoutMs = bodyMs;
          });
    }

    /** The per-request budget: {@code n x max_tokens} and KV slots. */
    public Options withBudget(int requestTokens, int requestKv) {
      return with(
          o -> {
            o.maxRequestTokens = requestTokens;
            o.maxRequestKv = requestKv;
          });
    }

    /** A copy with {@code change} applied to its fields. */
    private Options with(Consumer<Fields> change) {
      Fields f = new Fields(this);
      change.accept(f);
      return f.options();
    }

    /** The fields of an {@link Options}, to change some of them in a copy. */
    private static final class Fields {
      String host;
      int port;
      String apiKey;
      String modelName;
      long maxBodyBytes;
      int maxInFlight;
      long idleTimeoutMs;
      long stopTimeoutMs;
      List<String> allowedHosts;
      int maxConnections;
      long bodyTimeoutMs;
      int maxRequestTokens;
      int maxRequestKv;

      Fields(Options o) {
        host = o.host;
        port = o.port;
        apiKey = o.apiKey;
        modelName = o.modelName;
        maxBodyBytes = o.maxBodyBytes;
        maxInFlight = o.maxInFlight;
        idleTimeoutMs = o.idleTimeoutMs;
        stopTimeoutMs = o.stopTimeoutMs;
        allowedHosts = o.allowedHosts;
        maxConnections = o.maxConnections;
        bodyTimeoutMs = o.bodyTimeoutMs;
        maxRequestTokens = o.maxRequestTokens;
        maxRequestKv = o.maxRequestKv;
      }

      Options options() {
        return new Options(
            host,
            port,
            apiKey,
            modelName,
            maxBodyBytes,
            maxInFlight,
            idleTimeoutMs,
            stopTimeoutMs,
            allowedHosts,
            maxConnections,
            bodyTimeoutMs,
            maxRequestTokens,
            maxRequestKv);
      }
    }
  }

  /** The Host names a server bound to {@code bind} answers to, plus {@code extra}; null for any. */
  static Set<String> allowedHosts(String bind, List<String> extra) {
    Set<String> names = new LinkedHashSet<>();
    for (String e : extra == null ? List.<String>of() : extra) {
      if (e.trim().equals("*")) {
        return null;
      }
      names.add(ApiHandler.hostName(e));
    }
    InetAddress a;
    try {
      a = InetAddress.getByName(bind);
    } catch (UnknownHostException e) {
      a = null;
    }
    if (a != null && a.isAnyLocalAddress()) {
      return extra == null || extra.isEmpty() ? null : withLoopback(names);
    }
    names.add(ApiHandler.hostName(bind));
    if (a != null) {
      names.add(ApiHandler.hostName(a.getHostAddress()));
    }
    return withLoopback(names);
  }

  private static Set<String> withLoopback(Set<String> names) {
    names.add("localhost");
    names.add("127.0.0.1");
    names.add("::1");
    names.add("0:0:0:0:0:0:0:1");
    return names;
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
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false); // no Server header: a version invites matching exploits
    http.setSendXPoweredBy(false);
    this.connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(o.host());
    connector.setPort(o.port());
    connector.setIdleTimeout(o.idleTimeoutMs());
    server.addConnector(connector);
    // Past maxConnections the server stops accepting until one closes (the backlog holds the rest).
    server.addBean(new NetworkConnectionLimit(o.maxConnections(), server));
    this.handler =
        new ApiHandler(
            completions,
            runtime,
            o.apiKey(),
            o.maxBodyBytes(),
            o.maxInFlight(),
            allowedHosts(o.host(), o.allowedHosts()),
            o.bodyTimeoutMs(),
            o.maxRequestTokens(),
            o.maxRequestKv());
    server.setHandler(handler);
    server.setErrorHandler(ApiHandler.errorHandler());
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
