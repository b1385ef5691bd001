package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import dev.leap.model.HfModelWriter;
import dev.leap.model.LlamaModel;
import dev.leap.model.ModelConfig;
import dev.leap.runtime.testing.TestModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stop strings, seeds, transformers 5's config layout, and sharded weights. */
class SamplingAndLoadingTest {

  @Test
  void stopStringsEndTheTextAndSeedsReproduce() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      Constraint c = Constraint.regex("(ab|cd)+;(x|y)+");
      Generation full = rt.generate("Go:", c, SamplingParams.builder().maxTokens(12).build());
      assertFalse(full.isError());
      // Stopping at ";" keeps what came before it, drops the stop string, and reports STOP.
      Generation stopped =
          rt.generate("Go:", c, SamplingParams.builder().maxTokens(12).stop(";").build());
      assertEquals(FinishReason.STOP, stopped.finishReason());
      assertFalse(stopped.text().contains(";"), stopped.text());
      assertTrue(full.text().startsWith(stopped.text()), full.text() + " vs " + stopped.text());
      assertFalse(stopped.isComplete());
      // Same seed, same sample; the generator is the request's own, whatever else runs.
      SamplingParams hot = SamplingParams.builder().temperature(1.5).seed(7).maxTokens(16).build();
      Generation a = rt.generate("Seed:", Constraint.none(), hot);
      Generation b =
          rt.generateAll(
                  List.of(
                      GenerationRequest.of(
                          "Other:",
                          Constraint.none(),
                          SamplingParams.builder().temperature(1).seed(1).build()),
                      GenerationRequest.of("Seed:", Constraint.none(), hot)))
              .get(1);
      assertArrayEquals(a.tokenIds(), b.tokenIds());
      Generation other =
          rt.generate(
              "Seed:",
              Constraint.none(),
              SamplingParams.builder().temperature(1.5).seed(8).maxTokens(16).build());
      assertNotEquals(
          java.util.Arrays.toString(a.tokenIds()), java.util.Arrays.toString(other.tokenIds()));
    }
  }

  @Test
  void shardedWeightsAndTheRopeParametersLayoutLoad(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("m");
    ModelConfig c = ModelConfig.llama(64, 16, 32, 2, 2, 1, 8);
    HfModelWriter.write(dir, c, 3, 0.3, HfModelWriter.StorageType.F16, 2);
    int[] tokens = {1, 5, 9, 3};
    float[] before;
    try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 16);
        NDManager s = m.manager().newSubManager()) {
      before =
          m.forward(
                  s,
                  List.of(
                      new LlamaModel.SequenceInput(
                          tokens, 0, new int[0], new int[] {0, 1, 2, 3}, true)))
              .toFloatArray();
    }
    // The same weights behind model.safetensors.index.json, and the config in transformers 5's
    // layout.
    Files.move(dir.resolve("model.safetensors"), dir.resolve("model-00001-of-00001.safetensors"));
    StringBuilder map = new StringBuilder("{\"metadata\": {}, \"weight_map\": {");
    String header =
        new String(
            Files.readAllBytes(dir.resolve("model-00001-of-00001.safetensors")),
            8,
            4000,
            java.nio.charset.StandardCharsets.ISO_8859_1);
    java.util.regex.Matcher names =
        java.util.regex.Pattern.compile("\"(model\\.[^\"]+|lm_head\\.weight)\"").matcher(header);
    boolean first = true;
    while (names.find()) {
      map.append(first ? "" : ",")
          .append('"')
          .append(names.group(1))
          .append("\": \"model-00001-of-00001.safetensors\"");
      first = false;
    }
    Files.writeString(dir.resolve("model.safetensors.index.json"), map.append("}}").toString());
    String cfg = Files.readString(dir.resolve("config.json"));
    cfg =
        cfg.replace(
            "\"rope_theta\" : 10000.0,",
            "\"rope_parameters\" : {\"rope_theta\": 10000.0, \"rope_type\": \"default\"},");
    Files.writeString(dir.resolve("config.json"), cfg);
    assertTrue(cfg.contains("rope_parameters"), cfg);
    try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 16);
        NDManager s = m.manager().newSubManager()) {
      float[] after =
          m.forward(
                  s,
                  List.of(
                      new LlamaModel.SequenceInput(
                          tokens, 0, new int[0], new int[] {3, 2, 1, 0}, true)))
              .toFloatArray();
      assertArrayEquals(before, after, 1e-5f);
    }
  }
}
