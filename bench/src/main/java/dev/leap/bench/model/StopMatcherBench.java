package dev.leap.bench.model;

import dev.leap.runtime.internal.engine.StopMatcher;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Does a stop string cost more per token in a long output than in a short one? One op generates
 * {@code tokens} output tokens (4-byte pieces of random letters, fixed seed) under two stop strings
 * that never appear; the score divided by {@code tokens} is the cost per token. {@code incremental}
 * is {@link StopMatcher}; {@code wholeOutput} searches the whole output after every token, as the
 * scheduler did before issue 14 (quadratic in the output).
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main StopMatcherBench -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StopMatcherBench {
  static final List<String> STOPS = List.of("</answer>", "\n\n###");

  @Param({"200", "2000"})
  int tokens;

  byte[][] pieces;

  @Setup
  public void setup() {
    SplittableRandom rnd = new SplittableRandom(14);
    pieces = new byte[tokens][4];
    for (byte[] p : pieces) {
      for (int i = 0; i < p.length; i++) {
        p[i] = (byte) ('a' + rnd.nextInt(26));
      }
    }
  }

  @Benchmark
  public int incremental() {
    StopMatcher m = new StopMatcher(STOPS);
    byte[] out =
        new byte[4 * tokens]; // the output buffer the matcher reads, as a sequence's OutputBuffer
    int length = 0;
    for (byte[] p : pieces) {
      System.arraycopy(p, 0, out, length, p.length);
      length += p.length;
      m.grew(out, length);
      if (m.firstMatch() >= 0) {
        return -1;
      }
    }
    return m.length();
  }

  @Benchmark
  public int wholeOutput() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[][] stops = {
      STOPS.get(0).getBytes(StandardCharsets.UTF_8), STOPS.get(1).getBytes(StandardCharsets.UTF_8)
    };
    for (byte[] p : pieces) {
      out.write(p, 0, p.length);
      byte[] all = out.toByteArray();
      for (byte[] stop : stops) {
        if (indexOf(all, stop) >= 0) {
          return -1;
        }
      }
    }
    return out.size();
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
