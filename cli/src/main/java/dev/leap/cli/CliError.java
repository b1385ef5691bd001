package dev.leap.cli;

/** A user-facing command-line error: printed as one line (or one JSON object with --json), exit code 1. */
public final class CliError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliError(String message) {
    super(message, null, false, false);
  }
}
