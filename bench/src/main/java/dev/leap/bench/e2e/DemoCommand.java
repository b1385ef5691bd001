package dev.leap.bench.e2e;

import dev.leap.bench.BenchData;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationStats;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code leap demo}: the main job on the embedded default model — one character JSON generated
 * with jump-forward and its statistics, then a short jump-forward against token-by-token comparison
 * (the character benchmark on 10 names).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Character JSON on the embedded demo model, jump-forward vs token-by-token.")
public final class DemoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--model", defaultValue = "demo", paramLabel = "DIR|demo", description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(names = "--requests", defaultValue = "10", description = "Names in the comparison. Default: ${DEFAULT-VALUE}.")
  int requests;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Path dir = BenchCommand.modelDir(model, spec.commandLine().getErr());
    String prompt = BenchData.sglang("character_regex").get("prompt_template").asText().replace("{name}", "Hermione Granger");
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      Generation g = rt.generate(prompt, Constraint.regex(BenchData.characterRegex()), SamplingParams.greedy());
      GenerationStats s = g.stats();
      out.println("Prompt: " + prompt.strip());
      out.println(g.text());
      out.printf("complete: %s, %d output tokens: %d sampled, %d jumped (%d bytes) in %d jumps; %d forward passes; %.0f ms%n%n",
          g.isComplete(), g.tokenIds().length, s.tokensSampled(), s.tokensJumped(), s.bytesJumped(), s.jumps(),
          s.forwardPasses(), s.totalMs());
      out.flush();
    }
    CommandLine bench = new CommandLine(new BenchCommand());
    bench.setOut(out);
    bench.setErr(spec.commandLine().getErr());
    bench.setExecutionExceptionHandler(spec.commandLine().getExecutionExceptionHandler());
    return bench.execute("characters", "--model", dir.toString(), "--requests", String.valueOf(requests),
        "--parallel", String.valueOf(requests), "--repeats", "1",
        "--out", "bench-results/demo.json", "--chart", "bench-results/demo.png");
  }
}
