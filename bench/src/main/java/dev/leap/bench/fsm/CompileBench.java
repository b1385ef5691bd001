package dev.leap.bench.fsm;

import dev.leap.bench.BenchData;
import dev.leap.fsm.CompressedFsm;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * (a) How long does compiling SGLang's character regex to a compressed FSM take?
 *
 * <pre>
 * mvn -B -q -pl bench -am package -DskipTests
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main CompileBench -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CompileBench {
  String regex;

  @Setup
  public void setup() {
    regex = BenchData.characterRegex();
  }

  @Benchmark
  public CompressedFsm compileCharacterRegex() {
    return CompressedFsm.compile(regex);
  }
}
