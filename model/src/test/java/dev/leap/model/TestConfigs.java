package dev.leap.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shapes of the small test models and their weights, written by the project's own code (random
 * weights, fixed seeds). {@code runtime}'s {@code TestModels} makes the same three shapes, with a
 * tokenizer.
 */
final class TestConfigs {
  private TestConfigs() {}

  private static final ConcurrentHashMap<String, Path> CACHE = new ConcurrentHashMap<>();

  /** Llama with GQA, tied embeddings. */
  static ModelConfig llama() {
    return ModelConfig.llama(50257, 64, 128, 2, 4, 2, 16);
  }

  /** Qwen2-style: q/k/v biases, untied, MQA, head_dim != hidden / heads. */
  static ModelConfig qwen2() {
    return new ModelConfig(
        "qwen2", 50257, 48, 96, 2, 4, 1, 16, 1024, 1e-6, 1e6, "default", 1, 1, 4, 8192, false, true,
        false, false, "float32");
  }

  /** Qwen3-style: q/k RMSNorm, llama3 RoPE scaling. */
  static ModelConfig qwen3() {
    return new ModelConfig(
        "qwen3", 50257, 64, 128, 2, 4, 2, 16, 1024, 1e-6, 5e5, "llama3", 8, 1, 4, 64, true, false,
        false, true, "float32");
  }

  /**
   * The model directory for {@code config} under {@code name}: {@code config.json} and F32 weights
   * seeded by the name (written once per test run), EOS 50256.
   */
  static Path dir(String name, ModelConfig config) {
    return CACHE.computeIfAbsent(
        name,
        n -> {
          try {
            Path dir = Files.createTempDirectory("leap-test-" + n);
            dir.toFile().deleteOnExit();
            HfModelWriter.write(
                dir, config, n.hashCode(), 0.5, HfModelWriter.StorageType.F32, 50256);
            return dir;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /**
   * A seeded random model of {@code config} written to {@code dir} (weights with standard deviation
   * 0.3, float16 where {@code config} says so, EOS 2), for the tests that draw many small shapes.
   */
  static Path writeRandom(Path dir, ModelConfig config, long seed) {
    boolean half = config.torchDtype().equals("float16");
    HfModelWriter.write(
        dir,
        config,
        seed,
        0.3,
        half ? HfModelWriter.StorageType.F16 : HfModelWriter.StorageType.F32,
        2);
    return dir;
  }
}
