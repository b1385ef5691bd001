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
 * Products with packed float16 weights ({@link Fp16Gemm}, FBGEMM's float16 GEMM) against their
 * naive twins: a double-precision dot product of the same float16 values (the product must be exact
 * up to a float32 sum: any rounding of the weights, to bfloat16 say, is 100 times outside the
 * bound) and the path it replaces (PyTorch's float16 product, whose logits are rounded to float16),
 * on seeded random matrices of odd shapes and 1-40 rows; then inside {@link LlamaModel} on seeded
 * random float16 models: full logits with the packed products on and off and against {@link
 * NaiveLlama}, and the constrained projection equal to the full one's columns.
 */
class Fp16GemmTest {

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
          try (Fp16Gemm gemm = Fp16Gemm.load(step)) {
            assertNotNull(gemm, what + ": FBGEMM's float16 GEMM did not load");
            Object packed = gemm.pack(head);
            NDArray out = gemm.logits(xs, packed);
            // a layer's product: the same sums rounded once to float16, as PyTorch's product
            float[] narrow = gemm.linear(xs, packed).toType(DataType.FLOAT32, false).toFloatArray();
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
                assertEquals(
                    (float) Fp16GemmTest.toHalf(got[r * vocab + v]),
                    narrow[r * vocab + v],
                    0f,
                    what + ", row " + r + " token " + v + ": the float16 result");
              }
            }
          }
        }
      }
    }
    System.out.printf(
        "packed float16 products: largest error / sum |terms| %.2e (float32 unit roundoff %.2e);"
            + " largest difference from the float16 product %.2f of its bound%n",
        worstRel, U32, worstVsF16);
  }

  @Test
  void modelLogitsWithPackedProductsEqualTheTwins(@TempDir Path tmp) {
    long seed = 2452L;
    SplittableRandom rnd = new SplittableRandom(seed);
    double worstNaive = 0;
    double worstOff = 0;
    double worstStep = 0;
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
        assertTrue(m.hasPackedProducts() && m.packedProducts(), what + ": no packed products");
        List<LlamaModel.SequenceInput> in =
            List.of(
                new LlamaModel.SequenceInput(
                    tokens, 0, new int[0], ReferenceModelTest.range(0, len), true));
        // off first: the whole pass with PyTorch's float16 products (the pool is rewritten alike)
        m.setPackedProducts(false);
        assertFalse(m.packedProducts());
        float[] off = m.logits(m.hidden(step, in)).toFloatArray();
        m.setPackedProducts(true);
        NDArray h = m.hidden(step, in);
        float[] on = m.logits(h).toFloatArray();
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
        // float16 layers either way (their sums rounded once to float16, in another order), the
        // logits rounded to float16 or not: both within the float16 tolerances
        assertTrue(diff < HalfPrecisionTest.RANDOM_TOL, what + ": packed products off " + diff);
        assertTrue(
            naiveOn <= naiveOff + 1e-2 && naiveOn < HalfPrecisionTest.REFERENCE_TOL,
            what + ": naive twin " + naiveOn + " (packed products off: " + naiveOff + ")");
        // a decode step after it (the fused step; its layers' products of one row packed or not):
        // the same hidden state up to the float16 rounding of sums taken in another order
        LlamaModel.SequenceInput next =
            new LlamaModel.SequenceInput(
                new int[] {rnd.nextInt(97)},
                len,
                ReferenceModelTest.range(0, len),
                new int[] {len},
                false);
        m.setPackedProducts(false);
        float[] stepOff =
            m.hidden(step, List.of(next)).toType(DataType.FLOAT32, false).toFloatArray();
        m.setPackedProducts(true);
        float[] stepOn =
            m.hidden(step, List.of(next)).toType(DataType.FLOAT32, false).toFloatArray();
        double stepDiff = 0;
        for (int i = 0; i < stepOn.length; i++) {
          stepDiff = Math.max(stepDiff, Math.abs(stepOn[i] - stepOff[i]));
        }
        worstStep = Math.max(worstStep, stepDiff);
        assertTrue(stepDiff < HalfPrecisionTest.RANDOM_TOL, what + ": decode step " + stepDiff);
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
        "packed products in random F16 models: largest logit difference %.2e from the naive twin,"
            + " %.2e from the float16 products; decode step's hidden state %.2e from theirs%n",
        worstNaive, worstOff, worstStep);
  }

  @Test
  void onlyFloat16WeightsOnTheCpuArePacked(@TempDir Path tmp) {
    Path dir = tmp.resolve("m");
    HfModelWriter.write(dir, TestConfigs.llama(), 7, 0.3, HfModelWriter.StorageType.F16, 2);
    try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 16, "f32")) {
      assertFalse(m.hasPackedProducts());
      assertFalse(m.packedProducts());
      assertFalse(m.widensProduct(1));
    }
    try (LlamaModel m =
        LlamaModel.load(dir, Device.cpu(), 16, "f16", LlamaModel.CpuF32Weights.OFF)) {
      assertTrue(m.hasPackedProducts() && m.packedProducts());
      m.setPackedProducts(false);
      assertTrue(m.hasPackedProducts() && !m.packedProducts());
      assertFalse(m.widensProduct(1)); // as before: float16 below WideProducts.WIDE_ROWS
      try (NDManager step = m.manager().newSubManager()) {
        assertNull(m.headRowsWide(step, new long[] {1, 2}));
      }
    }
  }

  /** {@code f} rounded to the nearest float16 (ties to even), as a float. */
  static float toHalf(float f) {
    try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
      return m.create(new float[] {f})
          .toType(DataType.FLOAT16, false)
          .toType(DataType.FLOAT32, false)
          .getFloat(0);
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
