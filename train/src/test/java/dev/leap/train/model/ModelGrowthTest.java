package dev.leap.train.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.model.HfModelWriter;
import dev.leap.model.LlamaModel;
import dev.leap.model.ModelConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grown model (more heads, key-value heads, MLP units and layers) computes the old model's logits
 * through the runtime's {@link LlamaModel}, to 1e-5, yet is not the old model: a training step's
 * gradient reaches the new heads' zero output columns and the new layers.
 */
class ModelGrowthTest {
  private static final int VOCAB = 300;

  private static ModelConfig shape(int ff, int layers, int heads, int kvHeads) {
    return ModelConfig.llama(VOCAB, 64, ff, layers, heads, kvHeads, 16).withMaxPositions(512);
  }

  @Test
  void grownModelKeepsTheLogitsThroughTheRuntime(@TempDir Path dir) throws Exception {
    ModelConfig from = shape(160, 2, 4, 2);
    ModelConfig to = shape(192, 3, 8, 4);
    Map<String, float[]> grown;
    try (TrainableLlama m = TrainableLlama.initialize(from, Device.cpu(), 3, 0.08)) {
      m.save(dir.resolve("old"), HfModelWriter.StorageType.F32, VOCAB - 1);
      grown = ModelGrowth.grow(m.values(), from, to, 5, 0.08);
    }
    try (TrainableLlama m = TrainableLlama.fromValues(to, Device.cpu(), grown)) {
      m.save(dir.resolve("new"), HfModelWriter.StorageType.F32, VOCAB - 1);
    }
    SplittableRandom rnd = new SplittableRandom(11);
    try (LlamaModel before = LlamaModel.load(dir.resolve("old"), Device.cpu(), 1024);
        LlamaModel after = LlamaModel.load(dir.resolve("new"), Device.cpu(), 1024)) {
      assertEquals(8, after.config().numHeads());
      assertEquals(3, after.config().numLayers());
      for (int trial = 0; trial < 4; trial++) {
        int[] seq = rnd.ints(20 + rnd.nextInt(120), 0, VOCAB).toArray();
        float[] a = VocabularySurgeryTest.logits(before, seq);
        float[] b = VocabularySurgeryTest.logits(after, seq);
        assertEquals(a.length, b.length);
        for (int i = 0; i < a.length; i++) {
          assertEquals(a[i], b[i], 1e-5, "logit " + i);
        }
      }
    }
  }

  @Test
  void oldValuesAreCopiedAndNewPartsLearn() {
    ModelConfig from = shape(160, 2, 4, 2);
    ModelConfig to = shape(160, 3, 8, 4);
    try (TrainableLlama m = TrainableLlama.initialize(from, Device.cpu(), 3, 0.08)) {
      Map<String, float[]> old = m.values();
      Map<String, float[]> grown = ModelGrowth.grow(old, from, to, 5, 0.08);
      assertArrayEquals(old.get("embed"), grown.get("embed"));
      // Layer 0's q rows: the old 64 rows (4 heads of 16) then 64 fresh ones; its k rows start at
      // 128.
      float[] oq = old.get("layers.0.qkv");
      float[] nq = grown.get("layers.0.qkv");
      for (int i = 0; i < 64 * 64; i++) {
        assertEquals(oq[i], nq[i]);
        assertEquals(oq[64 * 64 + i % (32 * 64)], nq[128 * 64 + i % (32 * 64)], "k rows");
      }
      float[] o = grown.get("layers.1.o");
      for (int r = 0; r < 64; r++) {
        for (int c = 0; c < 128; c++) {
          float expected = c < 64 ? old.get("layers.1.o")[r * 64 + c] : 0f;
          assertEquals(expected, o[r * 128 + c], "o[" + r + "][" + c + "]");
        }
      }
      assertTrue(isZero(grown.get("layers.2.o")) && isZero(grown.get("layers.2.down")));
      assertTrue(!isZero(grown.get("layers.2.qkv")) && !isZero(grown.get("layers.2.gate_up")));
      try (TrainableLlama g = TrainableLlama.fromValues(to, Device.cpu(), grown);
          NDManager scope = g.newScope()) {
        int[][] ids = {new SplittableRandom(2).ints(40, 0, VOCAB).toArray()};
        long[] rows = new long[39];
        long[] targets = new long[39];
        for (int i = 0; i < 39; i++) {
          rows[i] = i;
          targets[i] = ids[0][i + 1];
        }
        try (ai.djl.training.GradientCollector gc =
            ai.djl.engine.Engine.getInstance().newGradientCollector()) {
          gc.backward(g.loss(scope, ids, rows, targets));
        }
        NDArray go = g.parameters().get("layers.1.o").getGradient();
        float[] gradO = go.toFloatArray();
        double newColumns = 0;
        for (int r = 0; r < 64; r++) {
          for (int c = 64; c < 128; c++) {
            newColumns += Math.abs(gradO[r * 128 + c]);
          }
        }
        assertTrue(newColumns > 0, "the new heads' output columns get a gradient");
        assertTrue(
            !isZero(g.parameters().get("layers.2.down").getGradient().toFloatArray()),
            "the new layer's down projection gets a gradient");
      }
    }
  }

  @Test
  void shrinkingOrRegroupingIsRefused() {
    ModelConfig from = shape(160, 2, 4, 2);
    try (TrainableLlama m = TrainableLlama.initialize(from, Device.cpu(), 3, 0.08)) {
      Map<String, float[]> v = m.values();
      for (ModelConfig bad :
          List.of(
              shape(160, 1, 4, 2),
              shape(128, 2, 4, 2),
              shape(160, 2, 8, 2),
              shape(160, 2, 2, 1),
              ModelConfig.llama(VOCAB + 1, 64, 160, 2, 4, 2, 16))) {
        IllegalArgumentException e =
            assertThrows(
                IllegalArgumentException.class, () -> ModelGrowth.grow(v, from, bad, 1, 0.1));
        assertTrue(e.getMessage().startsWith("cannot grow"), e.getMessage());
      }
    }
  }

  private static boolean isZero(float[] v) {
    for (float x : v) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }
}
