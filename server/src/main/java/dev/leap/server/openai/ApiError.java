package dev.leap.server.openai;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

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

  private ApiError(int status, String type, String param, String code, String message) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }

  /** 400 {@code invalid_request_error}; {@code param} names the offending field (dotted path) or is null. */
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

  /** 503 while the queue is full or the engine has failed. */
  public static ApiError unavailable(String message) {
    return new ApiError(503, "server_error", null, "overloaded", message);
  }

  /** 500: a failure of the server itself (never a user's mistake). */
  public static ApiError internal(String message) {
    return new ApiError(500, "server_error", null, "internal_error", message);
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
