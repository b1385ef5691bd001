package dev.leap.runtime.internal.engine;

import dev.leap.fsm.Utf8;
import java.nio.charset.StandardCharsets;

/**
 * Delivers a streamed sequence's new output to its {@link dev.leap.runtime.OutputListener} after each
 * step: the bytes from what was delivered up to the output's end, less a hold-back of the longest stop
 * string minus one byte (a stop string that could still complete there is not sent: the final text is
 * cut before it), cut back to a whole character. Deliveries only grow: a jump's retokenization
 * rewrites tokens but not the bytes already out, and bytes that boundary healing holds back are
 * forced again by the mask, so a shorter output is only waited out.
 *
 * <p>Cost per delivery: the new bytes plus the held-back bytes (the output is walked back from its
 * end only as far as the last delivery). Scheduler thread only.
 */
final class Streaming {
  private final Results results;

  Streaming(Results results) {
    this.results = results;
  }

  void deliver(Sequence s) {
    long holdBack = s.stops == null ? 0 : s.stops.longest() - 1;
    long stable = s.outputBytes - holdBack;
    if (stable <= s.streamedBytes) {
      return;
    }
    // Walk back from the end to the token holding byte `streamedBytes`.
    int i = s.output.size();
    long offset = s.outputBytes;
    while (i > 0 && offset > s.streamedBytes) {
      offset -= results.tokenBytes(s.output.getInt(--i)).length;
    }
    byte[] buf = new byte[(int) (stable - s.streamedBytes)];
    int filled = 0;
    long pos = offset;
    for (; i < s.output.size() && pos < stable; i++) {
      byte[] b = results.tokenBytes(s.output.getInt(i));
      int from = (int) Math.max(0, s.streamedBytes - pos);
      int to = (int) Math.min(b.length, stable - pos);
      if (to > from) {
        System.arraycopy(b, from, buf, filled, to - from);
        filled += to - from;
      }
      pos += b.length;
    }
    int complete = Utf8.completeLength(buf, filled);
    if (complete == 0) {
      return;
    }
    s.streamedBytes += complete;
    s.listener.onText(new String(buf, 0, complete, StandardCharsets.UTF_8));
  }
}
