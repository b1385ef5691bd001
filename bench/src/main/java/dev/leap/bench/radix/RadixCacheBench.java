package dev.leap.bench.radix;

import dev.leap.radix.RadixCache;
import dev.leap.radix.SlotAllocator;
import java.util.Arrays;
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
 * What do {@code match}, {@code insert} and {@code evict} cost against about one million cached
 * tokens in realistic shapes? {@code document}: many requests sharing a 1,800-token document
 * prefix, each with its own 600-token continuation; the probe prompt is 2,000 tokens. {@code json}:
 * short JSON outputs sharing a skeleton, with 1-4 token values between the forced parts. Target:
 * {@code match} of a 2,000-token prompt under 20 µs.
 *
 * <pre>
 * mvn -B -q -pl bench -am package -DskipTests
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main RadixCacheBench -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RadixCacheBench {
  @Param({"document", "json"})
  public String shape;

  static final int CACHED = 1_000_000;
  SlotAllocator alloc;
  RadixCache cache;
  int[][] probes;
  int[] fresh;
  int next;
  SplittableRandom rnd;

  @Setup
  public void setup() {
    rnd = new SplittableRandom(42);
    alloc = new SlotAllocator(CACHED + 200_000);
    cache = new RadixCache(alloc);
    probes = new int[256][];
    if (shape.equals("document")) {
      int[] doc = rnd.ints(1800, 0, 50_000).toArray();
      int i = 0;
      while (cache.cachedSlots() < CACHED) {
        int[] seq = concat(doc, rnd.ints(600, 0, 50_000).toArray());
        add(seq);
        if (i < probes.length) {
          // A 2,000-token prompt: the shared document, then 200 tokens of this request's own text.
          probes[i] = Arrays.copyOf(seq, 2000);
        }
        i++;
      }
      fresh = concat(doc, new int[100]);
    } else {
      int[][] skeleton = new int[12][];
      for (int k = 0; k < skeleton.length; k++) {
        skeleton[k] = rnd.ints(3 + rnd.nextInt(6), 0, 50_000).toArray();
      }
      int i = 0;
      while (cache.cachedSlots() < CACHED) {
        int[] seq = new int[0];
        for (int[] part : skeleton) {
          seq = concat(seq, part);
          seq = concat(seq, rnd.ints(1 + rnd.nextInt(4), 0, 200).toArray());
        }
        add(seq);
        if (i < probes.length) {
          probes[i] = seq;
        }
        i++;
      }
      fresh = new int[60];
    }
  }

  private void add(int[] seq) {
    int[] slots = alloc.allocate(seq.length);
    alloc.free(cache.insert(seq, slots));
  }

  private static int[] concat(int[] a, int[] b) {
    int[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Benchmark
  public RadixCache.Match match() {
    return cache.match(probes[next++ & (probes.length - 1)]);
  }

  @Benchmark
  public int matchLength() {
    int[] p = probes[next++ & (probes.length - 1)];
    return cache.matchLength(p, p.length);
  }

  /**
   * Insert a request with 100 (document) or all 60 (json) new tokens, then evict as many: steady
   * state.
   */
  @Benchmark
  public int insertThenEvict() {
    int n = shape.equals("document") ? 100 : 60;
    int start = fresh.length - n;
    for (int i = start; i < fresh.length; i++) {
      fresh[i] = 60_000 + rnd.nextInt(1_000_000);
    }
    int[] slots = new int[fresh.length];
    RadixCache.Match m = cache.match(fresh, start);
    System.arraycopy(m.slots(), 0, slots, 0, m.length());
    int[] own = alloc.allocate(fresh.length - m.length());
    System.arraycopy(own, 0, slots, m.length(), own.length);
    alloc.free(cache.insert(fresh, slots));
    return cache.evict(own.length);
  }
}
