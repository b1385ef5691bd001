package dev.leap.train.data;

/**
 * One training sequence: prompt tokens then answer tokens (each tokenized on its own, as the
 * runtime sees them: the prompt encoded, the output appended). The loss is taken on the answer
 * tokens only: positions {@code answerStart - 1 .. length - 2} predict tokens
 * {@code answerStart .. length - 1}.
 */
public record Example(int[] tokens, int answerStart) {
  public Example {
    if (answerStart < 1 || answerStart >= tokens.length) {
      throw new IllegalArgumentException("answer start " + answerStart + " outside 1.." + (tokens.length - 1));
    }
  }

  /** Number of predicted (answer) tokens. */
  public int targets() {
    return tokens.length - answerStart;
  }
}
