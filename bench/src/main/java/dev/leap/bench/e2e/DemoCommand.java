package dev.leap.bench.e2e;

import dev.leap.bench.BenchData;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationStats;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap demo}: the main job on the embedded default model — one character JSON generated with
 * jump-forward and its statistics, a short jump-forward against token-by-token comparison (the
 * character benchmark on 10 names), then an extraction from a held-out long article by both modes
 * beside the article's facts.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Character JSON and a long-document extraction on the embedded demo model, jump-forward vs token-by-token.")
public final class DemoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--model",
      defaultValue = "demo",
      paramLabel = "DIR|demo",
      description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description =
          "auto (the checkpoint's; the demo model's is f16),"
              + " f32, f16 or bf16 (not on the CPU). Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--device",
      defaultValue = "cpu",
      description =
          "DJL device: cpu, gpu or gpuN (CUDA: README, Devices). Default: ${DEFAULT-VALUE}.")
  String device;

  @Option(
      names = "--requests",
      defaultValue = "10",
      description = "Names in the comparison. Default: ${DEFAULT-VALUE}.")
  int requests;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Path dir = DemoModel.resolve(model, err);
    String prompt = BenchData.characterPrompt("Hermione Granger");
    phase(err, "loading the model from " + dir + " and writing Hermione Granger's sheet");
    try (LeapRuntime rt =
        LeapRuntime.builder().setModelDir(dir).optDevice(device).optDtype(dtype).build()) {
      Generation g =
          rt.generate(
              prompt, Constraint.regex(BenchData.characterRegex()), SamplingParams.greedy());
      GenerationStats s = g.stats();
      out.println("Prompt: " + prompt.strip());
      out.println(g.text());
      out.printf(
          "complete: %s, %d output tokens: %d sampled, %d jumped (%d bytes) in %d jumps; %d forward passes; %.0f ms%n%n",
          g.isComplete(),
          g.tokenIds().length,
          s.tokensSampled(),
          s.tokensJumped(),
          s.bytesJumped(),
          s.jumps(),
          s.forwardPasses(),
          s.totalMs());
      out.flush();
    }
    phase(
        err, "the character benchmark on " + requests + " names, token-by-token and jump-forward");
    CommandLine bench = new CommandLine(new BenchCommand());
    bench.setOut(out);
    bench.setErr(spec.commandLine().getErr());
    bench.setExecutionExceptionHandler(spec.commandLine().getExecutionExceptionHandler());
    int rc =
        bench.execute(
            "characters",
            "--model",
            dir.toString(),
            "--dtype",
            dtype,
            "--device",
            device,
            "--requests",
            String.valueOf(requests),
            "--parallel",
            String.valueOf(requests),
            "--repeats",
            "1",
            "--out",
            "bench-results/demo.json",
            "--chart",
            "bench-results/demo.png");
    if (rc != 0) {
      return rc;
    }
    phase(
        err,
        "a held-out long article, extracted by both modes (prefill of about 3,000 tokens each)");
    longDocument(dir, out);
    return 0;
  }

  /** A line on standard error saying what the demo does next (its phases take 5-30 s each). */
  static void phase(PrintWriter err, String what) {
    err.println("leap demo: " + what + " ...");
    err.flush();
  }

  /**
   * One held-out city article (about 3,000 tokens): the extraction by both modes beside the truth.
   */
  private void longDocument(Path dir, PrintWriter out) {
    long citySeed = City.EVAL_SEED_BASE + 100;
    City city = City.open(citySeed);
    String regex = BenchData.cityRegex();
    try (LeapRuntime jf =
            LeapRuntime.builder().setModelDir(dir).optDevice(device).optDtype(dtype).build();
        LeapRuntime tbt =
            LeapRuntime.builder()
                .setModelDir(dir)
                .optDevice(device)
                .optJumpForward(false)
                .optDtype(dtype)
                .build()) {
      String doc = CityDocument.text(city, citySeed, 3000, jf.tokenizer(), true);
      String prompt = CityDocument.prompt(doc, CityDocument.questions().get(0));
      out.printf(
          "%nLong-document extraction: a held-out article about a fictional city (%d tokens), SGLang's city_regex.%n",
          jf.tokenizer().encode(prompt).length);
      out.println(
          "Article begins: "
              + doc.substring(0, Math.min(doc.length(), 160)).replace("\n", " ")
              + " ...");
      out.println("Truth: " + city.fields());
      Generation a = null;
      for (LeapRuntime rt : new LeapRuntime[] {jf, tbt}) {
        Generation g = rt.generate(prompt, Constraint.regex(regex), SamplingParams.greedy());
        GenerationStats s = g.stats();
        out.printf("%n%s:%n%s%n", rt == jf ? "jump-forward" : "token-by-token", g.text());
        out.printf(
            "complete: %s; fields equal to the article's facts: %d of %d; %d output tokens (%d sampled, %d jumped); "
                + "%d forward passes; first token %.0f ms; total %.0f ms%n",
            g.isComplete(),
            FieldScore.correct(g.text(), city.fields()),
            city.fields().size(),
            g.tokenIds().length,
            s.tokensSampled(),
            s.tokensJumped(),
            s.forwardPasses(),
            s.timeToFirstTokenMs(),
            s.totalMs());
        if (a == null) {
          a = g;
        } else {
          out.printf("%nidentical outputs: %s%n", a.text().equals(g.text()));
        }
      }
      Generation later =
          jf.generate(
              CityDocument.prompt(doc, CityDocument.questions().get(1)),
              Constraint.regex(regex),
              SamplingParams.greedy());
      out.printf(
          "A second question over the same article (jump-forward): %d of %d prompt tokens from the radix cache, "
              + "first token after %.0f ms.%n",
          later.stats().cachedPromptTokens(),
          later.stats().promptTokens(),
          later.stats().timeToFirstTokenMs());
      out.flush();
    }
  }
}
