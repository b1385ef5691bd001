package dev.leap.bench.fsm;

import dev.leap.bench.BenchData;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.TokenIndex;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * (c) One decode step's constraint work: look up the current state's mask and advance by the
 * sampled token, in ns (masks already built, as during decoding). Target: under 1 µs.
 *
 * <p>The (state, token) pairs are a fixed-seed random walk of the character regex over Qwen3's
 * vocabulary, replayed in a cycle.
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main DecodeStepBench -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecodeStepBench {
  TokenIndex index;
  int[] states;
  int[] tokens;
  int i;

  @Setup
  public void setup() {
    CompressedFsm fsm = CompressedFsm.compile(BenchData.characterRegex());
    TokenizerJsonVocabulary vocab =
        TokenizerJsonVocabulary.load(BenchData.file("tokenizers/qwen3/tokenizer.json"));
    index = TokenIndex.of(fsm.dfa(), vocab).buildAll();
    SplittableRandom rnd = new SplittableRandom(11);
    int n = 4096;
    states = new int[n];
    tokens = new int[n];
    int s = 0;
    for (int k = 0; k < n; k++) {
      if (index.allowedCount(s) == 0 || fsm.dfa().isAccepting(s)) {
        s = 0;
      }
      long[] mask = index.allowed(s);
      int pick = rnd.nextInt(index.allowedCount(s));
      int t = -1;
      for (int w = 0; w < mask.length && t < 0; w++) {
        int c = Long.bitCount(mask[w]);
        if (pick < c) {
          long bits = mask[w];
          for (int j = 0; j < pick; j++) {
            bits &= bits - 1;
          }
          t = (w << 6) + Long.numberOfTrailingZeros(bits);
        } else {
          pick -= c;
        }
      }
      states[k] = s;
      tokens[k] = t;
      s = index.nextState(s, t);
      if (s == Dfa.DEAD) {
        throw new IllegalStateException("walk died");
      }
    }
  }

  @Benchmark
  public int maskLookupAndAdvance(Blackhole bh) {
    int k = i++ & (states.length - 1);
    bh.consume(index.allowed(states[k]));
    return index.nextState(states[k], tokens[k]);
  }
}
