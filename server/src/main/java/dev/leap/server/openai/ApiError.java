package dev.leap.server.openai;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.regex.Pattern;

/**
 * An error answered in OpenAI's shape, {@code {"error": {"message", "type", "param", "code"}}},
 * with its HTTP status. A user's mistake is always 4xx (the official clients retry 5xx twice, so a
 * bad schema answered 500 would be compiled three times); 5xx is for the server's own failures and
 * overload.
 */
public final class ApiError extends RuntimeException {
  private final int status;
  private final String type;
  private final String param;
  private final String code;
  private final int retryAfterSeconds;

  /** Most characters of a user's input that an error message quotes. */
  public static final int MAX_QUOTE = 200;

  /**
   * Longest message: a backstop for texts built elsewhere (the runtime's), cut in the middle past
   * it.
   */
  static final int MAX_MESSAGE = 600;

  private ApiError(int status, String type, String param, String code, String message) {
    this(status, type, param, code, message, 0);
  }

  private ApiError(
      int status, String type, String param, String code, String message, int retryAfterSeconds) {
    super(bound(message));
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /**
   * {@code input} as an error message may quote it: whole when it has at most {@value #MAX_QUOTE}
   * characters, otherwise its start and end with the length between ({@code abc…xyz (2,000,000
   * characters)}).
   */
  public static String quote(String input) {
    if (input == null || input.length() <= MAX_QUOTE) {
      return input;
    }
    int head = MAX_QUOTE * 3 / 4;
    int tail = MAX_QUOTE - head;
    return safeCut(input, 0, head)
        + "…"
        + safeCut(input, input.length() - tail, input.length())
        + " ("
        + String.format("%,d", input.length())
        + " characters)";
  }

  /** A substring that does not split a surrogate pair at either end. */
  private static String safeCut(String s, int from, int to) {
    if (from > 0 && Character.isLowSurrogate(s.charAt(from))) {
      from++;
    }
    if (to < s.length() && to > from && Character.isHighSurrogate(s.charAt(to - 1))) {
      to--;
    }
    return s.substring(from, to);
  }

  /**
   * Past {@value #MAX_MESSAGE} characters, the message's start and end; Java class names replaced.
   */
  private static String bound(String message) {
    if (message == null) {
      return "error";
    }
    String m = JAVA_NAME.matcher(message).replaceAll("internal error");
    if (m.length() <= MAX_MESSAGE) {
      return m;
    }
    return safeCut(m, 0, MAX_MESSAGE / 2)
        + " … "
        + safeCut(m, m.length() - MAX_MESSAGE / 4, m.length());
  }

  /**
   * A fully qualified JDK or library class name (an exception leaking into a text): never shown to
   * a client.
   */
  private static final Pattern JAVA_NAME =
      Pattern.compile(
          "\\b(?:java|javax|jdk|sun|com\\.fasterxml|org\\.eclipse|ai\\.djl|dev\\.leap)\\.[A-Za-z0-9_.$]*[A-Z][A-Za-z0-9_$]*(?::\\s?)?");

  /**
   * 400 {@code invalid_request_error}; {@code param} names the offending field (dotted path) or is
   * null.
   */
  public static ApiError badRequest(String param, String message) {
    return new ApiError(400, "invalid_request_error", param, null, message);
  }

  /** 401 for a missing or wrong API key. */
  public static ApiError unauthorized(String message) {
    return new ApiError(401, "invalid_request_error", null, "invalid_api_key", message);
  }

  /** 404 for an unknown route or model. */
  public static ApiError notFound(String param, String code, String message) {
    return new ApiError(404, "invalid_request_error", param, code, message);
  }

  /** 413 for a body over the limit. */
  public static ApiError tooLarge(String message) {
    return new ApiError(413, "invalid_request_error", null, "request_too_large", message);
  }

  /** 503 while the engine has failed. */
  public static ApiError unavailable(String message) {
    return new ApiError(503, "server_error", null, "overloaded", message);
  }

  /**
   * 503 with {@code Retry-After}: the server is at a limit (requests in flight); the request may be
   * sent again.
   */
  public static ApiError overloaded(String message, int retryAfterSeconds) {
    return new ApiError(503, "server_error", null, "overloaded", message, retryAfterSeconds);
  }

  /** 408: the request body did not arrive in time. */
  public static ApiError timeout(String message) {
    return new ApiError(408, "invalid_request_error", null, "request_timeout", message);
  }

  /** 415 for a body that is not {@code application/json}. */
  public static ApiError unsupportedMediaType(String message) {
    return new ApiError(415, "invalid_request_error", null, "unsupported_media_type", message);
  }

  /** 403 for a Host header the server does not answer to (DNS rebinding). */
  public static ApiError forbiddenHost(String message) {
    return new ApiError(403, "invalid_request_error", null, "invalid_host", message);
  }

  /** Any status, for errors Jetty itself finds (431, 505, a bad URI, ...). */
  public static ApiError of(int status, String message) {
    return new ApiError(
        status, status >= 500 ? "server_error" : "invalid_request_error", null, null, message);
  }

  /** 500: a failure of the server itself (never a user's mistake). */
  public static ApiError internal(String message) {
    return new ApiError(500, "server_error", null, "internal_error", message);
  }

  /** Seconds for a {@code Retry-After} header, 0 for none. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }

  public String param() {
    return param;
  }

  public String code() {
    return code;
  }

  /** The response body. */
  public ObjectNode body() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ObjectNode e = root.putObject("error");
    e.put("message", getMessage());
    e.put("type", type);
    if (param == null) {
      e.putNull("param");
    } else {
      e.put("param", param);
    }
    if (code == null) {
      e.putNull("code");
    } else {
      e.put("code", code);
    }
    return root;
  }
}
