package dev.leap.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The embedded default model ({@code --model demo}): a small Llama-architecture model that Leap
 * trained itself ({@code ./leap train --recipe copy}, module {@code train}) on data it generates —
 * character sheets for the 50 names of SGLang's character benchmark, and copy drills, fact cards
 * and articles about fictional cities with open values (names it cannot memorize, read off the
 * page) — shipped in this jar as a Hugging Face directory ({@code config.json}, {@code
 * generation_config.json}, {@code model.safetensors} in float16, the project's own byte-level BPE
 * {@code tokenizer.json}, and a {@code tokenizer_config.json} naming EOS, whose chat template joins
 * the messages' contents with newlines, as the model was trained on bare prompts). On first use it
 * is copied to {@code $LEAP_CACHE/demo-v5} (default {@code ~/.cache/leap/demo-v5}) and loaded from
 * there through the same loader as any model.
 *
 * <p>Shape: vocabulary 4,196 (4,096 BPE tokens, the 100 two-digit groups, EOS), hidden 128,
 * intermediate 384, 4 layers, 4 heads, 2 KV heads, head dim 32, tied embeddings, positions 4,608.
 * It knows the character sheets and how to copy a city's facts out of an article; it writes no
 * other meaningful text.
 */
public final class DemoModel {
  private DemoModel() {}

  /** Bump when the shipped weights change, so old caches are not reused. */
  static final String VERSION = "demo-v5";

  private static final String RESOURCES = "/dev/leap/runtime/demo/";
  private static final String[] FILES = {
    "config.json",
    "generation_config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json"
  };

  /** The demo model's directory, written on first use. */
  public static Path ensure() {
    String cache = System.getenv("LEAP_CACHE");
    Path root =
        cache != null ? Path.of(cache) : Path.of(System.getProperty("user.home"), ".cache", "leap");
    return ensure(root.resolve(VERSION));
  }

  /**
   * The model directory that a {@code --model} value names: {@code demo} is this model (written on
   * first use, with a one-line notice on {@code notices}), anything else a Hugging Face directory
   * that must exist. Shared by every command that takes {@code --model}.
   *
   * @throws IllegalArgumentException when the directory does not exist
   */
  public static Path resolve(String model, PrintWriter notices) {
    if ("demo".equals(model)) {
      notices.println(
          "leap: using the embedded demo model (trained by Leap on its own synthetic data: character sheets and city facts)");
      notices.flush();
      return ensure();
    }
    Path dir = Path.of(model);
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("model directory not found: " + dir);
    }
    return dir;
  }

  /** Copies the demo model into {@code dir} unless it is already complete there. */
  public static synchronized Path ensure(Path dir) {
    if (Files.exists(dir.resolve("model.safetensors"))
        && Files.exists(dir.resolve("tokenizer.json"))
        && Files.exists(dir.resolve("tokenizer_config.json"))) {
      return dir;
    }
    try {
      Files.createDirectories(dir.getParent());
      Path tmp = Files.createTempDirectory(dir.getParent(), VERSION + ".tmp");
      for (String f : FILES) {
        try (InputStream in = DemoModel.class.getResourceAsStream(RESOURCES + f)) {
          if (in == null) {
            throw new IllegalStateException(
                "the demo model's "
                    + f
                    + " is missing from the runtime jar ("
                    + RESOURCES
                    + f
                    + "); rebuild, or reproduce it with ./leap train");
          }
          Files.copy(in, tmp.resolve(f));
        }
      }
      try {
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
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
