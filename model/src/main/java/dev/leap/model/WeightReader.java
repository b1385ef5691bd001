package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * Reads a checkpoint's tensors onto a model's manager in its compute dtype: shapes checked against
 * the config, F16 tensors handed over as stored when the compute dtype is F16, everything else read
 * as float32 and cast.
 */
final class WeightReader {
  private final SafeTensors st;
  private final NDManager manager;
  private final Precision precision;

  WeightReader(SafeTensors st, NDManager manager, Precision precision) {
    this.st = st;
    this.manager = manager;
    this.precision = precision;
  }

  /** Whether the checkpoint holds {@code name}. */
  boolean has(String name) {
    return st.has(name);
  }

  /** The tensor {@code name}, which must have {@code shape}. */
  NDArray tensor(String name, long... shape) {
    long[] actual = st.shape(name);
    if (!Arrays.equals(actual, shape)) {
      throw new IllegalArgumentException(
          "tensor "
              + name
              + " has shape "
              + Arrays.toString(actual)
              + ", the config implies "
              + Arrays.toString(shape));
    }
    if (precision == Precision.F16 && st.dtype(name).equals("F16")) {
      return manager.create(
          st.halves(name), new Shape(shape), DataType.FLOAT16); // as stored, no copy through float
    }
    FloatBuffer data = st.floats(name);
    return cast(manager.create(data, new Shape(shape), DataType.FLOAT32));
  }

  /** {@code a} (float32) in the compute dtype; {@code a} itself when that is float32. */
  NDArray cast(NDArray a) {
    if (precision == Precision.F32) {
      return a;
    }
    NDArray c = a.toType(precision.dataType(), false);
    a.close();
    return c;
  }

  /**
   * Concatenates [out_i, in] weights along out, transposed to [in, sum out]; the parts are closed
   * (the concatenation is a copy: kept, they would hold the layer's weights twice).
   */
  static NDArray fuse(NDArray... weights) {
    NDArray fused = NDArrays.concat(new NDList(weights), 0).transpose();
    for (NDArray w : weights) {
      w.close();
    }
    return fused;
  }
}
