package dev.leap.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import dev.leap.train.data.Example;
import dev.leap.train.model.AdamW;
import dev.leap.train.model.TrainableLlama;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The training step both recipes run ({@link Trainer}, {@link CopyTrainer}): the step's examples
 * packed into padded micro-batches of similar lengths, one forward and backward pass each through
 * the recipe's loss (gradients accumulate), then one AdamW update with gradient clipping. What a
 * recipe trains on is its {@link Loss}: which rows are predicted, with which weights, and which
 * sums it reports.
 */
final class TrainingStep {
  private TrainingStep() {}

  /**
   * A micro-batch's loss terms: the predicted rows of the flattened {@code [examples, longest]}
   * batch (row {@code i * longest + p - 1} predicts token {@code p} of example {@code i}), their
   * labels, their weights (so that the micro-batches' weighted NLL sums add up to the step's loss),
   * and the sums the recipe reports, from each row's NLL.
   */
  record Terms(long[] rows, long[] labels, float[] weights, Function<float[], double[]> sums) {}

  /**
   * A recipe's loss: the terms of one micro-batch whose longest example has {@code longest} tokens.
   */
  interface Loss {
    Terms terms(List<Example> micro, int longest);
  }

  /** The step's reported sums (each the sum over its micro-batches) and the gradient's norm. */
  record Result(double[] sums, double gradNorm) {}

  /**
   * One step: every micro-batch of {@code examples} (within {@code microBatchTokens}) forward and
   * backward through {@code loss}, then {@code opt.step(rate, clipNorm)}.
   */
  static Result run(
      TrainableLlama model,
      AdamW opt,
      List<Example> examples,
      int microBatchTokens,
      Loss loss,
      float rate,
      float clipNorm) {
    double[] sums = null;
    for (List<Example> micro : microBatches(examples, microBatchTokens)) {
      double[] s = forwardBackward(model, micro, loss);
      if (sums == null) {
        sums = new double[s.length];
      }
      for (int i = 0; i < s.length; i++) {
        sums[i] += s[i];
      }
    }
    double norm = opt.step(rate, clipNorm);
    return new Result(sums == null ? new double[0] : sums, norm);
  }

  /**
   * One forward and backward pass over {@code micro}: the gradient of the weighted NLL of {@code
   * loss}'s rows accumulates in the parameters. Returns {@code loss}'s sums of the rows' NLL.
   */
  static double[] forwardBackward(TrainableLlama model, List<Example> micro, Loss loss) {
    int len = 0;
    for (Example e : micro) {
      len = Math.max(len, e.tokens().length);
    }
    int[][] ids = new int[micro.size()][len];
    for (int i = 0; i < micro.size(); i++) {
      int[] tokens = micro.get(i).tokens();
      System.arraycopy(tokens, 0, ids[i], 0, tokens.length);
    }
    Terms t = loss.terms(micro, len);
    try (NDManager scope = model.newScope();
        GradientCollector gc = Engine.getInstance().newGradientCollector()) {
      NDArray nll = model.nll(scope, ids, t.rows(), t.labels());
      double[] sums = t.sums().apply(nll.toFloatArray());
      gc.backward(nll.mul(scope.create(t.weights())).sum());
      return sums;
    }
  }

  /**
   * Groups examples of similar length (sorted by length) so that each group's padded size {@code
   * count * longest} stays within {@code budget} tokens (a longer example is alone).
   */
  static List<List<Example>> microBatches(List<Example> examples, int budget) {
    List<Example> sorted = new ArrayList<>(examples);
    sorted.sort(Comparator.comparingInt(e -> e.tokens().length));
    List<List<Example>> out = new ArrayList<>();
    List<Example> cur = new ArrayList<>();
    for (Example e : sorted) {
      int longest = e.tokens().length;
      if (!cur.isEmpty() && (cur.size() + 1) * longest > budget) {
        out.add(cur);
        cur = new ArrayList<>();
      }
      cur.add(e);
    }
    if (!cur.isEmpty()) {
      out.add(cur);
    }
    return out;
  }
}
