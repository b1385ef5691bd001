package dev.leap.examples;

import dev.leap.runtime.Constraint;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.Generation;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.nio.file.Path;

/**
 * Long-document extraction: several questions over one long document. The first request computes
 * the document's keys and values; the radix cache serves them to the later requests, which prefill
 * only their own question.
 *
 * <p>Run: {@code java -cp ... dev.leap.examples.LongDocumentExtraction [MODEL_DIR]}.
 */
public final class LongDocumentExtraction {
  public static void main(String[] args) {
    Path model = args.length > 0 ? Path.of(args[0]) : DemoModel.ensure();
    StringBuilder doc = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      doc.append("Paragraph ")
          .append(i)
          .append(": Velmora is a port city in the north of Kestria, on the river Orla. ")
          .append("Its harbour, its glass market and its lighthouse draw visitors every season.\n");
    }
    String[] questions = {
      "What is the city's name?",
      "Which country is it in?",
      "Which river flows through it?",
      "What draws visitors?",
      "What is the largest district?"
    };
    String answerRegex = "Answer: [A-Z][a-z]+( [a-z]+){0,3}\\.";

    try (LeapRuntime runtime = LeapRuntime.builder().setModelDir(model).build()) {
      for (String q : questions) {
        String prompt = "Read the document and answer.\n" + doc + "Question: " + q + "\n";
        Generation g =
            runtime.generate(
                prompt,
                Constraint.regex(answerRegex),
                SamplingParams.builder().maxTokens(32).build());
        int prefilled = g.stats().promptTokens() - g.stats().cachedPromptTokens();
        System.out.printf(
            "%-40s %-40s prompt %d tokens, %d from the cache, %d prefilled; first token after %.0f ms%n",
            q,
            g.text(),
            g.stats().promptTokens(),
            g.stats().cachedPromptTokens(),
            prefilled,
            g.stats().timeToFirstTokenMs());
      }
    }
  }
}
