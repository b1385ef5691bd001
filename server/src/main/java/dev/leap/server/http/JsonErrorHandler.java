package dev.leap.server.http;

import dev.leap.server.openai.ApiError;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The errors Jetty answers itself (a header block over the limit: 431; an HTTP version it does not
 * speak: 505; a URI it cannot parse, a malformed request line: 400; a failure outside the handler)
 * in OpenAI's shape, {@code {"error": {...}}}, like every other error of the server, with Jetty's
 * reason phrase as the message (never an exception's text).
 */
final class JsonErrorHandler extends ErrorHandler {

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().remove(HttpHeader.SERVER);
    response.write(true, ByteBuffer.wrap(body(code).getBytes(StandardCharsets.UTF_8)), callback);
  }

  /** Errors found while parsing a request, before any handler ran. */
  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(new HttpField(HttpHeader.CONTENT_TYPE, "application/json"));
    return ByteBuffer.wrap(body(status).getBytes(StandardCharsets.UTF_8));
  }

  static String body(int status) {
    String reason = HttpStatus.getMessage(status);
    String message =
        switch (status) {
          case 400 -> "bad request: the request line, a header or the URI could not be parsed";
          case 431 -> "the request's headers are larger than the server accepts";
          case 505 -> "HTTP version not supported: use HTTP/1.1";
          case 414 -> "the request URI is longer than the server accepts";
          default -> reason == null ? "error " + status : reason;
        };
    return ApiError.of(status, message).body().toString();
  }
}
