package dev.leap.train;

import dev.leap.train.data.Example;
import dev.leap.train.model.TrainableLlama;
import java.util.List;

/**
 * The copy recipe's loss: the mean next-token loss over every token of a step plus a weight times
 * the mean loss of the answers' value tokens.
 */
final class CopyLoss {
  private CopyLoss() {}

  /**
   * The step's loss: the mean NLL over every predicted token of the step ({@code stepRows}) plus
   * {@code valueWeight} times the mean NLL of its value tokens ({@code stepValues}). A
   * micro-batch's sums: its NLL over all its rows and over its value rows.
   */
  static TrainingStep.Loss loss(int stepRows, int stepValues, float valueWeight) {
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

  /**
   * One forward and backward pass through {@link #loss}: the accumulated gradient is that of the
   * step. Returns the micro-batch's summed NLL over all its rows and over its value rows.
   */
  static double[] forwardBackward(
      TrainableLlama model, List<Example> micro, int stepRows, int stepValues, float valueWeight) {
    return TrainingStep.forwardBackward(model, micro, loss(stepRows, stepValues, valueWeight));
  }
}
