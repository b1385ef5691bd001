package dev.leap.server.http;

import dev.leap.server.openai.ApiError;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A request body read without holding a thread: Jetty's demand-driven {@link Content.Source}
 * ({@code read()} what has arrived, {@code demand(this)} when nothing has, and return), so a client
 * that sends its headers and then stalls costs a connection and a few bytes, never one of the
 * server's threads. A deadline bounds the whole read: past {@code timeoutMs} the body is a 408,
 * whatever has arrived; past {@code maxBytes} a 413. Exactly one of the body or the error reaches
 * {@code done}, once.
 */
final class BodyReader implements Runnable {
  private final Request request;
  private final long maxBytes;
  private final long timeoutMs;
  private final BiConsumer<byte[], ApiError> done;
  private final AtomicBoolean finished = new AtomicBoolean();
  private byte[] buf;
  private int size;
  private Scheduler.Task deadline;

  private BodyReader(
      Request request, long maxBytes, long timeoutMs, BiConsumer<byte[], ApiError> done) {
    this.request = request;
    this.maxBytes = maxBytes;
    this.timeoutMs = timeoutMs;
    this.done = done;
    long declared = request.getLength();
    this.buf = new byte[(int) Math.min(declared > 0 ? declared : 4096, maxBytes + 1)];
  }

  /** Starts reading; {@code done} gets the bytes or the 4xx, on whichever thread finishes. */
  static void read(
      Request request, long maxBytes, long timeoutMs, BiConsumer<byte[], ApiError> done) {
    BodyReader r = new BodyReader(request, maxBytes, timeoutMs, done);
    r.deadline =
        request
            .getComponents()
            .getScheduler()
            .schedule(
                () ->
                    r.finish(
                        null,
                        ApiError.timeout(
                            "the request body did not arrive within "
                                + timeoutMs
                                + " ms ("
                                + r.size
                                + " bytes came)")),
                timeoutMs,
                TimeUnit.MILLISECONDS);
    r.run();
  }

  @Override
  public void run() {
    while (!finished.get()) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        request.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        // A transient failure is the connection's idle timeout; a last one, the client went away or
        // sent garbage.
        finish(
            null,
            chunk.isLast()
                ? ApiError.badRequest(null, "the request body could not be read")
                : ApiError.timeout("the request body stalled (no bytes within the idle timeout)"));
        return;
      }
      int n = chunk.remaining();
      if ((long) size + n > maxBytes) {
        chunk.release();
        finish(
            null,
            ApiError.tooLarge("the request body is over the limit of " + maxBytes + " bytes"));
        return;
      }
      if (size + n > buf.length) {
        buf =
            Arrays.copyOf(
                buf,
                (int) Math.min(maxBytes + 1, Math.max((long) buf.length * 2, (long) size + n)));
      }
      chunk.get(buf, size, n);
      size += n;
      boolean last = chunk.isLast();
      chunk.release();
      if (last) {
        finish(size == buf.length ? buf : Arrays.copyOf(buf, size), null);
        return;
      }
    }
  }

  private void finish(byte[] body, ApiError error) {
    if (!finished.compareAndSet(false, true)) {
      return;
    }
    if (deadline != null) {
      deadline.cancel();
    }
    done.accept(body, error);
  }
}
