package dev.leap.bench.grammar;

import dev.leap.bench.BenchData;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * How long does compiling a grammar against Llama 3's vocabulary take: parse, checks, per-rule
 * automata, and every stack-top state's accepted and uncertain token sets ({@link
 * CompiledGrammar#compile}, on all cores)? {@code json} is {@link Grammar#json()}'s text; the
 * others are the files under {@code docs/grammars/} (run from the repository root). {@link
 * #firstMask}: the lazy path the runtime takes, up to the first mask.
 *
 * <pre>
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" org.openjdk.jmh.Main GrammarCompileBench -f 1 -wi 3 -i 5 -w 1s -r 2s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class GrammarCompileBench {
  @Param({"json", "arithmetic", "sql-select", "tool-call"})
  public String grammar;

  String text;
  TokenizerJsonVocabulary vocab;

  @Setup
  public void setup() throws IOException {
    text = Files.readString(Path.of("docs", "grammars", grammar + ".gbnf"));
    vocab = TokenizerJsonVocabulary.load(BenchData.file("tokenizers/llama3/tokenizer.json"));
  }

  @Benchmark
  public CompiledGrammar compile() {
    return CompiledGrammar.compile(Grammar.parse(text), vocab);
  }

  /**
   * What the runtime does before a request's first step (issue 27): parse and compile the rules,
   * {@link CompiledGrammar#compileLazily}, {@link CompiledGrammar#precompute} (the first states'
   * sets within its time budget) and the first mask; {@code json} through {@link Grammar#json()}
   * itself (built once, as the runtime uses it).
   */
  @Benchmark
  public long[] firstMask() {
    Grammar g = grammar.equals("json") ? Grammar.json() : Grammar.parse(text);
    CompiledGrammar cg = CompiledGrammar.compileLazily(g, vocab);
    cg.precompute();
    GrammarMatcher m = cg.newMatcher();
    return m.allowed(m.initialState());
  }
}
