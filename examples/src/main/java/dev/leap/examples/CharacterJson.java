package dev.leap.examples;

import dev.leap.runtime.Constraint;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Character JSON: SGLang's benchmark task as a program. Several requests run together (continuous
 * batching); most of each output is forced JSON skeleton, which jump-forward appends without asking
 * the model.
 *
 * <p>Run: {@code java -cp ... dev.leap.examples.CharacterJson [MODEL_DIR]}.
 */
public final class CharacterJson {
  static final String REGEX =
      "\\{\\n"
          + "    \"name\": \"[\\w\\d\\s]{1,16}\",\\n"
          + "    \"house\": \"(Gryffindor|Slytherin|Ravenclaw|Hufflepuff)\",\\n"
          + "    \"blood status\": \"(Pure-blood|Half-blood|Muggle-born)\",\\n"
          + "    \"wand\": \\{\\n"
          + "        \"wood\": \"[\\w\\d\\s]{1,16}\",\\n"
          + "        \"length\": [0-9]{1,2}\\.[0-9]{0,2}\\n"
          + "    \\},\\n"
          + "    \"alive\": \"(Alive|Deceased)\"\\n"
          + "\\}";

  public static void main(String[] args) {
    Path model = args.length > 0 ? Path.of(args[0]) : DemoModel.ensure();
    List<String> names =
        List.of("Harry Potter", "Hermione Granger", "Ron Weasley", "Luna Lovegood");

    try (LeapRuntime runtime = LeapRuntime.builder().setModelDir(model).build()) {
      List<GenerationRequest> requests = new ArrayList<>();
      for (String name : names) {
        String prompt =
            name
                + " is a character in Harry Potter. Please fill in the following information about this character.\n";
        requests.add(
            GenerationRequest.of(prompt, Constraint.regex(REGEX), SamplingParams.greedy()));
      }
      List<Generation> results = runtime.generateAll(requests);
      for (int i = 0; i < names.size(); i++) {
        Generation g = results.get(i);
        System.out.println(
            "== "
                + names.get(i)
                + " ("
                + g.stats().forwardPasses()
                + " forward passes for "
                + g.tokenIds().length
                + " tokens, "
                + g.stats().tokensJumped()
                + " jumped)");
        System.out.println(g.text());
      }
    }
  }
}
