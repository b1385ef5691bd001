package dev.leap.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.retokenize.Tokenizer;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import dev.leap.train.model.TrainableLlama;
import java.util.List;

/**
 * The early signal of the copy recipe ({@code ../shared/notes/training.md}, "Know within 15 minutes
 * whether it is working"), measured on held-out fact cards and held-out articles of 300 to 600
 * tokens:
 * <ul>
 *   <li>the <b>swap test</b>: the mean log-loss of the answer's value tokens given another city's
 *       page minus given the city's own page (teacher-forced). A model that ignores the page scores
 *       about 0; one that copies scores high (the other page cannot give the values);
 *   <li><b>teacher-forced exact match per field</b>: the share of examples where every token of the
 *       field is the argmax given the right prefix.
 * </ul>
 * Forward passes only (no gradient collector); a few seconds on the project's CPU.
 */
final class Signal {
  /** Field names in the order of {@code City#fields}. */
  static final List<String> FIELDS = List.of("name", "country", "latitude", "population", "landmark1", "landmark2", "landmark3");

  private final List<Example> cards;
  private final List<Example> cardsSwapped;
  private final List<Example> articles;
  private final List<Example> articlesSwapped;
  private final int microBatchTokens;

  /** What one measurement found. */
  record Result(double swapCards, double swapArticles, double valueLossCards, double valueLossArticles,
      double[] exactCards, double[] exactArticles) {
    double meanExact(double[] e) {
      double s = 0;
      for (double d : e) {
        s += d;
      }
      return s / e.length;
    }
  }

  Signal(Tokenizer tokenizer, int cards, int articles, int microBatchTokens) {
    this.cards = Curriculum.heldOutCards(tokenizer, cards, false);
    this.cardsSwapped = Curriculum.heldOutCards(tokenizer, cards, true);
    this.articles = Curriculum.heldOutArticles(tokenizer, articles, 300, 600, false);
    this.articlesSwapped = Curriculum.heldOutArticles(tokenizer, articles, 300, 600, true);
    this.microBatchTokens = microBatchTokens;
  }

  Result measure(TrainableLlama model) {
    double[] exactCards = new double[FIELDS.size()];
    double[] exactArticles = new double[FIELDS.size()];
    double own = valueLoss(model, cards, exactCards);
    double other = valueLoss(model, cardsSwapped, null);
    double ownA = valueLoss(model, articles, exactArticles);
    double otherA = valueLoss(model, articlesSwapped, null);
    return new Result(other - own, otherA - ownA, own, ownA, exactCards, exactArticles);
  }

  /**
   * The mean NLL of the examples' value tokens; with {@code exact}, adds per field the share of
   * examples whose every value token of that field is the model's argmax.
   */
  double valueLoss(TrainableLlama model, List<Example> examples, double[] exact) {
    double sum = 0;
    int count = 0;
    for (List<Example> micro : Trainer.microBatches(examples, microBatchTokens)) {
      int len = 0;
      int rowsN = 0;
      for (Example e : micro) {
        len = Math.max(len, e.tokens().length);
        rowsN += e.valueTargets().length;
      }
      int[][] ids = new int[micro.size()][len];
      long[] rows = new long[rowsN];
      long[] labels = new long[rowsN];
      int k = 0;
      for (int i = 0; i < micro.size(); i++) {
        Example e = micro.get(i);
        System.arraycopy(e.tokens(), 0, ids[i], 0, e.tokens().length);
        for (int p : e.valueTargets()) {
          rows[k] = (long) i * len + p - 1;
          labels[k] = e.tokens()[p];
          k++;
        }
      }
      try (NDManager scope = model.newScope()) {
        NDArray logits = model.logits(scope, model.hidden(scope, ids), rows);
        NDArray logp = logits.logSoftmax(-1);
        float[] nll = logp.gather(scope.create(labels).reshape(rowsN, 1), 1).reshape(rowsN).neg().toFloatArray();
        long[] argmax = logits.argMax(1).toLongArray();
        k = 0;
        for (Example e : micro) {
          boolean[] right = new boolean[FIELDS.size()];
          java.util.Arrays.fill(right, true);
          for (int j = 0; j < e.valueTargets().length; j++) {
            sum += nll[k];
            count++;
            if (argmax[k] != labels[k]) {
              right[e.valueFields()[j]] = false;
            }
            k++;
          }
          if (exact != null) {
            for (int f = 0; f < right.length; f++) {
              if (right[f]) {
                exact[f] += 1.0 / examples.size();
              }
            }
          }
        }
      }
    }
    return sum / Math.max(1, count);
  }
}
