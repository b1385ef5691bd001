package dev.leap.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The float32 bookkeeping of narrow (float16/bfloat16) products on the CPU, where PyTorch has no
 * fast narrow GEMM: which products widen to float32, and whether float32 copies of the weights are
 * kept beside the narrow ones ({@link LlamaModel.CpuF32Weights}).
 *
 * <p>Invariants: products widen only with narrow weights on the CPU ({@link #widens()}); copies are
 * kept only where products widen. A widened product's result is cast back to the compute dtype
 * unless float32 output is asked for (logits).
 */
final class WideProducts {
  /**
   * Rows from which a narrow product with a layer weight is computed in float32 on the CPU: PyTorch
   * has no fast float16 GEMM on CPUs without native float16 arithmetic (on this project's AVX-512
   * EPYC a float16 product costs about one GEMV per row: [64 x 256] x [256 x 1536] takes 2.4 ms in
   * float16, 0.55 ms cast to float32 and back), while its float16 GEMV is the fastest way through a
   * large weight (the vocabulary projection at one row: 1.4-2.5 ms against 5-8 ms in float32).
   * Measured crossover for the layer weights: about 8 rows.
   */
  static final int WIDE_ROWS = 8;

  /**
   * The same for the vocabulary projection, whose cast to float32 costs more than a layer's (50,257
   * x 256: about 50 ms, as much as 20 float16 rows): measured crossover about 32 rows.
   */
  static final int WIDE_ROWS_VOCAB = 32;

  private final boolean widen;
  private final DataType dtype;

  WideProducts(Precision precision, Device device) {
    this.widen = precision != Precision.F32 && !device.isGpu();
    this.dtype = precision.dataType();
  }

  /** Narrow weights on the CPU: products of at least {@link #WIDE_ROWS} rows run in float32. */
  boolean widens() {
    return widen;
  }

  /** Whether a product of {@code rows} rows computes in float32. */
  boolean widens(int rows) {
    return widen && rows >= WIDE_ROWS;
  }

  /**
   * Whether to keep float32 copies: never where products do not widen; else as {@code mode} says,
   * {@code AUTO} when the copies (twice {@code narrowBytes}) fit in a quarter of the free physical
   * memory.
   */
  boolean keepCopies(LlamaModel.CpuF32Weights mode, long narrowBytes) {
    return widen
        && switch (mode) {
          case ON -> true;
          case OFF -> false;
          case AUTO -> 2 * narrowBytes <= freePhysicalBytes() / 4;
        };
  }

  /**
   * {@code x.matMul(w)} for {@code rows} rows of {@code x}; with narrow weights on the CPU and at
   * least {@link #WIDE_ROWS} rows, computed in float32 (the weight's float32 copy {@code wide} when
   * kept, else the weight cast for this pass; the result cast back). Without copies the vocabulary
   * projection passes 0 rows below {@link #WIDE_ROWS_VOCAB}. {@code floatOut}: a widened product's
   * result stays float32 (logits).
   */
  NDArray linear(NDArray x, NDArray w, NDArray wide, int rows, boolean floatOut) {
    if (widens(rows)) {
      // A cast belongs to its source's manager: the weight's cast would live as long as the model.
      NDArray w32 =
          wide != null ? wide : LlamaModel.own(x.getManager(), w.toType(DataType.FLOAT32, false));
      NDArray y = x.toType(DataType.FLOAT32, false).matMul(w32);
      return floatOut ? y : y.toType(dtype, false);
    }
    return x.matMul(w);
  }

  private static long freePhysicalBytes() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean sun) {
      return sun.getFreeMemorySize();
    }
    return 0;
  }
}
