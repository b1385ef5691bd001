package dev.leap.bench;

import dev.leap.train.data.SglangInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where benchmark inputs live. The demo's own inputs (SGLang's 50 character names, its character
 * and city regexes and prompts) ship with the project ({@link SglangInputs}): the demo and the
 * character and long-document benchmarks need nothing beside the repository. External corpora
 * (JSONSchemaBench, real tokenizers) are read from the shared data folder ({@code ../shared} beside
 * the repository, or the system property {@code leap.shared}); a missing one is a clear error
 * naming the path and how to get it.
 */
public final class BenchData {
  private BenchData() {}

  /** JSONSchemaBench's subsets, in the order every report lists them. */
  public static final List<String> SCHEMA_BENCH_SUBSETS =
      List.of(
          "Glaiveai2K",
          "Github_trivial",
          "Github_easy",
          "Github_medium",
          "Github_hard",
          "Kubernetes",
          "Snowplow",
          "WashingtonPost",
          "JME");

  /** How to get the external corpora, quoted in every error about them. */
  static final String HOW_TO_GET = "scripts/fetch-shared.sh fetches the corpora and tokenizers";

  public static Path shared() {
    String p = System.getProperty("leap.shared");
    Path dir = p != null ? Path.of(p) : Path.of("..", "shared");
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          "shared data folder not found: "
              + dir.toAbsolutePath().normalize()
              + " (set -Dleap.shared=DIR; "
              + HOW_TO_GET
              + ")");
    }
    return dir.toAbsolutePath().normalize();
  }

  public static Path file(String relative) {
    Path f = shared().resolve(relative);
    if (!Files.exists(f)) {
      throw new IllegalArgumentException(
          "benchmark input not found: " + f + " (" + HOW_TO_GET + ")");
    }
    return f;
  }

  /** SGLang's 50 character names, shipped with the project. */
  public static List<String> characterNames() {
    return SglangInputs.characterNames();
  }

  /** SGLang's character prompt with the name filled in. */
  public static String characterPrompt(String name) {
    return SglangInputs.characterPromptTemplate().replace("{name}", name);
  }

  public static String characterRegex() {
    return SglangInputs.characterRegex();
  }

  public static String cityRegex() {
    return SglangInputs.cityRegex();
  }
}
