package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packed float16 vocabulary projection ({@link PackedHead}, FBGEMM's float16 GEMM) against its
 * naive twins: a double-precision dot product of the same float16 values (the product must be exact
 * up to a float32 sum: any rounding of the weights, to bfloat16 say, is 100 times outside the
 * bound) and the path it replaces (PyTorch's float16 product, whose logits are rounded to float16),
 * on seeded random matrices of odd shapes and 1-40 rows; then inside {@link LlamaModel} on seeded
 * random float16 models: full logits with the packed head on and off and against {@link
 * NaiveLlama}, and the constrained projection equal to the full one's columns.
 */
class PackedHeadTest {

  /** Unit roundoff of float32. */
  private static final double U32 = 0x1p-24;

  @Test
  void packedProductEqualsDoublePrecisionDotProducts() {
    long seed = 2451L;
    SplittableRandom rnd = new SplittableRandom(seed);
    double worstRel = 0;
    double worstVsF16 = 0;
    try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
      for (int round = 0; round < 12; round++) {
        int vocab = 1 + rnd.nextInt(round < 6 ? 300 : 3000);
        int hidden = 1 + rnd.nextInt(round % 3 == 0 ? 40 : 320);
        int rows = round % 4 == 0 ? 1 : 1 + rnd.nextInt(40);
        double scale = Math.pow(2, rnd.nextInt(-8, 4));
        float[] w = halves(rnd, vocab * hidden, scale);
        float[] x = halves(rnd, rows * hidden, 1.0);
        String what =
            "seed " + seed + " round " + round + ": " + rows + " x " + hidden + " x " + vocab;
        try (NDManager step = manager.newSubManager()) {
          NDArray head = step.create(w, new Shape(vocab, hidden)).toType(DataType.FLOAT16, false);
          NDArray xs = step.create(x, new Shape(rows, hidden)).toType(DataType.FLOAT16, false);
          w = head.toType(DataType.FLOAT32, false).toFloatArray(); // the float16 values
          x = xs.toType(DataType.FLOAT32, false).toFloatArray();
          try (PackedHead packed = PackedHead.pack(step, head)) {
            assertNotNull(packed, what + ": FBGEMM's float16 GEMM did not load");
            assertEquals(vocab, packed.rows());
            NDArray out = packed.logits(xs);
            assertEquals(DataType.FLOAT32, out.getDataType());
            assertEquals(new Shape(rows, vocab), out.getShape());
            float[] got = out.toFloatArray();
            // the sampler masks logits in place: not an inference-mode tensor (a regression of
            // the first version, which failed every masked step of `leap bench peers`)
            out.set(step.create(new boolean[rows * vocab]).reshape(rows, vocab), -1f);
            out.set(new ai.djl.ndarray.index.NDIndex("0, 0"), Float.NEGATIVE_INFINITY);
            assertEquals(Float.NEGATIVE_INFINITY, out.getFloat(0, 0));
            float[] f16 =
                xs.matMul(head.transpose()).toType(DataType.FLOAT32, false).toFloatArray();
            for (int r = 0; r < rows; r++) {
              for (int v = 0; v < vocab; v++) {
                double exact = 0;
                double abs = 0;
                for (int k = 0; k < hidden; k++) {
                  double t = (double) x[r * hidden + k] * w[v * hidden + k];
                  exact += t;
                  abs += Math.abs(t);
                }
                // a float32 sum of exact products: |error| <= (hidden - 1) u sum |terms|
                double bound = hidden * U32 * abs + 1e-30;
                double err = Math.abs(got[r * vocab + v] - exact);
                assertTrue(
                    err <= bound,
                    what
                        + ", row "
                        + r
                        + " token "
                        + v
                        + ": "
                        + got[r * vocab + v]
                        + " vs "
                        + exact);
                worstRel = Math.max(worstRel, err / (abs + 1e-30));
                // the replaced path: the same sum rounded to float16 (half an ulp: 2^-11 relative,
                // or 2^-25 below float16's normal range)
                double f16Bound = Math.max(Math.abs(exact) * 0x1p-11, 0x1p-25) + 2 * bound;
                double d = Math.abs(got[r * vocab + v] - f16[r * vocab + v]);
                assertTrue(
                    d <= f16Bound,
                    what
                        + ", row "
                        + r
                        + " token "
                        + v
                        + ": float16 product "
                        + f16[r * vocab + v]);
                worstVsF16 = Math.max(worstVsF16, d / f16Bound);
              }
            }
          }
        }
      }
    }
    System.out.printf(
        "packed float16 head: largest error / sum |terms| %.2e (float32 unit roundoff %.2e);"
            + " largest difference from the float16 product %.2f of its bound%n",
        worstRel, U32, worstVsF16);
  }

  @Test
  void modelLogitsWithPackedHeadEqualTheTwins(@TempDir Path tmp) {
    long seed = 2452L;
    SplittableRandom rnd = new SplittableRandom(seed);
    double worstNaive = 0;
    double worstOff = 0;
    for (int round = 0; round < 4; round++) {
      int kv = 1 + rnd.nextInt(2);
      int heads = kv * (1 + rnd.nextInt(3));
      int hd = 4 * (2 + rnd.nextInt(3));
      int hidden = 8 * (2 + rnd.nextInt(4));
      ModelConfig c =
          new ModelConfig(
              "llama",
              97,
              hidden,
              24 + rnd.nextInt(20),
              2,
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
              round % 2 == 0,
              false,
              false,
              false,
              "float16");
      Path dir = tmp.resolve("m" + round);
      HfModelWriter.write(dir, c, seed + round, 0.3, HfModelWriter.StorageType.F16, 2);
      int len = round < 2 ? 1 + rnd.nextInt(4) : 9 + rnd.nextInt(40);
      int[] tokens = rnd.ints(len, 0, 97).toArray();
      double[][] naive = new NaiveLlama(dir).logits(tokens);
      LlamaModel.CpuF32Weights copies =
          round % 2 == 0 ? LlamaModel.CpuF32Weights.ON : LlamaModel.CpuF32Weights.OFF;
      String what = "seed " + seed + " round " + round + " " + c + ", " + len + " rows, " + copies;
      try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 64, "f16", copies);
          NDManager step = m.manager().newSubManager()) {
        assertTrue(m.hasPackedHead() && m.packedHead(), what + ": no packed head");
        NDArray h =
            m.hidden(
                step,
                List.of(
                    new LlamaModel.SequenceInput(
                        tokens, 0, new int[0], ReferenceModelTest.range(0, len), true)));
        float[] on = m.logits(h).toFloatArray();
        m.setPackedHead(false);
        assertFalse(m.packedHead());
        float[] off = m.logits(h).toFloatArray();
        m.setPackedHead(true);
        double naiveOn = 0;
        double naiveOff = 0;
        double diff = 0;
        for (int t = 0; t < len; t++) {
          for (int v = 0; v < 97; v++) {
            naiveOn = Math.max(naiveOn, Math.abs(on[t * 97 + v] - naive[t][v]));
            naiveOff = Math.max(naiveOff, Math.abs(off[t * 97 + v] - naive[t][v]));
            diff = Math.max(diff, Math.abs(on[t * 97 + v] - off[t * 97 + v]));
          }
        }
        worstNaive = Math.max(worstNaive, naiveOn);
        worstOff = Math.max(worstOff, diff);
        // the same products of the same float16 hidden states; the float16 path rounds its logits
        // to float16 (2^-11 relative), the rest of the error is the float16 layers', shared
        assertTrue(diff < 2e-2, what + ": packed head off " + diff);
        assertTrue(
            naiveOn <= naiveOff + 1e-2 && naiveOn < HalfPrecisionTest.REFERENCE_TOL,
            what + ": naive twin " + naiveOn + " (packed head off: " + naiveOff + ")");
        // the constrained projection computes in float32 too: the full projection's columns up to
        // the float32 sums' order
        assertTrue(m.widensProduct(1) && m.widensProduct(len));
        for (int trial = 0; trial < 4; trial++) {
          int k = 1 + rnd.nextInt(97);
          long[] ids = rnd.longs(0, 97).distinct().limit(k).sorted().toArray();
          NDArray wide = m.headRowsWide(step, ids);
          assertNotNull(wide, what);
          for (NDArray sparse :
              new NDArray[] {
                m.logits(h, m.headRows(step, ids), wide), m.logits(h, m.headRows(step, ids))
              }) {
            assertEquals(DataType.FLOAT32, sparse.getDataType());
            float[] got = sparse.toFloatArray();
            for (int t = 0; t < len; t++) {
              for (int j = 0; j < k; j++) {
                float full = on[t * 97 + (int) ids[j]];
                assertEquals(
                    full, got[t * k + j], 1e-5 * (1 + Math.abs(full)), what + " token " + ids[j]);
              }
            }
          }
        }
      }
    }
    System.out.printf(
        "packed head in random F16 models: largest logit difference %.2e from the naive twin,"
            + " %.2e from the float16 product%n",
        worstNaive, worstOff);
  }

  @Test
  void onlyFloat16WeightsOnTheCpuArePacked(@TempDir Path tmp) {
    Path dir = tmp.resolve("m");
    HfModelWriter.write(dir, TestConfigs.llama(), 7, 0.3, HfModelWriter.StorageType.F16, 2);
    try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 16, "f32")) {
      assertFalse(m.hasPackedHead());
      assertFalse(m.packedHead());
      assertFalse(m.widensProduct(1));
    }
    try (LlamaModel m =
        LlamaModel.load(dir, Device.cpu(), 16, "f16", LlamaModel.CpuF32Weights.OFF)) {
      assertTrue(m.hasPackedHead() && m.packedHead());
      m.setPackedHead(false);
      assertTrue(m.hasPackedHead() && !m.packedHead());
      assertFalse(m.widensProduct(1)); // as before: float16 below WideProducts.WIDE_ROWS
      try (NDManager step = m.manager().newSubManager()) {
        assertNull(m.headRowsWide(step, new long[] {1, 2}));
      }
    }
  }

  /** {@code n} random values of about {@code scale}, a few of them zero. */
  static float[] halves(SplittableRandom rnd, int n, double scale) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = rnd.nextInt(50) == 0 ? 0 : (float) ((rnd.nextDouble() * 2 - 1) * scale);
    }
    return a;
  }
}
