package dev.leap.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Server-sent events to one response, written asynchronously one write at a time: events that
 * arrive while a write is in flight are batched into the next write, so a slow client never blocks
 * the caller (the runtime's scheduler thread) and the buffer never holds more than the events not
 * yet written (at most the request's output). A failed write (the client went away) runs {@code
 * onFailure} once and fails the response's callback. Thread-safe.
 */
final class SseWriter {
  private final Response response;
  private final Callback done;
  private final Runnable onFailure;
  private final StringBuilder pending = new StringBuilder();
  private boolean started;
  private boolean writing;
  private boolean finishing;
  private boolean closed;

  /** Makes the writer of a response, given what to do when a write fails. */
  interface Factory {
    SseWriter create(Runnable onFailure);
  }

  SseWriter(Response response, Callback done, Runnable onFailure) {
    this.response = response;
    this.done = done;
    this.onFailure = onFailure;
  }

  /** Queues {@code data: <json>}. */
  synchronized void event(String data) {
    if (closed) {
      return;
    }
    pending.append("data: ").append(data).append("\n\n");
    pump();
  }

  /** Writes what is queued, then ends the response. */
  synchronized void finish() {
    finishing = true;
    pump();
  }

  /** Whether anything was written (then the status is committed as 200). */
  synchronized boolean started() {
    return started;
  }

  private void pump() {
    if (writing || closed) {
      return;
    }
    if (!started) {
      started = true;
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    }
    if (pending.length() == 0) {
      if (finishing) {
        closed = true;
        response.write(true, ByteBuffer.allocate(0), done);
      }
      return;
    }
    ByteBuffer chunk = ByteBuffer.wrap(pending.toString().getBytes(StandardCharsets.UTF_8));
    pending.setLength(0);
    writing = true;
    response.write(
        false,
        chunk,
        new Callback() {
          @Override
          public void succeeded() {
            synchronized (SseWriter.this) {
              writing = false;
              pump();
            }
          }

          @Override
          public void failed(Throwable x) {
            synchronized (SseWriter.this) {
              writing = false;
              if (closed) {
                return;
              }
              closed = true;
              pending.setLength(0);
            }
            onFailure.run();
            done.failed(x);
          }
        });
  }
}
