package dev.leap.runtime;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.runtime.model.HfModelWriter;
import dev.leap.runtime.model.ModelConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The embedded default model ({@code --model demo}): a small Llama-architecture model that Leap
 * writes deterministically in Hugging Face format on first use — {@code config.json},
 * {@code model.safetensors} with random weights from a fixed seed, {@code generation_config.json},
 * and the GPT-2 {@code tokenizer.json} Leap ships — and then loads through the real loader.
 *
 * <p>Its weights are untrained: its text is not meaningful. It exists so that every command and
 * benchmark runs on a real transformer forward pass with a real tokenizer without downloading
 * anything. Shape: vocabulary 50,257 (GPT-2), hidden 256, intermediate 768, 4 layers, 8 heads,
 * 4 KV heads, head dim 32, tied embeddings, context 4,096.
 *
 * <p>Location: {@code $LEAP_CACHE/demo-v2}, default {@code ~/.cache/leap/demo-v2}.
 */
public final class DemoModel {
  private DemoModel() {}

  /** Bump when the demo model's shape or seed changes, so old caches are not reused. */
  static final String VERSION = "demo-v2";
  static final long SEED = 20240205L;

  public static ModelConfig config() {
    ModelConfig c = ModelConfig.llama(50257, 256, 768, 4, 8, 4, 32);
    // A 4,096-token context, so that the long-document benchmark (about 3,300 prompt tokens) fits.
    return new ModelConfig(c.modelType(), c.vocabSize(), c.hiddenSize(), c.intermediateSize(), c.numLayers(),
        c.numHeads(), c.numKvHeads(), c.headDim(), 4096, c.rmsNormEps(), c.ropeTheta(), c.ropeType(), c.ropeFactor(),
        c.ropeLowFreqFactor(), c.ropeHighFreqFactor(), c.ropeOriginalMaxPositions(), c.tieWordEmbeddings(),
        c.qkvBias(), c.oBias(), c.qkNorm(), c.torchDtype());
  }

  /** The demo model's directory, written on first use. */
  public static Path ensure() {
    String cache = System.getenv("LEAP_CACHE");
    Path root = cache != null ? Path.of(cache) : Path.of(System.getProperty("user.home"), ".cache", "leap");
    return ensure(root.resolve(VERSION));
  }

  /** Writes the demo model into {@code dir} unless it is already complete there. */
  public static synchronized Path ensure(Path dir) {
    if (Files.exists(dir.resolve("model.safetensors")) && Files.exists(dir.resolve("tokenizer.json"))) {
      return dir;
    }
    try {
      Files.createDirectories(dir.getParent());
      Path tmp = Files.createTempDirectory(dir.getParent(), VERSION + ".tmp");
      HfModelWriter.write(tmp, config(), SEED, 0.02, HfModelWriter.StorageType.F32, 50256);
      HfTokenizer.copyGpt2(tmp.resolve("tokenizer.json"));
      try {
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException | java.nio.file.FileAlreadyExistsException e) {
        if (!Files.exists(dir.resolve("model.safetensors"))) {
          Files.move(tmp, dir, StandardCopyOption.REPLACE_EXISTING);
        }
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the demo model to " + dir, e);
    }
  }
}
