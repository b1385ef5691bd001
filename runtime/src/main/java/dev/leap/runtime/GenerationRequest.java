package dev.leap.runtime;

import java.util.Objects;

/**
 * One request: a prompt (text, or token ids), a constraint, and sampling parameters.
 *
 * @param prompt the prompt text, or {@code null} when {@code promptIds} is given
 * @param promptIds the prompt as token ids, or {@code null} when {@code prompt} is given
 * @param jumpForward whether this request jumps over forced text; {@code null} = the runtime's
 *     setting ({@code optJumpForward}). Off, every token is sampled (with greedy decoding the
 *     output is the same)
 */
public record GenerationRequest(
    String prompt,
    int[] promptIds,
    Constraint constraint,
    SamplingParams params,
    Boolean jumpForward) {

  public GenerationRequest {
    if ((prompt == null) == (promptIds == null)) {
      throw new IllegalArgumentException("give exactly one of prompt text and prompt ids");
    }
    promptIds = promptIds == null ? null : promptIds.clone();
    constraint = constraint == null ? Constraint.none() : constraint;
    params = params == null ? SamplingParams.greedy() : params;
  }

  /** A request with the runtime's jump-forward setting. */
  public GenerationRequest(
      String prompt, int[] promptIds, Constraint constraint, SamplingParams params) {
    this(prompt, promptIds, constraint, params, null);
  }

  /** This request with jump-forward turned on or off for it alone. */
  public GenerationRequest withJumpForward(boolean on) {
    return new GenerationRequest(prompt, promptIds, constraint, params, on);
  }

  public static GenerationRequest of(String prompt, Constraint constraint, SamplingParams params) {
    return new GenerationRequest(
        Objects.requireNonNull(prompt, "prompt"), null, constraint, params);
  }

  public static GenerationRequest ofIds(
      int[] promptIds, Constraint constraint, SamplingParams params) {
    return new GenerationRequest(
        null, Objects.requireNonNull(promptIds, "promptIds"), constraint, params);
  }
}
