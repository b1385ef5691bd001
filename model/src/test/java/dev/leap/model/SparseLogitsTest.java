package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The constrained vocabulary projection ({@link LlamaModel#logits(NDArray, NDArray)} over the rows
 * {@link LlamaModel#headRows} gathers) against the naive twin's logits of the same tokens and
 * against the full projection's columns, on seeded random models and random token subsets: float32,
 * float16 at one row and at 8+ rows (the widened product), with and without float32 weight copies.
 */
class SparseLogitsTest {

  @Test
  void sparseLogitsEqualTheNaiveTwinsAndTheFullProjectionsColumns(@TempDir Path tmp) {
    long seed = 2424L;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 6; round++) {
      int kv = 1 + rnd.nextInt(2);
      int heads = kv * (1 + rnd.nextInt(3));
      int hd = 4 * (2 + rnd.nextInt(3));
      int hidden = 8 * (2 + rnd.nextInt(4));
      boolean half = round % 2 == 1;
      boolean tied = rnd.nextBoolean();
      ModelConfig c =
          new ModelConfig(
              "llama",
              97,
              hidden,
              24 + rnd.nextInt(20),
              1 + rnd.nextInt(2),
              heads,
              kv,
              hd,
              128,
              1e-5,
              1e4,
              "default",
              8,
              1,
              4,
              32,
              tied,
              false,
              false,
              false,
              half ? "float16" : "float32");
      Path dir = TestConfigs.writeRandom(tmp.resolve("m" + round), c, seed + round);
      int len =
          round < 2
              ? 1 + rnd.nextInt(4)
              : 9 + rnd.nextInt(12); // below and above WideProducts.WIDE_ROWS
      int[] tokens = rnd.ints(len, 0, 97).toArray();
      double[][] naive = new NaiveLlama(dir).logits(tokens);
      int[] slots = new int[len];
      for (int i = 0; i < len; i++) {
        slots[i] = i;
      }
      LlamaModel.CpuF32Weights copies =
          round % 4 == 3 ? LlamaModel.CpuF32Weights.OFF : LlamaModel.CpuF32Weights.ON;
      try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 64, half ? "f16" : "f32", copies);
          NDManager step = m.manager().newSubManager()) {
        NDArray h =
            m.hidden(
                step, List.of(new LlamaModel.SequenceInput(tokens, 0, new int[0], slots, true)));
        float[] full = m.logits(h).toFloatArray();
        for (int trial = 0; trial < 8; trial++) {
          int k = 1 + rnd.nextInt(97);
          long[] ids = rnd.longs(0, 97).distinct().limit(k).sorted().toArray();
          NDArray sparse = m.logits(h, m.headRows(step, ids));
          assertEquals(
              List.of((long) len, (long) k),
              List.of(sparse.getShape().get(0), sparse.getShape().get(1)));
          float[] got = sparse.toFloatArray();
          double vsNaive = 0;
          double vsFull = 0;
          for (int t = 0; t < len; t++) {
            for (int j = 0; j < k; j++) {
              int id = (int) ids[j];
              vsNaive = Math.max(vsNaive, Math.abs(got[t * k + j] - naive[t][id]));
              vsFull = Math.max(vsFull, Math.abs(got[t * k + j] - full[t * 97 + id]));
            }
          }
          String what =
              "seed "
                  + seed
                  + " round "
                  + round
                  + " "
                  + c
                  + " "
                  + len
                  + " rows, "
                  + k
                  + " tokens, "
                  + copies;
          // F16 bounds as HalfPrecisionTest's (the naive twin is double precision); the sparse and
          // full
          // products read the same weights and differ by their rounding alone.
          assertTrue(
              vsNaive < (half ? 0.05 : 1e-3), what + ": differs from the naive twin by " + vsNaive);
          assertTrue(
              vsFull < (half ? 0.02 : 1e-5),
              what + ": differs from the full projection by " + vsFull);
        }
      }
    }
  }
}
