package dev.leap.fsm.json;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * JSONSchemaBench as the corpus tests read it: its subsets and a reader of one subset's records.
 */
final class SchemaBenchCorpus {
  private SchemaBenchCorpus() {}

  /** The subsets, in the order the tests and the benchmarks walk them. */
  static final List<String> SUBSETS =
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

  /** The JSON-lines records of {@code file} (a {@code SUBSET.jsonl.gz}), one per line. */
  static BufferedReader open(Path file) throws IOException {
    return new BufferedReader(
        new InputStreamReader(
            new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8));
  }
}
