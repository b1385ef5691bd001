package dev.leap.runtime;

import java.util.Arrays;

/**
 * The result of one request.
 *
 * <p>{@link #isComplete()} says whether the text fully matches the constraint; with finish reason
 * {@link FinishReason#LENGTH} a constrained text is only a prefix of a match. An {@link
 * FinishReason#ERROR} result has an {@link #error()} message and no text. The text never ends in
 * the middle of a character: when {@code maxTokens} cuts a character's bytes, the incomplete bytes
 * are left out of {@link #text()} (they stay in {@link #tokenIds()}); a stop string and what
 * follows it are left out too.
 */
public final class Generation {
  private final String text;
  private final int[] tokenIds;
  private final FinishReason finishReason;
  private final boolean complete;
  private final GenerationStats stats;
  private final String error;

  public Generation(
      String text,
      int[] tokenIds,
      FinishReason finishReason,
      boolean complete,
      GenerationStats stats,
      String error) {
    this.text = text;
    this.tokenIds = tokenIds.clone();
    this.finishReason = finishReason;
    this.complete = complete;
    this.stats = stats;
    this.error = error;
  }

  /** An error result: the request could not run. */
  public static Generation error(String message, GenerationStats stats) {
    return new Generation("", new int[0], FinishReason.ERROR, false, stats, message);
  }

  public String text() {
    return text;
  }

  /** The output token ids (EOS excluded). */
  public int[] tokenIds() {
    return tokenIds.clone();
  }

  public FinishReason finishReason() {
    return finishReason;
  }

  /**
   * Whether the text fully matches the constraint (always true for no constraint unless an error).
   */
  public boolean isComplete() {
    return complete;
  }

  public GenerationStats stats() {
    return stats;
  }

  /** The error message of an {@link FinishReason#ERROR} result, else {@code null}. */
  public String error() {
    return error;
  }

  public boolean isError() {
    return finishReason == FinishReason.ERROR;
  }

  @Override
  public String toString() {
    return isError()
        ? "Generation[error=" + error + "]"
        : "Generation[text="
            + text
            + ", tokens="
            + Arrays.toString(tokenIds)
            + ", finish="
            + finishReason
            + ", complete="
            + complete
            + ", stats="
            + stats
            + "]";
  }
}
