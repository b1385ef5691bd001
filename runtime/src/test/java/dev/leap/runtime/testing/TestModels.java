package dev.leap.runtime.testing;

import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Small models written by the project's own code (random weights, fixed seeds) with GPT-2's
 * tokenizer. The model module's tests use the same three shapes ({@code
 * dev.leap.model.TestConfigs}, test code there: a test-jar of the model module would need the
 * package phase in every reactor build that runs these tests).
 */
@SuppressWarnings("exports") // ModelConfig: runtime requires the model module, not transitively
public final class TestModels {
  private TestModels() {}

  private static final ConcurrentHashMap<String, Path> CACHE = new ConcurrentHashMap<>();

  /** Llama with GQA, tied embeddings. */
  public static ModelConfig llama() {
    return ModelConfig.llama(50257, 64, 128, 2, 4, 2, 16);
  }

  /** Qwen2-style: q/k/v biases, untied, MQA, head_dim != hidden / heads. */
  public static ModelConfig qwen2() {
    return new ModelConfig(
        "qwen2", 50257, 48, 96, 2, 4, 1, 16, 1024, 1e-6, 1e6, "default", 1, 1, 4, 8192, false, true,
        false, false, "float32");
  }

  /** Qwen3-style: q/k RMSNorm, llama3 RoPE scaling. */
  public static ModelConfig qwen3() {
    return new ModelConfig(
        "qwen3", 50257, 64, 128, 2, 4, 2, 16, 1024, 1e-6, 5e5, "llama3", 8, 1, 4, 64, true, false,
        false, true, "float32");
  }

  /** The model directory for {@code config} (written once per test run). */
  public static Path dir(String name, ModelConfig config) {
    return CACHE.computeIfAbsent(
        name,
        n -> {
          try {
            Path dir = Files.createTempDirectory("leap-test-" + n);
            dir.toFile().deleteOnExit();
            HfModelWriter.write(
                dir, config, n.hashCode(), 0.5, HfModelWriter.StorageType.F32, 50256);
            HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
            return dir;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
