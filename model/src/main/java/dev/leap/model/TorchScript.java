package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * TorchScript modules that Leap writes itself ({@link TorchScriptArchive}) and runs through DJL's
 * PyTorch engine ({@link FusedDecode}, {@link Fp16Gemm}), not traced or exported from Python (there
 * is no Python in Leap's build).
 *
 * <p>DJL's PyTorch engine calls, by reflection (method handles resolved once; the engine jar is not
 * a named module this module could read): {@code JniUtils.loadModule}, {@code IValue.from}/{@code
 * listFrom}/{@code toTensor}/{@code close}, {@code IValueUtils.runMethod}, {@code
 * PtSymbolBlock.close}, {@code JniUtils.setGraphExecutorOptimize}. IValues and the module travel as
 * {@code Object}.
 */
final class TorchScript {
  private TorchScript() {}

  private static final Class<?> IVALUE;
  private static final Class<?> ARRAY;
  private static final Class<?> MANAGER;
  private static final MethodHandle LOAD;
  private static final MethodHandle FROM_TENSOR;
  private static final MethodHandle FROM_LONG;
  private static final MethodHandle FROM_BOOLEAN;
  private static final MethodHandle LIST_FROM;
  private static final MethodHandle LIST_FROM_VALUES;
  private static final MethodHandle RUN;
  private static final MethodHandle TO_TENSOR;
  private static final MethodHandle CLOSE_VALUE;
  private static final MethodHandle CLOSE_BLOCK;
  private static final MethodHandle SET_OPTIMIZE;

  /**
   * The graph executor's optimization as this thread has it unless changed: PyTorch's default (on),
   * or DJL's {@code ai.djl.pytorch.graph_optimizer} property where set.
   */
  static final boolean OPTIMIZE_DEFAULT =
      Boolean.parseBoolean(System.getProperty("ai.djl.pytorch.graph_optimizer", "true"));

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      ClassLoader loader = NDArray.class.getClassLoader();
      IVALUE = Class.forName("ai.djl.pytorch.jni.IValue", true, loader);
      ARRAY = Class.forName("ai.djl.pytorch.engine.PtNDArray", true, loader);
      MANAGER = Class.forName("ai.djl.pytorch.engine.PtNDManager", true, loader);
      Class<?> block = Class.forName("ai.djl.pytorch.engine.PtSymbolBlock", true, loader);
      Class<?> jni = Class.forName("ai.djl.pytorch.jni.JniUtils", true, loader);
      Class<?> utils = Class.forName("ai.djl.pytorch.jni.IValueUtils", true, loader);
      Class<?> values = IVALUE.arrayType();
      LOAD =
          lookup.findStatic(
              jni,
              "loadModule",
              MethodType.methodType(
                  block, MANAGER, InputStream.class, boolean.class, boolean.class));
      FROM_TENSOR = lookup.findStatic(IVALUE, "from", MethodType.methodType(IVALUE, ARRAY));
      FROM_LONG = lookup.findStatic(IVALUE, "from", MethodType.methodType(IVALUE, long.class));
      FROM_BOOLEAN =
          lookup.findStatic(IVALUE, "from", MethodType.methodType(IVALUE, boolean.class));
      LIST_FROM =
          lookup
              .findStatic(IVALUE, "listFrom", MethodType.methodType(IVALUE, ARRAY.arrayType()))
              .asFixedArity();
      LIST_FROM_VALUES =
          lookup
              .findStatic(IVALUE, "listFrom", MethodType.methodType(IVALUE, values))
              .asFixedArity();
      RUN =
          lookup
              .findStatic(
                  utils, "runMethod", MethodType.methodType(IVALUE, block, String.class, values))
              .asFixedArity();
      TO_TENSOR = lookup.findVirtual(IVALUE, "toTensor", MethodType.methodType(ARRAY, MANAGER));
      CLOSE_VALUE = lookup.findVirtual(IVALUE, "close", MethodType.methodType(void.class));
      CLOSE_BLOCK = lookup.findVirtual(block, "close", MethodType.methodType(void.class));
      SET_OPTIMIZE =
          lookup.findStatic(
              jni, "setGraphExecutorOptimize", MethodType.methodType(void.class, boolean.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static Object load(NDManager manager, InputStream archive) {
    return call(() -> LOAD.invoke(manager, archive, false, false));
  }

  static Object of(NDArray a) {
    return call(() -> FROM_TENSOR.invoke(a));
  }

  static Object of(long v) {
    return call(() -> FROM_LONG.invoke(v));
  }

  static Object of(boolean v) {
    return call(() -> FROM_BOOLEAN.invoke(v));
  }

  static Object list(List<NDArray> arrays) {
    Object a = java.lang.reflect.Array.newInstance(ARRAY, arrays.size());
    for (int i = 0; i < arrays.size(); i++) {
      java.lang.reflect.Array.set(a, i, arrays.get(i));
    }
    return call(() -> LIST_FROM.invoke(a));
  }

  /** A TorchScript list of IValues (of one type; at least one: DJL makes no empty list). */
  static Object listOf(List<Object> values) {
    Object[] a = values(values.size());
    for (int i = 0; i < a.length; i++) {
      a[i] = values.get(i);
    }
    return call(() -> LIST_FROM_VALUES.invoke(a));
  }

  static Object[] values(int n) {
    return (Object[]) java.lang.reflect.Array.newInstance(IVALUE, n);
  }

  static Object run(Object block, String method, Object[] in) {
    return call(() -> RUN.invoke(block, method, in));
  }

  /**
   * {@link #run} with the graph executor's optimization off for this call (it is per thread): the
   * method's graph runs as written, without the profiling runs and the shape-specialized
   * recompilations the optimizing executor makes for each new input shape. For methods of a single
   * op, where there is nothing to optimize.
   */
  static Object runUnoptimized(Object block, String method, Object[] in) {
    call(
        () -> {
          SET_OPTIMIZE.invoke(false);
          return null;
        });
    try {
      return run(block, method, in);
    } finally {
      call(
          () -> {
            SET_OPTIMIZE.invoke(OPTIMIZE_DEFAULT);
            return null;
          });
    }
  }

  static NDArray tensor(Object value, NDManager manager) {
    return (NDArray) call(() -> TO_TENSOR.invoke(value, manager));
  }

  static void close(Object value) {
    call(
        () -> {
          CLOSE_VALUE.invoke(value);
          return null;
        });
  }

  static void closeBlock(Object block) {
    call(
        () -> {
          CLOSE_BLOCK.invoke(block);
          return null;
        });
  }

  private interface Call {
    Object run() throws Throwable;
  }

  private static Object call(Call c) {
    try {
      return c.run();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Compiles and loads class {@code name}'s TorchScript {@code source} onto {@code manager}'s
   * device; close it with {@link #closeBlock}.
   */
  static Object load(NDManager manager, String name, String source) {
    return load(manager, new ByteArrayInputStream(TorchScriptArchive.of(name, source)));
  }
}
