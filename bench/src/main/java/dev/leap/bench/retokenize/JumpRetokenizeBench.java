package dev.leap.bench.retokenize;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.retokenize.JumpPlan;
import dev.leap.retokenize.JumpRetokenizer;
import dev.leap.retokenize.Tokenizer;
import java.nio.charset.StandardCharsets;
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
 * What does one jump's retokenization cost for an output of 50, 200 or 1,000 tokens, against
 * encoding the same text whole (what SGLang's first jump-forward did)? Target: under 5% of a 10 ms
 * decode step (500 µs) at 200 tokens. GPT-2 tokenizer; the output is free text, then the jump
 * {@code "}\n{"done": true}} (with boundary healing on).
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main JumpRetokenizeBench -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class JumpRetokenizeBench {
  @Param({"50", "200", "1000"})
  public int outputTokens;

  Tokenizer tok;
  JumpRetokenizer retok;
  int[] output;
  int[] states;
  byte[] jump;
  String wholeText;

  @Setup
  public void setup() {
    tok = Tokenizer.gpt2();
    CompressedFsm fsm =
        CompressedFsm.compile("\\{\"text\": \"[a-z ,.]*\"\\}\\n\\{\"done\": true\\}");
    Dfa dfa = fsm.dfa();
    retok = new JumpRetokenizer(tok, dfa, true);
    String[] words = {
      "the", "city", "lies", "on", "a", "river", "and", "its", "harbour", "is", "old", "glass",
      "market"
    };
    SplittableRandom rnd = new SplittableRandom(1);
    StringBuilder sb = new StringBuilder("{\"text\": \"");
    while (tok.encode(sb.toString()).length < outputTokens) {
      sb.append(words[rnd.nextInt(words.length)]).append(rnd.nextInt(8) == 0 ? ", " : " ");
    }
    int[] all = tok.encode(sb.toString());
    output = Arrays.copyOf(all, outputTokens);
    // End the text with a quote: from there the jump '}\n{"done": true}' is forced.
    int[] withQuote = Arrays.copyOf(output, outputTokens + 1);
    withQuote[outputTokens] = tok.encode("\"")[0];
    output = withQuote;
    states = new int[output.length + 1];
    states[0] = dfa.initialState();
    for (int i = 0; i < output.length; i++) {
      states[i + 1] = dfa.walk(states[i], tok.tokenBytes(output[i]));
      if (states[i + 1] == Dfa.DEAD) {
        throw new IllegalStateException("setup text leaves the language at token " + i);
      }
    }
    jump = fsm.jumpBytes(states[output.length]);
    if (jump.length == 0) {
      throw new IllegalStateException("no jump at the end of the setup text");
    }
    wholeText = tok.decode(output) + new String(jump, StandardCharsets.UTF_8);
  }

  @Benchmark
  public JumpPlan jumpRetokenize() {
    return retok.plan(output, output.length, states, jump);
  }

  @Benchmark
  public int[] encodeWholeText() {
    return tok.encode(wholeText);
  }
}
