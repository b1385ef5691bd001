package dev.leap.train.data;

/**
 * One training sequence: prompt tokens then answer tokens (each tokenized on its own, as the
 * runtime sees them: the prompt encoded, the output appended). The loss is taken on the answer
 * tokens: positions {@code answerStart - 1 .. length - 2} predict tokens {@code answerStart ..
 * length - 1}; and, as an auxiliary loss, on the prompt tokens listed in {@code recallTargets}
 * (each predicted from the position before it).
 *
 * @param recallTargets positions in the prompt whose token repeats an earlier bigram (after the
 *     same token as there): predicting them teaches the model to look back and copy, which the
 *     answers need
 * @param valueTargets positions in the answer whose token belongs to a value copied from the page
 *     (the copy recipe weighs them more; the grammar forces the rest), in increasing order
 * @param valueFields for each of {@code valueTargets}, the index of its field (name 0, country 1,
 *     latitude 2, population 3, landmarks 4..6: the order of {@code City#fields})
 */
public record Example(
    int[] tokens, int answerStart, int[] recallTargets, int[] valueTargets, int[] valueFields) {
  public Example {
    if (valueTargets.length != valueFields.length) {
      throw new IllegalArgumentException("one field per value target");
    }
    for (int t : valueTargets) {
      if (t < answerStart || t >= tokens.length) {
        throw new IllegalArgumentException(
            "value target "
                + t
                + " outside the answer "
                + answerStart
                + ".."
                + (tokens.length - 1));
      }
    }
    if (answerStart < 1 || answerStart >= tokens.length) {
      throw new IllegalArgumentException(
          "answer start " + answerStart + " outside 1.." + (tokens.length - 1));
    }
    for (int t : recallTargets) {
      if (t < 1 || t >= answerStart) {
        throw new IllegalArgumentException(
            "recall target " + t + " outside the prompt 1.." + (answerStart - 1));
      }
    }
  }

  public Example(int[] tokens, int answerStart, int[] recallTargets) {
    this(tokens, answerStart, recallTargets, new int[0], new int[0]);
  }

  public Example(int[] tokens, int answerStart) {
    this(tokens, answerStart, new int[0]);
  }

  /** Number of predicted answer tokens. */
  public int targets() {
    return tokens.length - answerStart;
  }
}
