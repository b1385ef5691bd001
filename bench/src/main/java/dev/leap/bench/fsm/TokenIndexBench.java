package dev.leap.bench.fsm;

import dev.leap.bench.BenchData;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.TokenIndex;
import dev.leap.vocab.TokenizerJsonVocabulary;
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
 * (b) How long does building every token mask of SGLang's character regex against Qwen3's
 * 151,643-token vocabulary take, single-threaded and in parallel? Target: under 200 ms
 * single-threaded.
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main TokenIndexBench -f 1 -wi 2 -i 5 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class TokenIndexBench {
  CompressedFsm fsm;
  TokenizerJsonVocabulary vocab;

  @Setup
  public void setup() {
    fsm = CompressedFsm.compile(BenchData.characterRegex());
    vocab = TokenizerJsonVocabulary.load(BenchData.file("tokenizers/qwen3/tokenizer.json"));
  }

  @Benchmark
  public void allMasksSingleThreaded(Blackhole bh) {
    TokenIndex index = TokenIndex.of(fsm.dfa(), vocab);
    for (int s = 0; s < fsm.stateCount(); s++) {
      bh.consume(index.allowed(s));
    }
  }

  @Benchmark
  public TokenIndex allMasksParallel() {
    return TokenIndex.of(fsm.dfa(), vocab).buildAll();
  }
}
