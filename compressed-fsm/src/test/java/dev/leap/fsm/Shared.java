package dev.leap.fsm;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared test data folder ({@code ../shared} beside the repository), found through the system
 * property {@code leap.shared} that surefire sets. Tests that need it skip with a message where it
 * is absent. Public: later modules' tests use it through the test-jar.
 */
public final class Shared {
  private Shared() {}

  /** The shared folder, or null if absent. */
  public static Path root() {
    String p = System.getProperty("leap.shared");
    Path dir = p != null ? Path.of(p) : Path.of("..", "..", "shared");
    return Files.isDirectory(dir) ? dir.toAbsolutePath().normalize() : null;
  }

  /** A file or folder under the shared folder; the test is skipped (with a message) if it is absent. */
  public static Path require(String relative) {
    Path root = root();
    assumeTrue(root != null, "../shared is absent: skipping a test that needs " + relative);
    Path f = root.resolve(relative);
    assumeTrue(Files.exists(f), "../shared/" + relative + " is absent: skipping");
    return f;
  }

  /** SGLang's benchmark regexes ({@code corpora/sglang-json-bench/regexes.json}). */
  public static String sglangRegex(String name) {
    Path f = require("corpora/sglang-json-bench/regexes.json");
    try {
      JsonNode root = new ObjectMapper().readTree(f.toFile());
      return root.get("json_jump_forward").get(name).get("pattern").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
