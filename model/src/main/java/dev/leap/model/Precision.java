package dev.leap.model;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.util.Locale;

/**
 * The compute dtype of a loaded model: weights, activations and the KV pool. The numerically
 * sensitive parts stay in float32 whatever it is, where transformers keeps them: RMSNorm
 * statistics, the attention softmax, the rotary tables (computed in float32, then cast, as
 * transformers casts {@code cos}/{@code sin} to the activations' dtype) and the logits handed to
 * sampling.
 *
 * <p>Why bfloat16 is refused on the CPU: DJL 0.35.1's PyTorch engine aborts the whole JVM
 * ("terminate called without an active exception") when it creates or casts to a bfloat16 tensor on
 * the CPU, both from a buffer and by {@code toType}; an abort cannot be caught, so it is a one-line
 * error before anything is loaded. {@code auto} with a bfloat16 checkpoint on the CPU therefore
 * computes in float32, as Leap did before dtypes were chosen.
 */
public enum Precision {
  F32(DataType.FLOAT32),
  F16(DataType.FLOAT16),
  BF16(DataType.BFLOAT16);

  /** What {@code --dtype} / {@code optDtype} accept. */
  public static final String CHOICES = "auto, f32, f16 or bf16";

  private final DataType type;

  Precision(DataType type) {
    this.type = type;
  }

  public DataType dataType() {
    return type;
  }

  /** Bytes per element. */
  public int width() {
    return this == F32 ? 4 : 2;
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The precision for a requested name ({@code auto}, {@code f32}, {@code f16}, {@code bf16}; null
   * is {@code auto}) given the checkpoint's stored dtype ({@code F32}, {@code F16}, {@code BF16},
   * as safetensors names it) and the device. An unknown name or bf16 on the CPU is a one-line
   * {@link IllegalArgumentException}.
   */
  public static Precision resolve(String requested, String checkpointDtype, Device device) {
    String r = requested == null ? "auto" : requested.trim().toLowerCase(Locale.ROOT);
    boolean cpu = !device.isGpu();
    Precision p =
        switch (r) {
          case "auto" ->
              switch (checkpointDtype) {
                case "F16" -> F16;
                case "BF16" -> cpu ? F32 : BF16;
                default -> F32;
              };
          case "f32", "float32" -> F32;
          case "f16", "float16", "half" -> F16;
          case "bf16", "bfloat16" -> BF16;
          default ->
              throw new IllegalArgumentException(
                  "unknown dtype '" + requested + "': use " + CHOICES);
        };
    if (p == BF16 && cpu) {
      throw new IllegalArgumentException(
          "dtype bf16 is not available on the CPU (DJL 0.35.1's PyTorch engine"
              + " aborts on bfloat16 CPU tensors): use f16 or f32 there, or bf16 on a GPU");
    }
    return p;
  }
}
