package dev.leap.train;

import dev.leap.train.data.Example;
import dev.leap.train.model.TrainableLlama;
import java.util.List;

/**
 * The copy recipe's loss: the mean next-token loss over every token of a step plus a weight times
 * the mean loss of the answers' value tokens, plus another weight times the mean loss of each
 * value's first token (where a wrong copy starts: the model picks another town's name or figure
 * there and copies on from it).
 */
final class CopyLoss {
  private CopyLoss() {}

  /**
   * The step's loss: the mean NLL over every predicted token of the step ({@code stepRows}) plus
   * {@code valueWeight} times the mean NLL of its value tokens ({@code stepValues}). A
   * micro-batch's sums: its NLL over all its rows and over its value rows.
   */
  static TrainingStep.Loss loss(int stepRows, int stepValues, float valueWeight) {
    return loss(stepRows, stepValues, valueWeight, 0, 0f);
  }

  /**
   * As {@link #loss(int, int, float)}, plus {@code firstWeight} times the mean NLL of the values'
   * first tokens ({@code stepFirsts} of them in the step, {@link #firstValueTokens}).
   */
  static TrainingStep.Loss loss(
      int stepRows, int stepValues, float valueWeight, int stepFirsts, float firstWeight) {
    return (micro, len) -> {
      int n = 0;
      for (Example e : micro) {
        n += e.tokens().length - 1;
      }
      long[] rows = new long[n];
      long[] labels = new long[n];
      float[] weights = new float[n];
      boolean[] value = new boolean[n];
      int k = 0;
      float base = 1f / stepRows;
      float extra = stepValues == 0 ? 0 : valueWeight / stepValues;
      float first = stepFirsts == 0 ? 0 : firstWeight / stepFirsts;
      for (int i = 0; i < micro.size(); i++) {
        Example e = micro.get(i);
        int v = 0;
        int[] vt = e.valueTargets();
        for (int p = 1; p < e.tokens().length; p++) {
          rows[k] = (long) i * len + p - 1;
          labels[k] = e.tokens()[p];
          weights[k] = base;
          if (v < vt.length && vt[v] == p) {
            weights[k] += extra;
            if (isFirst(e, v)) {
              weights[k] += first;
            }
            value[k] = true;
            v++;
          }
          k++;
        }
      }
      return new TrainingStep.Terms(
          rows,
          labels,
          weights,
          vals -> {
            double all = 0;
            double val = 0;
            for (int i = 0; i < vals.length; i++) {
              all += vals[i];
              if (value[i]) {
                val += vals[i];
              }
            }
            return new double[] {all, val};
          });
    };
  }

  /** How many values start in {@code e}'s answer: its value tokens that begin a field's value. */
  static int firstValueTokens(Example e) {
    int n = 0;
    for (int v = 0; v < e.valueTargets().length; v++) {
      if (isFirst(e, v)) {
        n++;
      }
    }
    return n;
  }

  /**
   * Whether value token {@code v} of {@code e} begins a value: the first, or not right after a
   * token of the same field.
   */
  static boolean isFirst(Example e, int v) {
    int[] vt = e.valueTargets();
    int[] vf = e.valueFields();
    return v == 0 || vt[v - 1] != vt[v] - 1 || vf[v - 1] != vf[v];
  }

  /**
   * One forward and backward pass through {@link #loss}: the accumulated gradient is that of the
   * step. Returns the micro-batch's summed NLL over all its rows and over its value rows.
   */
  static double[] forwardBackward(
      TrainableLlama model, List<Example> micro, int stepRows, int stepValues, float valueWeight) {
    return TrainingStep.forwardBackward(model, micro, loss(stepRows, stepValues, valueWeight));
  }
}
