package dev.leap.options;

import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options that {@code leap generate}, {@code leap serve} and {@code leap bench} share: the
 * model ({@code --model DIR|demo}) and where and how the runtime runs it ({@code --device}, {@code
 * --dtype}, {@code --sparse-logits-limit}, {@code --cpu-f32-weights}, {@code --fused-attention}). A
 * command declares {@code @Mixin RuntimeOptionsMixin runtime;} and calls {@link #modelDir} and
 * {@link #configure}.
 */
public final class RuntimeOptionsMixin {
  /** Made by picocli for each command that mixes it in. */
  public RuntimeOptionsMixin() {}

  @Option(
      names = "--model",
      defaultValue = "demo",
      paramLabel = "DIR|demo",
      description =
          "Hugging Face model directory, or 'demo' for the embedded default (trained by Leap). Default: ${DEFAULT-VALUE}.")
  private String model;

  @Option(
      names = "--device",
      defaultValue = "cpu",
      description =
          "DJL device: cpu, gpu or gpuN (CUDA: README, Devices). Default: ${DEFAULT-VALUE}.")
  private String device;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description =
          "Weights, activations and KV cache: auto (the"
              + " checkpoint's; the demo model's is f16), f32, f16 or bf16 (not on the CPU). Default: ${DEFAULT-VALUE}.")
  private String dtype;

  @Option(
      names = "--sparse-logits-limit",
      defaultValue = "4096",
      paramLabel = "N",
      description =
          "Constrained steps whose"
              + " rows allow at most N tokens altogether compute only those tokens' logits (same outputs); 0: always the whole"
              + " vocabulary. Default: ${DEFAULT-VALUE}.")
  private int sparseLogitsLimit;

  @Option(
      names = "--cpu-f32-weights",
      defaultValue = "auto",
      paramLabel = "auto|on|off",
      description =
          "With f16 weights"
              + " on the CPU, keep float32 copies (twice the f16 weights' memory) for products of 8+ rows (batches, jumps,"
              + " prefill) instead of casting every pass; auto: when they fit in a quarter of the free memory. Default: ${DEFAULT-VALUE}.")
  private String cpuF32Weights;

  @Option(
      names = "--fused-attention",
      defaultValue = "auto",
      paramLabel = "auto|on|off",
      description =
          "Attention of prefills and long extensions as PyTorch's fused scaled_dot_product_attention;"
              + " auto: on a GPU, off on the CPU. Default: ${DEFAULT-VALUE}.")
  private String fusedAttention;

  /** {@code --model} as given: a directory or {@code demo}. */
  public String model() {
    return model;
  }

  /**
   * The model directory {@code --model} names ({@link DemoModel#resolve}: {@code demo} is written
   * on first use, with a one-line notice on {@code err}).
   *
   * @throws IllegalArgumentException when the directory does not exist
   */
  public Path modelDir(PrintWriter err) {
    return DemoModel.resolve(model, err);
  }

  /** {@code --device}: cpu, gpu or gpuN (checked when the runtime is built). */
  public String device() {
    return device;
  }

  /** {@code --dtype}: auto, f32, f16 or bf16 (checked when the runtime is built). */
  public String dtype() {
    return dtype;
  }

  /** {@code --fused-attention}: auto, on or off (checked when the runtime is built). */
  public String fusedAttention() {
    return fusedAttention;
  }

  /** {@code --sparse-logits-limit}. */
  public int sparseLogitsLimit() {
    return sparseLogitsLimit;
  }

  /** {@code --cpu-f32-weights}: auto, on or off (checked when the runtime is built). */
  public String cpuF32Weights() {
    return cpuF32Weights;
  }

  /**
   * {@code builder} with {@code --device}, {@code --dtype}, {@code --sparse-logits-limit}, {@code
   * --cpu-f32-weights} and {@code --fused-attention}.
   */
  public LeapRuntime.Builder configure(LeapRuntime.Builder builder) {
    return builder
        .optDevice(device)
        .optDtype(dtype)
        .optSparseLogitsLimit(sparseLogitsLimit)
        .optCpuF32Weights(cpuF32Weights)
        .optFusedAttention(fusedAttention);
  }
}
