package dev.leap.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The external test data folder ({@code ../shared} beside the repository: corpora, real tokenizers,
 * reference models), found through the system property {@code leap.shared} that surefire sets.
 *
 * <p>A test that needs a part of it calls {@link #require}: where the part is absent the test is
 * <em>skipped</em> through a JUnit assumption whose message names the folder and how to get it
 * ({@code scripts/fetch-shared.sh}), so the skipped count shows it; never passed silently. With the
 * environment variable {@code CI=true} an absent part <em>fails</em> the test instead, so CI keeps
 * running every corpus test.
 */
public final class Shared {
  private Shared() {}

  /** What a skipped test says: where the data is looked for and how to get it. */
  static final String HOW_TO_GET =
      "(../shared beside the repository, or -Dleap.shared=DIR; scripts/fetch-shared.sh fetches it)";

  /** The shared folder, or null if absent. */
  public static Path root() {
    String p = System.getProperty("leap.shared");
    Path dir = p != null ? Path.of(p) : Path.of("..", "..", "shared");
    return Files.isDirectory(dir) ? dir.toAbsolutePath().normalize() : null;
  }

  /** True where {@code CI=true}: a missing corpus then fails instead of skipping. */
  public static boolean onCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }

  /**
   * A file or folder under the shared folder. Absent: the test is skipped with a message naming it
   * and how to get it, or, with {@code CI=true}, it fails.
   */
  public static Path require(String relative) {
    Path root = root();
    Path f = root == null ? null : root.resolve(relative);
    if (f == null || !Files.exists(f)) {
      String what = "../shared/" + relative + " is absent " + HOW_TO_GET;
      if (onCi()) {
        throw new AssertionError("CI=true and " + what);
      }
      assumeTrue(false, "skipped: " + what);
    }
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
