package dev.leap.train;

import ai.djl.engine.Engine;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import dev.leap.train.internal.Json;
import dev.leap.train.model.AdamW;
import dev.leap.train.model.TrainableLlama;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The copy recipe ({@code ./leap train --recipe copy}; recipe A of {@code
 * ../shared/notes/training.md}): the project's own byte-level BPE (trained into {@code
 * WORK/tokenizer} on first use, deterministic from the seed), the three-phase {@link Curriculum}, a
 * next-token loss on <b>every</b> token of each sequence (the full softmax is cheap with 4,096
 * tokens) plus {@code valueWeight} times the mean loss of the answers' value tokens (and {@code
 * firstValueWeight} times that of each value's first token, {@link CopyLoss}), a
 * warmup-stable-decay learning rate (a function of the step only, so a run resumes across sessions:
 * linear warm-up, flat, linear decay over the last {@code decaySteps}; then the further cycles of
 * its {@link Schedule}, if any), and the early signal ({@link Signal}) every {@code evalEvery}
 * steps, logged with the step.
 *
 * <p>Stop rule: at the first measurement at or after step {@code flatAfter}, if the best swap test
 * so far (cards or articles) is below {@code minSwap} nats, the run stops with a message (its
 * checkpoint kept): the model is not reading the page, and the recipe should change rather than the
 * run go on.
 *
 * <p>Checkpoints, the log and the tokenizer live in {@code workDir} (keep it outside the
 * repository); the same command again resumes from the last checkpoint.
 */
final class CopyTrainer {

  /** How a run ended. */
  enum Outcome {
    FINISHED,
    STOPPED_AT,
    FLAT
  }

  private final CopyOptions o;
  private final PrintWriter log;

  /** What the run starts from: its tokenizer, shape and first weights. */
  private final CopyStart origin;

  CopyTrainer(CopyOptions options, PrintWriter log) {
    this.o = options;
    this.log = log;
    this.origin = new CopyStart(options, log);
  }

  Outcome run() throws IOException {
    return run(o.steps());
  }

  /** Runs (or resumes) to step {@code stopAt} at most; writes the model only at the last step. */
  Outcome run(int stopAt) throws IOException {
    Files.createDirectories(o.workDir());
    HfTokenizer tokenizer = origin.tokenizer();
    ModelConfig config = origin.shape(tokenizer.size());
    Schedule schedule = o.schedule();
    Curriculum curriculum =
        new Curriculum(
                tokenizer,
                o.seed(),
                o.stepTokens(),
                o.charactersPerStep(),
                o.phaseEnds(),
                o.contextTokens(),
                o.warmSteps(),
                o.drillShare(),
                o.tokenShare())
            .withCharacters(schedule::characters)
            .withVarietyFrom(o.varietyFrom())
            .withComposedFrom(o.composedFrom())
            .withNonceFrom(o.nonceFrom(), o.nonceThirds());
    Path ckpt = o.workDir().resolve("checkpoint");
    Path logFile = o.workDir().resolve("train-log.jsonl");
    Checkpoint.State resumed =
        Checkpoint.exists(ckpt)
            ? Checkpoint.read(ckpt, config, Engine.getInstance().defaultDevice())
            : null;
    TrainableLlama model =
        resumed != null
            ? resumed.model()
            : o.initFrom() != null
                ? origin.warmStart(config, tokenizer)
                : o.growFrom() != null
                    ? origin.grown(config)
                    : TrainableLlama.initialize(
                        config, Engine.getInstance().defaultDevice(), o.seed(), 0.02);
    int start = resumed != null ? resumed.step() : o.initStep();
    if (resumed != null && start == o.steps()) {
      // A finished run: its model is written at the last step (again here, had that been cut off).
      if (!Files.exists(o.outDir().resolve("config.json"))) {
        writeModel(model, tokenizer);
      }
      log.printf(
          "copy recipe: %s finished at step %d (model %s)%n", o.workDir(), start, o.outDir());
      log.flush();
      model.close();
      return Outcome.FINISHED;
    }
    if (start >= o.steps()) {
      throw new IllegalArgumentException(
          "the run starts at step " + start + ", at or past its last step " + o.steps());
    }
    double elapsedBefore = resumed != null ? resumed.elapsedSeconds() : 0;
    ObjectMapper json = Json.MAPPER;
    double bestSwap = Double.NEGATIVE_INFINITY;
    if (resumed == null) {
      Files.deleteIfExists(logFile);
    } else if (Files.exists(logFile)) {
      List<String> kept = new ArrayList<>();
      for (String line : Files.readAllLines(logFile, StandardCharsets.UTF_8)) {
        if (!line.isBlank() && json.readTree(line).get("step").asInt() <= start) {
          kept.add(line);
          var n = json.readTree(line);
          if (n.has("swapCards")) {
            bestSwap =
                Math.max(
                    bestSwap,
                    Math.max(n.get("swapCards").asDouble(), n.get("swapArticles").asDouble()));
          }
        }
      }
      Files.write(logFile, kept, StandardCharsets.UTF_8);
    }
    log.printf(
        Locale.ROOT,
        "copy recipe %s at step %d of %d%s (warm start of copy drills to %d, phases end at %d, %d, %d; "
            + "drill share in phase 1 %.2f%s): %,d parameters, vocabulary %,d, on %s%n",
        resumed != null ? "resuming" : "starting",
        start,
        o.steps(),
        o.initFrom() != null
            ? " from " + o.initFrom() + " (digit groups of up to " + o.digitGroup() + ")"
            : o.growFrom() != null ? " grown from " + o.growFrom() : "",
        o.warmSteps(),
        o.phaseEnds()[0],
        o.phaseEnds()[1],
        o.phaseEnds()[2],
        o.drillShare(),
        o.cycles().isEmpty()
            ? ""
            : "; then cycles END:LR:DECAY:CHARACTERS "
                + o.cycles().stream().map(Schedule.Cycle::toString).toList(),
        model.parameterCount(),
        tokenizer.size(),
        model.device());
    log.flush();
    Signal signal = new Signal(tokenizer, o.evalCards(), o.evalArticles(), o.microBatchTokens());
    int end = Math.min(o.steps(), stopAt);
    Outcome outcome = end < o.steps() ? Outcome.STOPPED_AT : Outcome.FINISHED;
    try (AdamW opt = new AdamW(model.parameters(), 0.9f, 0.95f, 1e-8f, o.weightDecay())) {
      if (resumed != null) {
        opt.restore(resumed.optimizer(), start);
      }
      long t0 = System.nanoTime();
      for (int step = start; step < end; step++) {
        long s0 = System.nanoTime();
        List<Example> examples = curriculum.step(step);
        int tokens = 0;
        int rows = 0;
        int values = 0;
        int firsts = 0;
        for (Example e : examples) {
          tokens += e.tokens().length;
          rows += e.tokens().length - 1;
          values += e.valueTargets().length;
          firsts += CopyLoss.firstValueTokens(e);
        }
        float rate = schedule.rate(step);
        TrainingStep.Result r =
            TrainingStep.run(
                model,
                opt,
                examples,
                o.microBatchTokens(),
                CopyLoss.loss(rows, values, o.valueWeight(), firsts, o.firstValueWeight()),
                rate,
                o.clipNorm());
        double tokenSum = r.sums()[0];
        double valueSum = r.sums()[1];
        double norm = r.gradNorm();
        double stepSec = (System.nanoTime() - s0) / 1e9;
        ObjectNode line = json.createObjectNode();
        line.put("step", step + 1);
        line.put("phase", curriculum.phase(step));
        line.put("loss", tokenSum / rows);
        line.put("valueLoss", values == 0 ? 0 : valueSum / values);
        line.put("lr", rate);
        line.put("gradNorm", norm);
        line.put("examples", examples.size());
        line.put("tokens", tokens);
        line.put("valueTokens", values);
        line.put("tokensPerSec", tokens / stepSec);
        boolean evaluate = (step + 1) % o.evalEvery() == 0 || step == o.initStep();
        Signal.Result s = null;
        if (evaluate) {
          long e0 = System.nanoTime();
          s = signal.measure(model);
          putSignal(line, s);
          line.put("evalSec", (System.nanoTime() - e0) / 1e9);
          bestSwap = Math.max(bestSwap, Math.max(s.swapCards(), s.swapArticles()));
        }
        double elapsed = elapsedBefore + (System.nanoTime() - t0) / 1e9;
        line.put("elapsedSec", elapsed);
        Files.writeString(
            logFile,
            line + "\n",
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        if ((step + 1) % 10 == 0 || step == start || evaluate) {
          log.printf(
              Locale.ROOT,
              "step %d/%d phase %d loss %.3f value %.3f lr %.2e |g| %.2f %,.0f tok/s elapsed %.0f s%n",
              step + 1,
              o.steps(),
              curriculum.phase(step),
              tokenSum / rows,
              values == 0 ? 0 : valueSum / values,
              rate,
              norm,
              tokens / stepSec,
              elapsed);
          if (s != null) {
            log.printf(
                Locale.ROOT,
                "  signal: swap test cards %.3f (without drill pages %.3f) articles %.3f drills %.3f nats; "
                    + "exact match cards %.2f (without drill pages %.2f) articles %.2f (mean of fields); mention gap %.3f nats; "
                    + "repeat gain %.3f nats%n",
                s.swapCards(),
                s.swapPlainCards(),
                s.swapArticles(),
                s.swapDrills(),
                s.meanExact(s.exactCards()),
                s.meanExact(s.exactPlainCards()),
                s.meanExact(s.exactArticles()),
                s.mentionGap(),
                s.repeatGain());
          }
          log.flush();
        }
        boolean flat =
            evaluate && o.flatAfter() > 0 && step + 1 >= o.flatAfter() && bestSwap < o.minSwap();
        if ((step + 1) % o.checkpointEvery() == 0 || step + 1 == end || flat) {
          Checkpoint.write(ckpt, model, opt, step + 1, elapsed);
        }
        if (flat) {
          log.printf(
              Locale.ROOT,
              "stopping: the swap test stayed flat (best %.3f nats, below %.3f after %d steps): the model "
                  + "does not read the page. Change the recipe rather than extend the run (../shared/notes/training.md); "
                  + "--flat-after 0 turns this rule off. Checkpoint kept at step %d.%n",
              bestSwap,
              o.minSwap(),
              step + 1,
              step + 1);
          log.flush();
          outcome = Outcome.FLAT;
          break;
        }
      }
    }
    try {
      LossChart.writeSignal(logFile, o.workDir().resolve("signal.png"));
    } catch (RuntimeException e) {
      log.println("could not draw the signal chart: " + e.getMessage());
    }
    if (outcome != Outcome.FINISHED) {
      model.close();
      if (outcome == Outcome.STOPPED_AT) {
        log.printf("stopped after step %d of %d; run again to resume%n", end, o.steps());
      }
      log.flush();
      return outcome;
    }
    writeModel(model, tokenizer);
    LossChart.write(logFile, o.outDir().resolve("loss.png"));
    LossChart.writeSignal(logFile, o.outDir().resolve("signal.png"));
    model.close();
    log.printf("wrote %s%n", o.outDir());
    log.flush();
    return outcome;
  }

  /** Writes a measurement's fields into a log line. */
  private static void putSignal(ObjectNode line, Signal.Result s) {
    line.put("swapCards", s.swapCards());
    line.put("swapArticles", s.swapArticles());
    line.put("valueLossCards", s.valueLossCards());
    line.put("valueLossArticles", s.valueLossArticles());
    line.put("mentionGap", s.mentionGap());
    line.put("swapPlainCards", s.swapPlainCards());
    line.put("swapDrills", s.swapDrills());
    line.put("repeatGain", s.repeatGain());
    ObjectNode ec = line.putObject("exactCards");
    ObjectNode ea = line.putObject("exactArticles");
    for (int f = 0; f < Signal.FIELDS.size(); f++) {
      ec.put(Signal.FIELDS.get(f), s.exactCards()[f]);
      ea.put(Signal.FIELDS.get(f), s.exactArticles()[f]);
    }
    ObjectNode nc = line.putObject("fieldNatsCards");
    ObjectNode na = line.putObject("fieldNatsArticles");
    for (int f = 0; f < Signal.FIELDS.size(); f++) {
      nc.put(Signal.FIELDS.get(f), s.fieldNatsCards()[f]);
      na.put(Signal.FIELDS.get(f), s.fieldNatsArticles()[f]);
    }
    ObjectNode ep = line.putObject("exactPlainCards");
    for (int f = 0; f < Signal.FIELDS.size(); f++) {
      ep.put(Signal.FIELDS.get(f), s.exactPlainCards()[f]);
    }
  }

  /**
   * The early signal ({@link Signal}) of a model directory (a copy-recipe model with its {@code
   * tokenizer.json}) on {@code cards} held-out cards and {@code articles} held-out articles, as a
   * log line: to compare models of different tokenizers (the per-field nats are of whole values) or
   * to measure a model with more held-out examples than the run's.
   */
  ObjectNode signalOf(Path modelDir, int cards, int articles) throws IOException {
    HfTokenizer tokenizer = HfTokenizer.load(modelDir.resolve("tokenizer.json"));
    ModelConfig config = ModelConfig.load(modelDir);
    ObjectNode line = Json.MAPPER.createObjectNode();
    line.put("model", modelDir.toString());
    line.put("cards", cards);
    line.put("articles", articles);
    long t0 = System.nanoTime();
    try (TrainableLlama model =
        TrainableLlama.fromValues(
            config,
            Engine.getInstance().defaultDevice(),
            TrainableLlama.readValues(modelDir, config))) {
      putSignal(line, new Signal(tokenizer, cards, articles, o.microBatchTokens()).measure(model));
    }
    line.put("evalSec", (System.nanoTime() - t0) / 1e9);
    return line;
  }

  private void writeModel(TrainableLlama model, HfTokenizer tokenizer) throws IOException {
    model.save(o.outDir(), o.storage(), tokenizer.eosIds());
    Path tokDir = o.workDir().resolve("tokenizer");
    Files.copy(
        tokDir.resolve("tokenizer.json"),
        o.outDir().resolve("tokenizer.json"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        tokDir.resolve("tokenizer_config.json"),
        o.outDir().resolve("tokenizer_config.json"),
        StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Writes the model of the last checkpoint (of a stopped or running run) to the output directory,
   * as a finished run writes its model, so that {@code leap bench} can measure it; returns its
   * step.
   */
  int export() throws IOException {
    HfTokenizer tokenizer = origin.tokenizer();
    Path ckpt = o.workDir().resolve("checkpoint");
    if (!Checkpoint.exists(ckpt)) {
      throw new IllegalArgumentException("no checkpoint in " + ckpt);
    }
    Checkpoint.State state =
        Checkpoint.read(ckpt, origin.shape(tokenizer.size()), Engine.getInstance().defaultDevice());
    try (TrainableLlama model = state.model()) {
      writeModel(model, tokenizer);
    }
    log.printf("wrote the model of step %d to %s%n", state.step(), o.outDir());
    log.flush();
    return state.step();
  }
}
