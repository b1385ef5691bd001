package dev.leap.runtime.internal.engine;

import dev.leap.vocab.Utf8;
import java.nio.charset.StandardCharsets;

/**
 * Delivers a streamed sequence's new output to its {@link dev.leap.runtime.OutputListener} after
 * each step: the bytes from what was delivered up to the output's end, less a hold-back of the
 * longest stop string minus one byte (a stop string that could still complete there is not sent:
 * the final text is cut before it), cut back to a whole character. Deliveries only grow: a jump's
 * retokenization rewrites tokens but not the bytes already out, and bytes that boundary healing
 * holds back are forced again by the mask, so a shorter output is only waited out.
 *
 * <p>Cost per delivery: the new bytes, read from the sequence's {@link OutputBuffer}. Scheduler
 * thread only.
 */
final class Streaming {

  void deliver(Sequence s) {
    long holdBack = s.stops == null ? 0 : s.stops.longest() - 1;
    long stable = s.output.length() - holdBack;
    if (stable <= s.streamedBytes) {
      return;
    }
    byte[] buf = s.output.slice((int) s.streamedBytes, (int) stable);
    int complete = Utf8.completeLength(buf, buf.length);
    if (complete == 0) {
      return;
    }
    s.streamedBytes += complete;
    s.listener.onText(new String(buf, 0, complete, StandardCharsets.UTF_8));
  }
}
