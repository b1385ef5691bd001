package dev.leap.runtime;

import java.util.Locale;

/** Why a generation ended. */
public enum FinishReason {
  /**
   * The model chose EOS in an accepting state, the constraint had no way forward, or a stop string
   * appeared.
   */
  STOP,
  /** {@code maxTokens} was reached; a constrained output is then only a prefix of a match. */
  LENGTH,
  /**
   * The request was cancelled ({@link GenerationHandle#cancel()}) and ended at the runtime's next
   * step; the result holds the text and tokens generated until then.
   */
  CANCELLED,
  /**
   * The request could not run (bad constraint, prompt too long, ...); {@link Generation#error()}
   * says why.
   */
  ERROR;

  /**
   * The lower-case name used in JSON output ({@code stop}, {@code length}, {@code cancelled},
   * {@code error}).
   */
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
