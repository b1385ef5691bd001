package dev.leap.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.retokenize.Tokenizer;
import dev.leap.train.data.City;
import dev.leap.train.data.CopyDrill;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import dev.leap.train.data.FactCard;
import dev.leap.train.model.TrainableLlama;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The early signal of the copy recipe ({@code ../shared/notes/training.md}, "Know within 15 minutes
 * whether it is working"), measured on held-out fact cards and held-out articles of 300 to 600
 * tokens:
 *
 * <ul>
 *   <li>the <b>swap test</b>: the mean log-loss of the answer's value tokens given another city's
 *       page minus given the city's own page (teacher-forced). A model that ignores the page scores
 *       about 0; one that copies scores high (the other page cannot give the values);
 *   <li><b>teacher-forced exact match per field</b>: the share of examples where every token of the
 *       field is the argmax given the right prefix;
 *   <li>the <b>mention gap</b> on the held-out articles: the mean loss of the tokens after the
 *       first one of a capitalized word at its first mention in the page minus at a later mention
 *       (copying shows as a sharp rise: a repeated name becomes predictable once its first token is
 *       seen).
 * </ul>
 *
 * Forward passes only (no gradient collector); a few seconds on the project's CPU.
 */
final class Signal {
  /** Field names in the order of {@code City#fields}. */
  static final List<String> FIELDS =
      List.of("name", "country", "latitude", "population", "landmark1", "landmark2", "landmark3");

  private final List<Example> cards;
  private final List<Example> cardsSwapped;
  private final List<Example> articles;
  private final List<Example> articlesSwapped;
  private final List<Example> drills;
  private final List<Example> drillsSwapped;
  private final boolean[] plainCard;
  private final List<Example> repeats;
  private final int microBatchTokens;

  /**
   * What one measurement found. {@code swapPlainCards} and {@code exactPlainCards} leave out the
   * held-out cards whose page is a copy drill (the record itself), so they show reading of listings
   * and prose; {@code swapDrills} is the swap test on held-out list and recall drills ({@link
   * dev.leap.train.data.CopyDrill#heldOut}), where copying shows first.
   */
  record Result(
      double swapCards,
      double swapArticles,
      double valueLossCards,
      double valueLossArticles,
      double[] exactCards,
      double[] exactArticles,
      double mentionGap,
      double swapPlainCards,
      double[] exactPlainCards,
      double swapDrills,
      double repeatGain,
      double[] fieldNatsCards,
      double[] fieldNatsArticles) {
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
    this.drills = CopyDrill.heldOut(tokenizer, cards / 2, false);
    this.drillsSwapped = CopyDrill.heldOut(tokenizer, cards / 2, true);
    this.repeats = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      repeats.add(
          CopyDrill.tokens(
              tokenizer.size(),
              tokenizer.eosIds(),
              new SplittableRandom(City.EVAL_SEED_BASE + 13_000 + i)));
    }
    this.plainCard = new boolean[cards];
    for (int i = 0; i < cards; i++) {
      plainCard[i] = Curriculum.heldOutCardKind(i) != FactCard.Kind.DRILL;
    }
    this.microBatchTokens = microBatchTokens;
    this.tokenizer = tokenizer;
  }

  Result measure(TrainableLlama model) {
    double[] exactCards = new double[FIELDS.size()];
    double[] exactArticles = new double[FIELDS.size()];
    double[][] perOwn = new double[cards.size()][];
    double[][] perOther = new double[cards.size()][];
    double[] exactPlain = new double[FIELDS.size()];
    double[] natsCards = new double[FIELDS.size()];
    double[] natsArticles = new double[FIELDS.size()];
    double own = valueLoss(model, cards, exactCards, perOwn, natsCards);
    double other = valueLoss(model, cardsSwapped, null, perOther);
    double plainOwn = 0;
    double plainOther = 0;
    int plainTokens = 0;
    int plainCards = 0;
    for (int i = 0; i < cards.size(); i++) {
      if (plainCard[i]) {
        plainOwn += perOwn[i][0];
        plainOther += perOther[i][0];
        plainTokens += (int) perOwn[i][1];
        plainCards++;
        for (int f = 0; f < FIELDS.size(); f++) {
          exactPlain[f] += perOwn[i][2 + f];
        }
      }
    }
    for (int f = 0; f < FIELDS.size(); f++) {
      exactPlain[f] /= Math.max(1, plainCards);
    }
    double ownA = valueLoss(model, articles, exactArticles, null, natsArticles);
    double otherA = valueLoss(model, articlesSwapped, null, null);
    double swapDrills =
        drills.isEmpty()
            ? Double.NaN
            : valueLoss(model, drillsSwapped, null, null) - valueLoss(model, drills, null, null);
    return new Result(
        other - own,
        otherA - ownA,
        own,
        ownA,
        exactCards,
        exactArticles,
        mentionGap(model),
        (plainOther - plainOwn) / Math.max(1, plainTokens),
        exactPlain,
        swapDrills,
        repeatGain(model),
        natsCards,
        natsArticles);
  }

  /**
   * The repeat test: on held-out sequences of random tokens repeated once ({@link
   * dev.leap.train.data.CopyDrill#tokens}), the mean loss of the first occurrence's tokens (after
   * its first) minus that of the repeat's. About 0 without induction heads; several nats with them.
   */
  double repeatGain(TrainableLlama model) {
    double first = 0;
    double again = 0;
    int count = 0;
    for (Example e : repeats) {
      int n = e.answerStart();
      long[] rows = new long[2 * (n - 1)];
      long[] labels = new long[rows.length];
      for (int i = 0; i < n - 1; i++) {
        rows[i] = i;
        labels[i] = e.tokens()[i + 1];
        rows[n - 1 + i] = n + i;
        labels[n - 1 + i] = e.tokens()[n + 1 + i];
      }
      try (NDManager scope = model.newScope()) {
        float[] nll = model.nll(scope, new int[][] {e.tokens()}, rows, labels).toFloatArray();
        for (int i = 0; i < n - 1; i++) {
          first += nll[i];
          again += nll[n - 1 + i];
        }
      }
      count += n - 1;
    }
    return (first - again) / count;
  }

  private int[][] mentionKinds;
  private final Tokenizer tokenizer;

  /**
   * Per held-out article and prompt position: 1 where the token continues a capitalized word (a
   * token of letters after a token that starts with a capital) at the word's first mention, 2 at a
   * later mention, else 0.
   */
  int[][] mentionKinds() {
    if (mentionKinds == null) {
      mentionKinds = new int[articles.size()][];
      for (int a = 0; a < articles.size(); a++) {
        Example e = articles.get(a);
        int[] kind = new int[e.answerStart()];
        Set<String> seen = new HashSet<>();
        int p = 0;
        while (p < e.answerStart()) {
          String first = new String(tokenizer.tokenBytes(e.tokens()[p]), StandardCharsets.UTF_8);
          if (first.isEmpty() || !Character.isUpperCase(first.charAt(0))) {
            p++;
            continue;
          }
          int q = p + 1;
          StringBuilder word = new StringBuilder(first);
          while (q < e.answerStart()) {
            String t = new String(tokenizer.tokenBytes(e.tokens()[q]), StandardCharsets.UTF_8);
            if (t.isEmpty() || !t.chars().allMatch(Character::isLowerCase)) {
              break;
            }
            word.append(t);
            q++;
          }
          boolean repeat = !seen.add(word.toString());
          for (int i = p + 1; i < q; i++) {
            kind[i] = repeat ? 2 : 1;
          }
          p = q;
        }
        mentionKinds[a] = kind;
      }
    }
    return mentionKinds;
  }

  /**
   * First-mention minus later-mention mean loss of the continuing tokens of capitalized words (NaN
   * if either is absent).
   */
  double mentionGap(TrainableLlama model) {
    int[][] kinds = mentionKinds();
    double[] sum = new double[3];
    int[] count = new int[3];
    for (int a = 0; a < articles.size(); a++) {
      Example e = articles.get(a);
      int n = 0;
      for (int k : kinds[a]) {
        n += k == 0 ? 0 : 1;
      }
      if (n == 0) {
        continue;
      }
      long[] rows = new long[n];
      long[] labels = new long[n];
      int[] kindOf = new int[n];
      int j = 0;
      for (int p = 1; p < kinds[a].length; p++) {
        if (kinds[a][p] != 0) {
          rows[j] = p - 1;
          labels[j] = e.tokens()[p];
          kindOf[j] = kinds[a][p];
          j++;
        }
      }
      try (NDManager scope = model.newScope()) {
        float[] nll =
            model
                .nll(scope, new int[][] {Arrays.copyOf(e.tokens(), e.answerStart())}, rows, labels)
                .toFloatArray();
        for (int i = 0; i < n; i++) {
          sum[kindOf[i]] += nll[i];
          count[kindOf[i]]++;
        }
      }
    }
    return count[1] == 0 || count[2] == 0 ? Double.NaN : sum[1] / count[1] - sum[2] / count[2];
  }

  /**
   * The mean NLL of the examples' value tokens; with {@code exact}, adds per field the share of
   * examples whose every value token of that field is the model's argmax; with {@code perExample},
   * sets each example's {summed NLL, value tokens, 1 or 0 per field for an exact match}.
   */
  double valueLoss(TrainableLlama model, List<Example> examples, double[] exact) {
    return valueLoss(model, examples, exact, null);
  }

  double valueLoss(
      TrainableLlama model, List<Example> examples, double[] exact, double[][] perExample) {
    return valueLoss(model, examples, exact, perExample, null);
  }

  /**
   * As above; with {@code fieldNats}, adds per field the mean over examples of the field's summed
   * NLL (nats per field: the log-loss of the whole value, comparable across tokenizers).
   */
  double valueLoss(
      TrainableLlama model,
      List<Example> examples,
      double[] exact,
      double[][] perExample,
      double[] fieldNats) {
    // Micro-batches are sorted by length: find each example's own index.
    Map<Example, Integer> index = new IdentityHashMap<>();
    for (int i = 0; i < examples.size(); i++) {
      index.put(examples.get(i), i);
    }
    double sum = 0;
    int count = 0;
    for (List<Example> micro : TrainingStep.microBatches(examples, microBatchTokens)) {
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
        float[] nll =
            logp.gather(scope.create(labels).reshape(rowsN, 1), 1)
                .reshape(rowsN)
                .neg()
                .toFloatArray();
        long[] argmax = logits.argMax(1).toLongArray();
        k = 0;
        for (Example e : micro) {
          boolean[] right = new boolean[FIELDS.size()];
          Arrays.fill(right, true);
          double own = 0;
          for (int j = 0; j < e.valueTargets().length; j++) {
            sum += nll[k];
            own += nll[k];
            count++;
            if (fieldNats != null) {
              fieldNats[e.valueFields()[j]] += nll[k] / examples.size();
            }
            if (argmax[k] != labels[k]) {
              right[e.valueFields()[j]] = false;
            }
            k++;
          }
          if (perExample != null) {
            double[] row = new double[2 + FIELDS.size()];
            row[0] = own;
            row[1] = e.valueTargets().length;
            for (int f = 0; f < right.length; f++) {
              row[2 + f] = right[f] ? 1 : 0;
            }
            perExample[index.get(e)] = row;
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
