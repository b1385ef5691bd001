package dev.leap.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.options.RuntimeOptionsMixin;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.GenerationStats;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code leap generate}: one constrained generation, printed as text or as one JSON object. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = "Generate text that matches a constraint.")
public final class GenerateCommand implements Callable<Integer>, JsonOutput {

  @Spec CommandSpec spec;

  @Mixin RuntimeOptionsMixin runtimeOptions;

  @ArgGroup(exclusive = true, multiplicity = "1")
  PromptSource prompt;

  static final class PromptSource {
    @Option(names = "--prompt", paramLabel = "TEXT", description = "The prompt text.")
    String text;

    @Option(
        names = "--prompt-ids",
        split = ",",
        paramLabel = "ID",
        description =
            "The prompt as token ids (comma separated); output ids, no constraint needed, no tokenizer needed.")
    int[] ids;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  ConstraintSource constraint;

  static final class ConstraintSource {
    @Option(
        names = "--regex",
        paramLabel = "R",
        description = "The output must fully match this regex.")
    String regex;

    @Option(
        names = "--choice",
        split = ",",
        paramLabel = "A,B",
        description = "The output must be one of these.")
    List<String> choices;

    @Option(
        names = "--json-schema",
        paramLabel = "FILE",
        description = "The output must be JSON that fits this schema.")
    Path jsonSchema;

    @Option(
        names = "--grammar",
        paramLabel = "FILE",
        description = "The output must be a text of this GBNF grammar.")
    Path grammar;
  }

  @Option(
      names = "--indent",
      defaultValue = "-1",
      paramLabel = "N",
      description = "With --json-schema: spaces per level, -1 for compact JSON (default).")
  int indent;

  @Option(
      names = "--lenient",
      description =
          "With --json-schema: ignore keywords that cannot be honoured exactly (each listed on stderr).")
  boolean lenient;

  @Option(names = "--no-jump-forward", description = "Decode forced text token by token.")
  boolean noJumpForward;

  @Option(
      names = "--max-tokens",
      defaultValue = "256",
      description = "Output tokens at most. Default: ${DEFAULT-VALUE}.")
  int maxTokens;

  @Option(names = "--temperature", defaultValue = "0", description = "0 = greedy (default).")
  double temperature;

  @Option(names = "--top-k", defaultValue = "0", description = "0 = no limit (default).")
  int topK;

  @Option(names = "--top-p", defaultValue = "1", description = "1 = no limit (default).")
  double topP;

  @Option(
      names = "--seed",
      defaultValue = "0",
      description = "Sampling seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--stop", split = ",", paramLabel = "S", description = "Stop strings.")
  List<String> stop;

  @Option(
      names = "--json",
      description = "Print one JSON object: text, tokenIds, finishReason, complete, stats.")
  boolean json;

  @Override
  public boolean json() {
    return json;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Path dir = runtimeOptions.modelDir(spec.commandLine().getErr());
    Constraint c = Constraint.none();
    if (constraint != null && constraint.regex != null) {
      c = Constraint.regex(constraint.regex);
    } else if (constraint != null && constraint.choices != null) {
      c = Constraint.choice(constraint.choices);
    } else if (constraint != null && constraint.jsonSchema != null) {
      c =
          Constraint.jsonSchema(
              ConstraintOptionsMixin.readSchema(constraint.jsonSchema), indent, lenient);
    } else if (constraint != null && constraint.grammar != null) {
      c = Constraint.grammar(ConstraintOptionsMixin.readFile(constraint.grammar, "grammar"));
    }
    SamplingParams params = new SamplingParams(temperature, topK, topP, seed, maxTokens, stop);
    GenerationRequest request =
        prompt.ids != null
            ? GenerationRequest.ofIds(prompt.ids, c, params)
            : GenerationRequest.of(prompt.text, c, params);
    LeapRuntime.Builder b =
        runtimeOptions.configure(
            LeapRuntime.builder().setModelDir(dir).optJumpForward(!noJumpForward));
    Generation g;
    try (LeapRuntime rt = b.build()) {
      g = rt.submit(request).join();
    }
    if (g.isError()) {
      throw new CliError(g.error());
    }
    if (json) {
      out.println(Json.MAPPER.writeValueAsString(toJson(g)));
    } else if (prompt.ids != null) {
      StringBuilder sb = new StringBuilder();
      for (int id : g.tokenIds()) {
        sb.append(sb.length() == 0 ? "" : ",").append(id);
      }
      out.println(sb);
    } else {
      out.println(g.text());
    }
    out.flush();
    return 0;
  }

  /** The JSON form of a result, with the field names documented in the README. */
  public static ObjectNode toJson(Generation g) {
    ObjectMapper m = Json.MAPPER;
    ObjectNode o = m.createObjectNode();
    o.put("text", g.text());
    ArrayNode ids = o.putArray("tokenIds");
    for (int id : g.tokenIds()) {
      ids.add(id);
    }
    o.put("finishReason", g.finishReason().jsonName());
    o.put("complete", g.isComplete());
    GenerationStats s = g.stats();
    ObjectNode st = o.putObject("stats");
    st.put("forwardPasses", s.forwardPasses());
    st.put("tokensSampled", s.tokensSampled());
    st.put("tokensJumped", s.tokensJumped());
    st.put("bytesJumped", s.bytesJumped());
    st.put("jumps", s.jumps());
    st.put("promptTokens", s.promptTokens());
    st.put("cachedPromptTokens", s.cachedPromptTokens());
    st.put("timeToFirstTokenMs", s.timeToFirstTokenMs());
    st.put("totalMs", s.totalMs());
    st.put("queueMs", s.queueMs());
    return o;
  }
}
