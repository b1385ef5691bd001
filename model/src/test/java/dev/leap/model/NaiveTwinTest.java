package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DJL model against its naive twin ({@link NaiveLlama}) on seeded random configurations of
 * every supported variant, written by {@link HfModelWriter} and read by the real loader: GQA and
 * MQA, head_dim unlike hidden/heads, q/k/v and o biases, Qwen3's q/k norm, llama3 RoPE scaling,
 * tied and untied embeddings, F32/F16/BF16 storage. Always runs (no shared data needed).
 */
class NaiveTwinTest {

  @Test
  void djlModelEqualsNaiveTwinOnRandomVariants(@TempDir Path tmp) {
    long seed = 515L;
    SplittableRandom rnd = new SplittableRandom(seed);
    String[] types = {"llama", "mistral", "qwen2", "qwen3"};
    for (int round = 0; round < 8; round++) {
      String type = types[round % types.length];
      int kv = 1 + rnd.nextInt(2);
      int heads = kv * (1 + rnd.nextInt(3));
      int hd = 4 * (2 + rnd.nextInt(3));
      int hidden = 8 * (2 + rnd.nextInt(4));
      boolean llama3 = rnd.nextBoolean();
      boolean attnBias = type.equals("llama") && rnd.nextBoolean();
      ModelConfig c =
          new ModelConfig(
              type,
              97,
              hidden,
              24 + rnd.nextInt(20),
              1 + rnd.nextInt(2),
              heads,
              kv,
              hd,
              128,
              1e-5,
              llama3 ? 5e5 : 1e4,
              llama3 ? "llama3" : "default",
              8,
              1,
              4,
              32,
              rnd.nextBoolean(),
              type.equals("qwen2") || attnBias,
              attnBias,
              type.equals("qwen3"),
              "float32");
      HfModelWriter.StorageType storage = HfModelWriter.StorageType.values()[round % 3];
      Path dir = tmp.resolve("m" + round);
      HfModelWriter.write(dir, c, seed + round, 0.3, storage, 2);
      int len = 6 + rnd.nextInt(20);
      int[] tokens = rnd.ints(len, 0, 97).toArray();
      double[][] expected = new NaiveLlama(dir).logits(tokens);
      int[] slots = new int[len];
      for (int i = 0; i < len; i++) {
        slots[i] = len - 1 - i; // reversed slots: order must not matter
      }
      try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 64, "f32");
          NDManager step = m.manager().newSubManager()) {
        float[] got =
            m.forward(
                    step, List.of(new LlamaModel.SequenceInput(tokens, 0, new int[0], slots, true)))
                .toFloatArray();
        double worst = 0;
        for (int t = 0; t < len; t++) {
          for (int v = 0; v < 97; v++) {
            worst = Math.max(worst, Math.abs(got[t * 97 + v] - expected[t][v]));
          }
        }
        assertTrue(
            worst < 1e-3,
            "seed "
                + seed
                + " round "
                + round
                + " "
                + c
                + " "
                + storage
                + ": logits differ by "
                + worst);
      }
    }
  }
}
