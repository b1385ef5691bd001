package dev.leap.train.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import dev.leap.model.HfModelWriter;
import dev.leap.model.LlamaModel;
import dev.leap.model.ModelConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The naive twin of training: weights trained by {@link TrainableLlama} (full-sequence forward,
 * blockwise causal attention, fused parameters), written as a Hugging Face directory in float32 and
 * loaded through the runtime's {@link LlamaModel} (KV pool, one token at a time after a short
 * prefill), give the same logits at every position, to 1e-4.
 */
class TrainingTwinTest {

  static ModelConfig tiny(int maxPositions) {
    ModelConfig c = ModelConfig.llama(512, 64, 160, 2, 4, 2, 16);
    return c.withMaxPositions(maxPositions);
  }

  @Test
  void trainedWeightsLoadedByTheRuntimeGiveTheTrainingLogits(@TempDir Path dir) throws Exception {
    twin(tiny(1024), dir);
  }

  /**
   * A grown model's shape ({@link ModelGrowth}): more query heads than the hidden size holds (8
   * heads of 16 against 64), three layers.
   */
  @Test
  void attentionWiderThanTheHiddenSizeToo(@TempDir Path dir) throws Exception {
    twin(ModelConfig.llama(512, 64, 160, 3, 8, 4, 16).withMaxPositions(1024), dir);
  }

  private static void twin(ModelConfig c, Path dir) throws Exception {
    SplittableRandom rnd = new SplittableRandom(5);
    // Longer than one attention block, so the blockwise path is compared too.
    int t = TrainableLlama.BLOCK + 45;
    int[] seq = rnd.ints(t, 0, c.vocabSize()).toArray();
    float[] trained;
    try (TrainableLlama m = TrainableLlama.initialize(c, Device.cpu(), 3, 0.05);
        AdamW opt = new AdamW(m.parameters(), 0.9f, 0.95f, 1e-8f, 0.1f)) {
      // A few real steps, so that the compared weights are trained ones (norms no longer one).
      for (int step = 0; step < 3; step++) {
        int[][] ids = {rnd.ints(40, 0, c.vocabSize()).toArray()};
        long[] rows = new long[39];
        long[] labels = new long[39];
        for (int i = 0; i < 39; i++) {
          rows[i] = i;
          labels[i] = ids[0][i + 1];
        }
        try (NDManager s = m.newScope();
            GradientCollector gc = Engine.getInstance().newGradientCollector()) {
          gc.backward(m.loss(s, ids, rows, labels).div(39));
        }
        opt.step(1e-2f, 1f);
      }
      long[] all = new long[t];
      for (int i = 0; i < t; i++) {
        all[i] = i;
      }
      try (NDManager s = m.newScope()) {
        NDArray logits = m.logits(s, m.hidden(s, new int[][] {seq}), all);
        trained = logits.toFloatArray();
      }
      m.save(dir, HfModelWriter.StorageType.F32);
    }
    int v = c.vocabSize();
    try (LlamaModel runtime = LlamaModel.load(dir, Device.cpu(), 2048)) {
      int prefill = 7;
      List<float[]> rows = new ArrayList<>();
      try (NDManager s = runtime.manager().newSubManager()) {
        int[] slots = range(0, prefill);
        float[] first =
            runtime
                .forward(
                    s,
                    List.of(
                        new LlamaModel.SequenceInput(
                            java.util.Arrays.copyOf(seq, prefill), 0, new int[0], slots, true)))
                .toFloatArray();
        for (int r = 0; r < prefill; r++) {
          rows.add(java.util.Arrays.copyOfRange(first, r * v, (r + 1) * v));
        }
      }
      for (int p = prefill; p < t; p++) {
        try (NDManager s = runtime.manager().newSubManager()) {
          rows.add(
              runtime
                  .forward(
                      s,
                      List.of(
                          new LlamaModel.SequenceInput(
                              new int[] {seq[p]}, p, range(0, p), new int[] {p}, false)))
                  .toFloatArray());
        }
      }
      for (int p = 0; p < t; p++) {
        float[] r = rows.get(p);
        for (int i = 0; i < v; i++) {
          assertEquals(trained[p * v + i], r[i], 1e-4, "position " + p + " logit " + i);
        }
      }
    }
  }

  private static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }
}
