package dev.leap.fsm.grammar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The example grammars under {@code docs/grammars/} (the module runs with the module folder as
 * working directory).
 */
final class Examples {
  private Examples() {}

  static final String[] NAMES = {"arithmetic", "json", "sql-select", "tool-call"};

  static String text(String name) {
    Path p = Path.of("..", "docs", "grammars", name + ".gbnf");
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException("example grammar " + p.toAbsolutePath(), e);
    }
  }
}
