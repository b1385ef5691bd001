package dev.leap.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.runtime.GenerationHandle;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.openai.ApiError;
import dev.leap.server.openai.Completions;
import dev.leap.server.openai.Json;
import dev.leap.server.openai.RequestBody;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI-compatible routes on Jetty's core API: {@code POST /v1/completions}, {@code POST
 * /v1/chat/completions}, {@code GET /v1/models}, {@code GET /health}, {@code GET /metrics} ({@link
 * Metrics}, without the API key, as vLLM serves it). Requests are handled asynchronously: the
 * handler submits to the runtime and returns; the response is written when the runtime's future
 * completes (on the runtime's callback threads, never the scheduler), so no server thread waits on
 * a generation. A connection that fails (the client went away) cancels its requests, whose KV slots
 * the runtime frees at its next step.
 *
 * <p>Checks, in order: the {@code Host} header names this server (403: DNS rebinding), the key when
 * one is set (401, compared in constant time), a {@code POST} body declared {@code
 * application/json} (415: a web page's cross-origin "simple" request cannot), the body read as it
 * arrives ({@link BodyReader}: 413 past {@code maxBodyBytes}, 408 past {@code bodyTimeoutMs}) and
 * parsed strictly ({@code RequestBody}), the request within its budget ({@code n x max_tokens}, KV
 * slots: 400), at most {@code maxInFlight} requests at once (503 with {@code Retry-After}). Every
 * error has OpenAI's shape; an unexpected failure is a 500 whose text names no exception (the log
 * has it).
 */
public final class ApiHandler extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);
  private final Completions completions;
  private final byte[] apiKey;
  private final Set<String> allowedHosts;
  private final long maxBodyBytes;
  private final int maxInFlight;
  private final long bodyTimeoutMs;
  private final int maxRequestTokens;
  private final int maxRequestKv;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean failed;
  private final Metrics metrics;

  /**
   * {@code allowedHosts}: the names (lower case, without port) a request's {@code Host} header may
   * carry; null accepts any.
   */
  public ApiHandler(
      Completions completions,
      LeapRuntime runtime,
      String apiKey,
      long maxBodyBytes,
      int maxInFlight,
      Set<String> allowedHosts,
      long bodyTimeoutMs,
      int maxRequestTokens,
      int maxRequestKv) {
    this.bodyTimeoutMs = bodyTimeoutMs;
    this.maxRequestTokens = maxRequestTokens;
    this.maxRequestKv = maxRequestKv > 0 ? maxRequestKv : Math.max(1, runtime.kvCapacity() / 2);
    this.completions = completions;
    this.metrics = new Metrics(completions.modelName(), runtime, inFlight::get);
    this.apiKey = apiKey == null ? null : ("Bearer " + apiKey).getBytes(StandardCharsets.UTF_8);
    this.allowedHosts = allowedHosts;
    this.maxBodyBytes = maxBodyBytes;
    this.maxInFlight = maxInFlight;
  }

  /** Requests accepted and not yet answered. */
  public int inFlight() {
    return inFlight.get();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    try {
      route(request, response, callback);
    } catch (ApiError e) {
      send(response, callback, e);
    } catch (RuntimeException e) {
      LOG.error("a request failed inside the server", e);
      send(
          response,
          callback,
          500,
          ApiError.internal("internal error (the server's log has the details)").body());
    }
    return true;
  }

  /**
   * A 403 unless the {@code Host} header names this server (a DNS-rebinding page sends its own
   * name).
   */
  private void checkHost(Request request) {
    if (allowedHosts == null) {
      return;
    }
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (host == null) {
      return; // HTTP/1.0 without Host: no browser sends that
    }
    String name = hostName(host);
    if (!allowedHosts.contains(name)) {
      throw ApiError.forbiddenHost(
          "the Host header '"
              + ApiError.quote(host)
              + "' is not one this server answers to ("
              + String.join(", ", new TreeSet<>(allowedHosts))
              + "); start it with --allowed-hosts to add names");
    }
  }

  /**
   * The name of a Host header without its port, lower case ({@code [::1]:8000} gives {@code ::1}).
   */
  public static String hostName(String host) {
    String h = host.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int close = h.indexOf(']');
      return close < 0 ? h : h.substring(1, close);
    }
    int colon = h.indexOf(':');
    if (colon >= 0 && colon == h.lastIndexOf(':')) {
      h = h.substring(0, colon);
    }
    return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
  }

  /**
   * A 415 unless the body is declared {@code application/json} (UTF-8): a browser's cross-origin
   * "simple" POST cannot be.
   */
  private static void checkJson(Request request) {
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null) {
      throw ApiError.unsupportedMediaType(
          "the request needs the header 'Content-Type: application/json'");
    }
    String[] parts = type.split(";");
    boolean json = parts[0].trim().equalsIgnoreCase("application/json");
    for (int i = 1; i < parts.length && json; i++) {
      String p = parts[i].trim().toLowerCase(Locale.ROOT).replace("\"", "");
      if (p.startsWith("charset=") && !p.equals("charset=utf-8")) {
        json = false;
      }
    }
    if (!json) {
      throw ApiError.unsupportedMediaType(
          "the request body must be 'Content-Type: application/json' (UTF-8), got '"
              + ApiError.quote(type)
              + "'");
    }
  }

  private void route(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    checkHost(request);
    switch (path) {
      case "/health" -> {
        requireMethod(method, "GET", path);
        if (failed) {
          send(response, callback, 503, ApiError.unavailable("the engine has failed").body());
        } else {
          Content.Sink.write(response, true, "", callback);
        }
        return;
      }
      case "/metrics" -> {
        requireMethod(method, "GET", path);
        response.setStatus(200);
        response
            .getHeaders()
            .put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        Content.Sink.write(response, true, metrics.text(), callback);
        return;
      }
      case "/v1/models" -> {
        requireMethod(method, "GET", path);
        authorize(request);
        send(response, callback, 200, models());
        return;
      }
      case "/v1/completions", "/v1/chat/completions" -> {
        requireMethod(method, "POST", path);
        authorize(request);
        checkJson(request);
        complete(request, response, callback, path.equals("/v1/chat/completions"));
        return;
      }
      default ->
          throw ApiError.notFound(
              null,
              "not_found",
              "no route "
                  + ApiError.quote(method + " " + path)
                  + " (routes: POST /v1/completions, POST /v1/chat/completions, GET /v1/models, GET /health, GET /metrics)");
    }
  }

  private static void requireMethod(String method, String expected, String path) {
    if (!method.equals(expected)) {
      throw ApiError.notFound(
          null,
          "not_found",
          "no route " + ApiError.quote(method + " " + path) + " (use " + expected + ")");
    }
  }

  private void authorize(Request request) {
    if (apiKey == null) {
      return;
    }
    String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    // Constant time: how long the comparison takes says nothing about how much of the key matched.
    if (auth == null || !MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), apiKey)) {
      throw ApiError.unauthorized(
          auth == null
              ? "missing API key: send the header 'Authorization: Bearer <key>'"
              : "incorrect API key provided");
    }
  }

  private ObjectNode models() {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("object", "list");
    ObjectNode m = root.putArray("data").addObject();
    m.put("id", completions.modelName());
    m.put("object", "model");
    m.put("created", 0);
    m.put("owned_by", "leap");
    m.put("max_model_len", completions.contextLength());
    return root;
  }

  private void complete(Request request, Response response, Callback callback, boolean chat) {
    long declared = request.getLength();
    if (declared > maxBodyBytes) {
      throw ApiError.tooLarge(
          "the request body has " + declared + " bytes; the limit is " + maxBodyBytes);
    }
    BodyReader.read(
        request,
        maxBodyBytes,
        bodyTimeoutMs,
        (bytes, error) -> {
          try {
            if (error != null) {
              throw error;
            }
            generate(request, response, callback, RequestBody.parse(bytes), chat);
          } catch (ApiError e) {
            send(response, callback, e);
          } catch (RuntimeException e) {
            LOG.error("a request failed inside the server", e);
            send(
                response,
                callback,
                500,
                ApiError.internal("internal error (the server's log has the details)").body());
          }
        });
  }

  private void generate(
      Request request, Response response, Callback callback, JsonNode body, boolean chat) {
    Completions.Prepared prepared =
        completions.withinBudget(
            completions.prepare(body, chat), body, maxRequestTokens, maxRequestKv);
    if (inFlight.incrementAndGet() > maxInFlight) {
      inFlight.decrementAndGet();
      throw ApiError.overloaded(
          "the server is at its limit of " + maxInFlight + " requests in flight; retry later", 1);
    }
    StreamedCompletion streamed =
        prepared.options().stream()
            ? new StreamedCompletion(
                prepared,
                completions.modelName(),
                onFailure -> new SseWriter(response, callback, onFailure))
            : null;
    List<GenerationHandle> handles;
    try {
      handles = completions.submit(prepared, streamed == null ? i -> null : streamed::listener);
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      throw e;
    }
    if (streamed != null) {
      handles.forEach(streamed::add);
    }
    request.addFailureListener(failure -> handles.forEach(GenerationHandle::cancel));
    // Until something is written (a non-streamed answer: the end), only a read notices that the
    // client left.
    DisconnectWatch watch =
        DisconnectWatch.start(request, () -> handles.forEach(GenerationHandle::cancel));
    Completions.all(handles)
        .whenComplete(
            (results, error) -> {
              inFlight.decrementAndGet();
              if (watch != null) {
                watch.stop();
                if (watch.pipelined() && !response.isCommitted()) {
                  response.getHeaders().put(HttpHeader.CONNECTION, "close");
                }
              }
              ApiError problem = null;
              if (error != null) {
                Throwable cause =
                    error instanceof CompletionException && error.getCause() != null
                        ? error.getCause()
                        : error;
                LOG.error("a request did not complete", cause);
                problem =
                    ApiError.unavailable(
                        "the request did not complete (the server's log has the details)");
              } else {
                results.forEach(metrics::record);
                try {
                  Completions.checkErrors(prepared, results);
                } catch (ApiError e) {
                  problem = e;
                }
              }
              if (problem != null) {
                if (streamed != null && streamed.started()) {
                  streamed.error(problem);
                } else {
                  send(response, callback, problem);
                }
              } else if (streamed == null) {
                send(response, callback, 200, completions.response(prepared, results));
              } else {
                for (int i = 0; i < results.size(); i++) {
                  streamed.finished(i, results.get(i));
                }
                streamed.end(results);
              }
            });
  }

  private static void send(Response response, Callback callback, ApiError e) {
    if (e.retryAfterSeconds() > 0) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Integer.toString(e.retryAfterSeconds()));
    }
    if (e.status() == 408 || e.status() == 413) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close"); // the rest of the body is not read
    }
    send(response, callback, e.status(), e.body());
  }

  private static void send(Response response, Callback callback, int status, JsonNode body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    Content.Sink.write(response, true, body.toString(), callback);
  }

  /** Jetty's own errors (431, 505, a bad URI, ...) in OpenAI's shape. */
  public static Request.Handler errorHandler() {
    return new JsonErrorHandler();
  }

  /** Marks the engine as failed: {@code /health} answers 503 from now on. */
  public void markFailed() {
    failed = true;
  }
}
