package dev.leap.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where benchmark inputs live: the shared data folder ({@code ../shared} beside the repository,
 * or the system property {@code leap.shared}). Missing data is a clear error naming the path.
 */
public final class BenchData {
  private BenchData() {}

  public static Path shared() {
    String p = System.getProperty("leap.shared");
    Path dir = p != null ? Path.of(p) : Path.of("..", "shared");
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("shared data folder not found: " + dir.toAbsolutePath().normalize()
          + " (set -Dleap.shared=DIR)");
    }
    return dir.toAbsolutePath().normalize();
  }

  public static Path file(String relative) {
    Path f = shared().resolve(relative);
    if (!Files.exists(f)) {
      throw new IllegalArgumentException("benchmark input not found: " + f);
    }
    return f;
  }

  /** A node of {@code corpora/sglang-json-bench/regexes.json} under {@code json_jump_forward}. */
  public static JsonNode sglang(String name) {
    try {
      return new ObjectMapper().readTree(file("corpora/sglang-json-bench/regexes.json").toFile())
          .get("json_jump_forward").get(name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String characterRegex() {
    return sglang("character_regex").get("pattern").asText();
  }

  public static String cityRegex() {
    return sglang("city_regex").get("pattern").asText();
  }
}
