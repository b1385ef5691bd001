package dev.leap.runtime.internal;

import dev.leap.fsm.RegexSyntaxException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one mapping from a failure to the one-line text a user reads: a {@code Generation}'s {@code
 * error()} (a constraint that does not compile) and the command line's error line are both written
 * here.
 *
 * <p>A <em>user error</em> is one the user can fix from its message: an {@link
 * IllegalArgumentException} (every {@code ConstraintException}, a missing file, a bad value), an
 * {@link IllegalStateException}, an {@link UncheckedIOException}; its text is its message on one
 * line, and a {@link RegexSyntaxException} is its {@code oneLine()} (a bounded excerpt around the
 * offending index, however long the pattern). Anything else is a bug: the caller names what failed.
 * {@link CompletionException} and {@link ExecutionException} are unwrapped first.
 */
public final class Errors {
  private Errors() {}

  /**
   * {@code e}'s text on one line: a user error's message, otherwise {@code whatFailed + ": " + e}.
   */
  public static String oneLine(Throwable e, String whatFailed) {
    Throwable cause = unwrap(e);
    if (cause instanceof RegexSyntaxException r) {
      return r.oneLine();
    }
    String m = isUserError(cause) ? cause.getMessage() : whatFailed + ": " + cause;
    return m == null ? cause.getClass().getSimpleName() : m.replace('\n', ' ');
  }

  /** Whether {@code e} (unwrapped) is a failure the user can fix from its message. */
  public static boolean isUserError(Throwable e) {
    Throwable cause = unwrap(e);
    return cause instanceof IllegalArgumentException
        || cause instanceof IllegalStateException
        || cause instanceof UncheckedIOException;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
