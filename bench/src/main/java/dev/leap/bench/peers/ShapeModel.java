package dev.leap.bench.peers;

import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code leap bench peers --shape}: random F16 weights in the shape of a real model (timings do not
 * depend on the values; outputs are compared for equality, not sense), Llama architecture with
 * default RoPE and no biases so the GGUF writer takes it, with GPT-2's tokenizer (the vocabulary
 * padded with unused entries in the GGUF). Written once into {@code work/<shape>} and reused while
 * its {@code model.safetensors} exists; the weights are drawn with a fixed seed (24).
 */
public final class ShapeModel {
  private ShapeModel() {}

  /** The model directory of {@code shape} under {@code work}, written when missing. */
  public static Path write(String shape, Path work, PrintWriter o) throws IOException {
    ModelConfig c =
        switch (shape) {
          // Qwen2.5-0.5B: hidden 896, 24 layers, 14 heads, 2 KV heads, head_dim 64, MLP 4864, vocab
          // 151,936, tied.
          case "qwen2.5-0.5b" ->
              new ModelConfig(
                  "llama", 151_936, 896, 4864, 24, 14, 2, 64, 4096, 1e-6, 1e6, "default", 1, 1, 4,
                  8192, true, false, false, false, "float16");
          // Llama-3.2-1B: hidden 2048, 16 layers, 32 heads, 8 KV heads, head_dim 64, MLP 8192,
          // vocab 128,256, tied.
          case "llama3.2-1b" ->
              new ModelConfig(
                  "llama", 128_256, 2048, 8192, 16, 32, 8, 64, 4096, 1e-5, 5e5, "default", 1, 1, 4,
                  8192, true, false, false, false, "float16");
          default ->
              throw new IllegalArgumentException(
                  "unknown --shape '" + shape + "': use qwen2.5-0.5b or llama3.2-1b");
        };
    Path dir = work.resolve(shape);
    if (!Files.exists(dir.resolve("model.safetensors"))) {
      long t0 = System.nanoTime();
      HfModelWriter.write(dir, c, 24, 0.02, HfModelWriter.StorageType.F16, 50256);
      HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
      o.printf(
          "wrote random weights in the shape of %s to %s in %.1f s%n",
          shape, dir, (System.nanoTime() - t0) / 1e9);
    }
    return dir;
  }
}
