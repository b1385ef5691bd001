package dev.leap.server.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * Notices that the client of a request went away while its answer is being generated. Jetty reads
 * nothing from a connection while its request is handled, and a non-streamed answer writes nothing
 * until the end (a streamed one nothing while it waits for its constraint or for KV slots), so it
 * would learn of the disconnect only at the next write (for a non-streamed answer, after the whole
 * generation). This watch registers read interest on the connection's end point after the body is
 * read: the end of the stream (the client closed) runs {@code onGone}, which cancels the samples at
 * the runtime's next step. {@link #stop} withdraws the interest before the response is written, so
 * Jetty's own read of the next request finds the end point as it left it.
 *
 * <p>Bytes that arrive meanwhile are a pipelined next request (no OpenAI client pipelines): one is
 * consumed by the check, so the connection is marked to close after this response.
 */
final class DisconnectWatch implements Callback {
  private final EndPoint endPoint;
  private final Runnable onGone;
  private boolean watching;
  private boolean stopped;
  private volatile boolean pipelined;

  private DisconnectWatch(EndPoint endPoint, Runnable onGone) {
    this.endPoint = endPoint;
    this.onGone = onGone;
  }

  /**
   * Starts watching {@code request}'s connection; null when it cannot be watched (Jetty is reading
   * it already).
   */
  static DisconnectWatch start(Request request, Runnable onGone) {
    EndPoint ep = request.getConnectionMetaData().getConnection().getEndPoint();
    if (!(ep instanceof AbstractEndPoint)) {
      return null;
    }
    DisconnectWatch w = new DisconnectWatch(ep, onGone);
    synchronized (w) {
      w.watching = ep.tryFillInterested(w);
      return w.watching ? w : null;
    }
  }

  /** Whether bytes of a next request arrived (the response should close the connection). */
  boolean pipelined() {
    return pipelined;
  }

  /** Withdraws the read interest: call before writing the response. */
  void stop() {
    boolean fail;
    synchronized (this) {
      stopped = true;
      fail = watching;
      watching = false;
    }
    if (fail) {
      ((AbstractEndPoint) endPoint)
          .getFillInterest()
          .onFail(new CancellationException("the response is ready"));
    }
  }

  /** The connection is readable: the end of the stream, or bytes of a pipelined request. */
  @Override
  public void succeeded() {
    synchronized (this) {
      watching = false;
      if (stopped) {
        return;
      }
    }
    int n;
    try {
      ByteBuffer one = BufferUtil.allocate(1);
      n = endPoint.fill(one);
    } catch (IOException e) {
      n = -1;
    }
    if (n < 0) {
      onGone.run();
      return;
    }
    if (n > 0) {
      pipelined = true;
      return;
    }
    synchronized (this) {
      if (!stopped) {
        watching = endPoint.tryFillInterested(this); // spurious wake-up: keep watching
      }
    }
  }

  @Override
  public void failed(Throwable x) {
    synchronized (this) {
      watching = false;
      if (stopped) {
        return;
      }
    }
    if (x instanceof TimeoutException) {
      synchronized (this) {
        if (!stopped) {
          watching =
              endPoint.tryFillInterested(this); // the idle timeout: the client is only waiting
        }
      }
      return;
    }
    onGone.run(); // the connection failed or closed
  }

  @Override
  public InvocationType getInvocationType() {
    return InvocationType.NON_BLOCKING;
  }
}
