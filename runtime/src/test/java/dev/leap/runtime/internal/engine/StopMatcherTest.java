package dev.leap.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The incremental stop-string matcher against its naive twin: search the whole output after every
 * change.
 */
class StopMatcherTest {

  static int naiveFirstMatch(byte[] out, List<String> stops) {
    int best = -1;
    for (String s : stops) {
      byte[] needle = s.getBytes(StandardCharsets.UTF_8);
      outer:
      for (int i = 0; i + needle.length <= out.length; i++) {
        for (int j = 0; j < needle.length; j++) {
          if (out[i + j] != needle[j]) {
            continue outer;
          }
        }
        if (best < 0 || i < best) {
          best = i;
        }
        break;
      }
    }
    return best;
  }

  @Test
  void randomAppendsAndTruncationsAgreeWithSearchingTheWholeOutput() {
    for (long seed = 0; seed < 300; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      List<String> stops = new ArrayList<>();
      int k = 1 + rnd.nextInt(3);
      for (int i = 0; i < k; i++) {
        StringBuilder sb = new StringBuilder();
        int len = 1 + rnd.nextInt(4);
        for (int j = 0; j < len; j++) {
          sb.append("abé".charAt(rnd.nextInt(3)));
        }
        stops.add(sb.toString());
      }
      StopMatcher m = new StopMatcher(stops);
      ByteArrayOutputStream naive = new ByteArrayOutputStream();
      for (int op = 0; op < 60; op++) {
        if (naive.size() > 0 && rnd.nextInt(5) == 0) {
          int n = rnd.nextInt(naive.size() + 1);
          byte[] kept = Arrays.copyOf(naive.toByteArray(), n);
          naive.reset();
          naive.write(kept, 0, n);
          m.truncate(n);
        } else {
          StringBuilder sb = new StringBuilder();
          int len = rnd.nextInt(4);
          for (int j = 0; j < len; j++) {
            sb.append("abcé".charAt(rnd.nextInt(4)));
          }
          byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
          naive.write(b, 0, b.length);
          m.grew(naive.toByteArray(), naive.size());
        }
        assertEquals(naive.size(), m.length(), "seed " + seed + " op " + op);
        assertEquals(
            naiveFirstMatch(naive.toByteArray(), stops),
            m.firstMatch(),
            "seed "
                + seed
                + " op "
                + op
                + ", stops "
                + stops
                + ", output "
                + naive.toString(StandardCharsets.UTF_8));
      }
    }
  }
}
