package dev.leap.runtime.cli;

import dev.leap.fsm.CompressedFsm;
import picocli.CommandLine.Option;

/** The constraint options shared by {@code explain} and {@code match}: exactly one source. */
public final class ConstraintOptionsMixin {
  @Option(names = "--regex", paramLabel = "R", description = "A regular expression (full match).")
  String regex;

  /** Compiles the chosen constraint. */
  CompressedFsm compile() {
    if (regex == null) {
      throw new CliError("give a constraint: --regex R");
    }
    return CompressedFsm.compile(regex);
  }
}
