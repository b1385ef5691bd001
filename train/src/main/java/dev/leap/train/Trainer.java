package dev.leap.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import ai.djl.training.tracker.CosineTracker;
import ai.djl.training.tracker.Tracker;
import ai.djl.training.tracker.WarmUpTracker;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.Example;
import dev.leap.train.data.TrainingMix;
import dev.leap.train.internal.Json;
import dev.leap.train.model.AdamW;
import dev.leap.train.model.TrainableLlama;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The training loop: per step, the examples of {@link TrainingMix} (loss on the answers, plus an
 * auxiliary loss on the articles' repeated bigrams, see {@link Example#recallTargets}), packed into
 * padded micro-batches of similar lengths, one forward and backward pass each (gradients
 * accumulate), then one AdamW update with the learning rate of a linear warm-up followed by cosine
 * decay, and gradient clipping. Every step appends a line to {@code train-log.jsonl}; every {@code
 * checkpointEvery} steps the parameters, the optimizer moments and the step are written to {@code
 * checkpoint/} (atomically), from which a later run resumes exactly: the data of a step depends
 * only on (seed, step). At the end the model is written as a Hugging Face directory.
 */
public final class Trainer {

  /** Hyperparameters and paths of a run. */
  public record Options(
      ModelConfig model,
      long seed,
      int steps,
      int warmupSteps,
      float learningRate,
      float finalLearningRate,
      float weightDecay,
      float clipNorm,
      int stepTokens,
      int charactersPerStep,
      int minDocTokens,
      int maxDocTokens,
      int microBatchTokens,
      int checkpointEvery,
      Path workDir,
      Path outDir,
      HfModelWriter.StorageType storage) {}

  private final Options o;
  private final PrintWriter log;

  public Trainer(Options options, PrintWriter log) {
    this.o = options;
    this.log = log;
  }

  /**
   * Runs (or resumes) the training to its last step and writes the model; returns the final
   * smoothed loss.
   */
  public double run() throws IOException {
    return run(o.steps());
  }

  /**
   * Runs (or resumes) the training and stops after step {@code stopAt} (a checkpoint is written
   * there); the model is written only when the last step is reached. Returns the smoothed loss.
   */
  public double run(int stopAt) throws IOException {
    Files.createDirectories(o.workDir());
    HfTokenizer tokenizer = HfTokenizer.gpt2();
    TrainingMix mix =
        new TrainingMix(
            tokenizer,
            o.seed(),
            o.stepTokens(),
            o.charactersPerStep(),
            o.minDocTokens(),
            o.maxDocTokens());
    Path ckpt = o.workDir().resolve("checkpoint");
    Path logFile = o.workDir().resolve("train-log.jsonl");
    Checkpoint.State resumed =
        Checkpoint.exists(ckpt)
            ? Checkpoint.read(ckpt, o.model(), Engine.getInstance().defaultDevice())
            : null;
    TrainableLlama model =
        resumed != null
            ? resumed.model()
            : TrainableLlama.initialize(
                o.model(), Engine.getInstance().defaultDevice(), o.seed(), 0.02);
    int start = resumed != null ? resumed.step() : 0;
    double elapsedBefore = resumed != null ? resumed.elapsedSeconds() : 0;
    if (resumed == null) {
      Files.deleteIfExists(logFile);
    } else if (Files.exists(logFile)) {
      // Steps logged after the checkpoint are run again: keep the log to the checkpoint's step.
      ObjectMapper m = Json.MAPPER;
      List<String> kept = new ArrayList<>();
      for (String line : Files.readAllLines(logFile, StandardCharsets.UTF_8)) {
        if (!line.isBlank() && m.readTree(line).get("step").asInt() <= start) {
          kept.add(line);
        }
      }
      Files.write(logFile, kept, StandardCharsets.UTF_8);
    }
    log.printf(
        Locale.ROOT,
        "%s at step %d of %d: %,d parameters on %s%n",
        resumed != null ? "resuming" : "starting",
        start,
        o.steps(),
        model.parameterCount(),
        model.device());
    log.flush();
    Tracker lr =
        WarmUpTracker.builder()
            .optWarmUpSteps(o.warmupSteps())
            .optWarmUpBeginValue(0f)
            .setMainTracker(
                CosineTracker.builder()
                    .setBaseValue(o.learningRate())
                    .optFinalValue(o.finalLearningRate())
                    .setMaxUpdates(Math.max(1, o.steps() - o.warmupSteps()))
                    .build())
            .build();
    int end = Math.min(o.steps(), stopAt);
    double smoothed = Double.NaN;
    try (AdamW opt = new AdamW(model.parameters(), 0.9f, 0.95f, 1e-8f, o.weightDecay())) {
      if (resumed != null) {
        opt.restore(resumed.optimizer(), start);
      }
      long t0 = System.nanoTime();
      for (int step = start; step < end; step++) {
        // Examples are made on this thread: tokenizing on another thread while torch runs the
        // backward pass left NaN and inf in the embedding gradient now and then.
        long s0 = System.nanoTime();
        List<Example> examples = mix.step(step);
        int targets = 0;
        int recall = 0;
        int tokens = 0;
        for (Example e : examples) {
          targets += e.targets();
          recall += e.recallTargets().length;
          tokens += e.tokens().length;
        }
        double lossSum = 0;
        double recallSum = 0;
        for (List<Example> micro : microBatches(examples, o.microBatchTokens())) {
          double[] sums = forwardBackward(model, micro, targets, recall);
          lossSum += sums[0];
          recallSum += sums[1];
        }
        float rate = lr.getNewValue(step);
        double norm = opt.step(rate, o.clipNorm());
        double loss = lossSum / targets;
        smoothed = Double.isNaN(smoothed) ? loss : 0.95 * smoothed + 0.05 * loss;
        double stepSec = (System.nanoTime() - s0) / 1e9;
        double elapsed = elapsedBefore + (System.nanoTime() - t0) / 1e9;
        ObjectNode line = Json.MAPPER.createObjectNode();
        line.put("step", step + 1);
        line.put("loss", loss);
        line.put("lr", rate);
        line.put("gradNorm", norm);
        line.put("examples", examples.size());
        line.put("tokens", tokens);
        line.put("answerTokens", targets);
        line.put("recallLoss", recall == 0 ? 0 : recallSum / recall);
        line.put("recallTokens", recall);
        line.put("tokensPerSec", tokens / stepSec);
        line.put("elapsedSec", elapsed);
        Files.writeString(
            logFile,
            line + "\n",
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        if ((step + 1) % 10 == 0 || step == start) {
          log.printf(
              Locale.ROOT,
              "step %d/%d loss %.4f (smoothed %.4f) recall %.3f lr %.2e |g| %.2f %,.0f tok/s elapsed %.0f s%n",
              step + 1,
              o.steps(),
              loss,
              smoothed,
              recall == 0 ? 0 : recallSum / recall,
              rate,
              norm,
              tokens / stepSec,
              elapsed);
          log.flush();
        }
        if ((step + 1) % o.checkpointEvery() == 0 || step + 1 == end) {
          Checkpoint.write(ckpt, model, opt, step + 1, elapsed);
        }
      }
    }
    if (end < o.steps()) {
      model.close();
      log.printf("stopped after step %d of %d; run again to resume%n", end, o.steps());
      log.flush();
      return smoothed;
    }
    model.save(o.outDir(), o.storage(), tokenizer.eosIds());
    HfTokenizer.copyGpt2(o.outDir().resolve("tokenizer.json"));
    LossChart.write(logFile, o.outDir().resolve("loss.png"));
    model.close();
    log.printf("wrote %s%n", o.outDir());
    log.flush();
    return smoothed;
  }

  /** Weight of the auxiliary recall loss against the answer loss. */
  static final float RECALL_WEIGHT = 0.5f;

  /**
   * One forward and backward pass over a micro-batch: the step's loss is the mean NLL of its answer
   * tokens plus {@link #RECALL_WEIGHT} times the mean NLL of its recall targets, so the accumulated
   * gradient is that of the step. Returns the micro-batch's summed answer NLL and recall NLL.
   */
  static double[] forwardBackward(
      TrainableLlama model, List<Example> micro, int stepTargets, int stepRecall) {
    int len = 0;
    int targets = 0;
    int recall = 0;
    for (Example e : micro) {
      len = Math.max(len, e.tokens().length);
      targets += e.targets();
      recall += e.recallTargets().length;
    }
    int[][] ids = new int[micro.size()][len];
    long[] rows = new long[targets + recall];
    long[] labels = new long[targets + recall];
    float[] weights = new float[targets + recall];
    int k = 0;
    for (int i = 0; i < micro.size(); i++) {
      Example e = micro.get(i);
      System.arraycopy(e.tokens(), 0, ids[i], 0, e.tokens().length);
      for (int p = e.answerStart(); p < e.tokens().length; p++) {
        rows[k] = (long) i * len + p - 1;
        labels[k] = e.tokens()[p];
        weights[k] = 1f / stepTargets;
        k++;
      }
    }
    int answerRows = k;
    for (int i = 0; i < micro.size(); i++) {
      Example e = micro.get(i);
      for (int p : e.recallTargets()) {
        rows[k] = (long) i * len + p - 1;
        labels[k] = e.tokens()[p];
        weights[k] = RECALL_WEIGHT / Math.max(1, stepRecall);
        k++;
      }
    }
    try (NDManager scope = model.newScope();
        GradientCollector gc = Engine.getInstance().newGradientCollector()) {
      NDArray nll = model.nll(scope, ids, rows, labels);
      float[] values = nll.toFloatArray();
      double answer = 0;
      double aux = 0;
      for (int i = 0; i < values.length; i++) {
        if (i < answerRows) {
          answer += values[i];
        } else {
          aux += values[i];
        }
      }
      gc.backward(nll.mul(scope.create(weights)).sum());
      return new double[] {answer, aux};
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
