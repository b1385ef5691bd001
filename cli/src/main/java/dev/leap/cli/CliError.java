package dev.leap.cli;

/**
 * A user-facing command-line error: printed as one line (or one JSON object with --json), exit code
 * 1. An {@link IllegalArgumentException}, so {@code Errors} prints its message as it is.
 */
public final class CliError extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public CliError(String message) {
    super(message);
  }
}
