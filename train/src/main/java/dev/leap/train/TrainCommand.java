package dev.leap.train;

import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap train}: trains Leap's demo model from scratch (or resumes a stopped run from its
 * checkpoint) on the data the project generates, and writes it as a Hugging Face model directory.
 * The defaults (the copy recipe, its main cycle and {@link #SHIPPED_CYCLES}) reproduce the shipped
 * model; {@code --recipe gpt2} is the earlier recipe (GPT-2 vocabulary, the demo model to {@code
 * demo-v4}).
 */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    description =
        "Train the demo model (Llama architecture, the project's own BPE tokenizer) on Leap's generated data: the copy"
            + " curriculum, with the shipped model's schedule by default; resumes from WORK/checkpoint."
            + " --recipe gpt2: the earlier recipe on the GPT-2 vocabulary (see train/README.md).")
public final class TrainCommand implements Callable<Integer> {
  /** Made by {@code leap}'s command line, by class name. */
  public TrainCommand() {}

  @Spec CommandSpec spec;

  @Option(names = "--out", description = "Model directory to write. Default: WORK/model.")
  Path out;

  @Option(
      names = "--work",
      description =
          "Checkpoint and log directory. Default: ../leap-train-copy, beside the repository (the"
              + " checkpoints and tokenizer stay outside it; gpt2: train-out).")
  Path work;

  @Option(
      names = "--steps",
      defaultValue = "" + DEFAULT_STEPS,
      description = "gpt2: optimizer steps. Default: ${DEFAULT-VALUE}.")
  int steps;

  @Option(
      names = "--seed",
      defaultValue = "13",
      description = "Seed of the weights and the data. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--lr",
      description = "Peak learning rate (copy: of the main cycle). Default: 3e-3 (gpt2: 1.5e-3).")
  Float lr;

  @Option(names = "--warmup", description = "Warm-up steps. Default: 30.")
  Integer warmup;

  @Option(
      names = "--step-tokens",
      description =
          "Tokens of cards and articles (gpt2: city documents) per step. Default: 500 (gpt2: 6000).")
  Integer stepTokens;

  @Option(
      names = "--characters",
      description = "Character sheets per step (copy: of the main cycle). Default: 1 (gpt2: 6).")
  Integer characters;

  @Option(
      names = "--min-doc",
      defaultValue = "150",
      description = "gpt2: shortest document (tokens). Default: ${DEFAULT-VALUE}.")
  int minDoc;

  @Option(
      names = "--max-doc",
      defaultValue = "3500",
      description = "gpt2: longest document (tokens). Default: ${DEFAULT-VALUE}.")
  int maxDoc;

  @Option(
      names = "--micro-batch",
      defaultValue = "4096",
      description = "Padded tokens per forward pass. Default: ${DEFAULT-VALUE}.")
  int microBatch;

  @Option(
      names = "--checkpoint-every",
      description = "Steps between checkpoints. Default: 50 (gpt2: 20).")
  Integer checkpointEvery;

  @Option(names = "--hidden", description = "Hidden size. Default: 128 (gpt2: 256).")
  Integer hidden;

  @Option(
      names = "--layers",
      defaultValue = "4",
      description = "Layers. Default: ${DEFAULT-VALUE}.")
  int layers;

  @Option(
      names = "--recipe",
      defaultValue = "copy",
      description =
          "copy (the shipped model: own BPE tokenizer, copy drills, fact cards then articles, warmup-stable-decay,"
              + " early signal and stop rule) or gpt2 (the earlier recipe: GPT-2 vocabulary, the demo model to"
              + " demo-v4). Default: ${DEFAULT-VALUE}.")
  String recipe;

  @Option(
      names = "--phases",
      split = ",",
      paramLabel = "END1,END2,END3",
      description =
          "copy: the steps at which phase 1 (cards), 2 (300-1,500-token articles) and 3 (2,000-4,400 tokens) end; "
              + "the last ends the main learning-rate cycle. Default: 7500,8500,10300.")
  int[] phases;

  @Option(
      names = "--cycles",
      paramLabel = "END:LR:DECAY[:CHARACTERS],...|none",
      description =
          "copy: learning-rate cycles after the main one, each to END (exclusive), flat at LR, then decaying over its"
              + " last DECAY steps to LR/10, with CHARACTERS sheets per step (default --characters); the last END is"
              + " the run's length. Default: the shipped model's ("
              + SHIPPED_CYCLES
              + ") with the default --phases, none with other phases.")
  String cycles;

  /**
   * The cycles after the main one that made the shipped model (BENCHMARKS, issue 25, r39-r41): a
   * run resumed at step 10,300 three times with these rates, decays and sheet counts.
   */
  static final String SHIPPED_CYCLES = "11800:1.5e-3:800,14800:1e-3:1200,15400:5e-4:600:3";

  /** The copy recipe's default phase ends. */
  static final int[] DEFAULT_PHASES = {7500, 8500, 10300};

  @Option(
      names = "--decay",
      defaultValue = "700",
      description =
          "copy: steps of linear learning-rate decay at the end of the main cycle. Default: ${DEFAULT-VALUE}.")
  int decay;

  @Option(
      names = "--vocab",
      defaultValue = "4096",
      description = "copy: tokens of the trained BPE tokenizer. Default: ${DEFAULT-VALUE}.")
  int vocab;

  @Option(
      names = "--value-weight",
      defaultValue = "1.0",
      description =
          "copy: weight of the mean loss on the answers' value tokens, added to the mean loss on every token. Default: ${DEFAULT-VALUE}.")
  float valueWeight;

  @Option(
      names = "--first-value-weight",
      defaultValue = "0",
      description =
          "copy: weight of the mean loss on each value's first token (where a wrong copy starts), added to the others. Default: ${DEFAULT-VALUE}.")
  float firstValueWeight;

  @Option(
      names = "--warm",
      defaultValue = "6000",
      description =
          "copy: steps of pure copy and associative-recall drills before the fact cards (recipe C's warm start; "
              + "phase 0, inside phase 1's steps). Default: ${DEFAULT-VALUE}.")
  int warm;

  @Option(
      names = "--drills",
      defaultValue = "0.3",
      description =
          "copy: share of phase 1's examples that are copy drills instead of fact cards (0..1). Default: ${DEFAULT-VALUE}.")
  double drills;

  @Option(
      names = "--token-drills",
      defaultValue = "1.0",
      description =
          "copy: share of the warm start's examples, and of phase 1's drills, that are repeated random tokens "
              + "(induction-head drills) instead of text drills (0..1). Default: ${DEFAULT-VALUE}.")
  double tokenDrills;

  @Option(
      names = "--eval-every",
      defaultValue = "50",
      description =
          "copy: steps between measurements of the early signal. Default: ${DEFAULT-VALUE}.")
  int evalEvery;

  @Option(
      names = "--flat-after",
      description =
          "copy: stop the run if by this step the swap test never reached --min-swap (0: never stop). Default: the end "
              + "of phase 1 (the swap test is about 0 through the warm start of token drills).")
  Integer flatAfter;

  @Option(
      names = "--min-swap",
      defaultValue = "0.1",
      description =
          "copy: swap test (nats) that counts as learning to read. Default: ${DEFAULT-VALUE}.")
  double minSwap;

  @Option(
      names = "--context",
      defaultValue = "4608",
      description = "copy: the model's context (tokens). Default: ${DEFAULT-VALUE}.")
  int context;

  @Option(
      names = "--init-from",
      description =
          "copy: warm start from this model directory (a copy-recipe model with its single-digit tokenizer.json): "
              + "the tokenizer gets digit groups of up to --digit-group digits as tokens (old ids kept, EOS moved last), "
              + "the embedding a row per new token; used when WORK has no checkpoint (then the run resumes as usual).")
  Path initFrom;

  @Option(
      names = "--grow-from",
      description =
          "copy: start from this model directory (a copy-recipe model with its tokenizer.json, which the run keeps) grown"
              + " to --layers and --heads: new heads and layers start with zero output projections, so the grown model"
              + " computes the old one's logits (ModelGrowth); used when WORK has no checkpoint.")
  Path growFrom;

  @Option(
      names = "--heads",
      description =
          "copy: attention heads of 32 dimensions (half as many key-value heads). Default: the hidden size over 32.")
  Integer heads;

  @Option(
      names = "--init-step",
      defaultValue = "0",
      description =
          "copy: with --init-from or --grow-from, the step the run starts at (the curriculum's phase is a function of the step; "
              + "the warm-up counts from it). Default: ${DEFAULT-VALUE}.")
  int initStep;

  @Option(
      names = "--digit-group",
      defaultValue = "2",
      description =
          "copy: the longest digit group that becomes one token (2 to 4; 1 keeps single digits), in the tokenizer "
              + "trained for a fresh run and in the extension of --init-from's. Groups of two let the model copy "
              + "populations (BENCHMARKS, issue 25, e19 and e20). Default: ${DEFAULT-VALUE}.")
  int digitGroup;

  @Option(
      names = "--init-noise",
      defaultValue = "0.05",
      description =
          "copy: with --init-from, the noise added to each new token's row (the mean of its digits' rows), in "
              + "standard deviations of the embedding table's entries. 0.5 raised the loss of e17's model on articles "
              + "from 0.82 to 7.5 (with tied embeddings the noise is in every logit). Default: ${DEFAULT-VALUE}.")
  double initNoise;

  @Option(
      names = "--variety-from",
      paramLabel = "STEP",
      description =
          "copy: training's variety in cards and articles from this step on (TrainingVariety: near-miss distractor"
              + " names, other openings, half the articles naming the city only in the opening and facts; 0: from"
              + " the start). Default: never, the data of the shipped model.")
  Integer varietyFrom;

  @Option(
      names = "--composed-from",
      paramLabel = "STEP",
      description =
          "copy: from this step on, half of phase 3's articles composed from parts (ComposedDocument: each fact"
              + " in hundreds of wordings, the city named rarely, other towns often). Default: never, the data of"
              + " the shipped model.")
  Integer composedFrom;

  @Option(
      names = "--nonce-from",
      paramLabel = "STEP",
      description =
          "copy: from this step on, a third of the fact sentences of the composed articles (--composed-from) with"
              + " predicates of nonce words (NonceFrames: only the place a sentence is about and the shape of its"
              + " figure tell what it states). Default: never, the data of the shipped model.")
  Integer nonceFrom;

  @Option(
      names = "--nonce-share",
      paramLabel = "THIRDS",
      defaultValue = "1",
      description =
          "copy: with --nonce-from, how many thirds (1, 2 or 3) of the composed articles' fact sentences have"
              + " nonce-word predicates. Default: ${DEFAULT-VALUE}.")
  int nonceShare;

  @Option(
      names = "--signal-of",
      description =
          "copy: print the early signal (swap tests, exact match and nats per field) of this model directory on "
              + "64 held-out cards and 32 held-out articles as one JSON line, and exit.")
  Path signalOf;

  @Option(
      names = "--charts-only",
      description =
          "Draw WORK/loss.png and WORK/signal.png from WORK/train-log.jsonl "
              + "(e.g. of a stopped run) and exit.")
  boolean chartsOnly;

  @Option(
      names = "--export",
      description =
          "copy: write the last checkpoint's model to --out (default WORK/model) and exit.")
  boolean export;

  @Option(
      names = "--dtype",
      defaultValue = "F16",
      description = "Storage of the written weights: F32, F16, BF16. Default: ${DEFAULT-VALUE}.")
  HfModelWriter.StorageType dtype;

  /** Steps of the gpt2 recipe's model (the demo model to demo-v4). */
  public static final int DEFAULT_STEPS = 450;

  /** The gpt2 recipe's shape, with {@code hidden} and {@code layers} as given. */
  public static ModelConfig shape(int hidden, int layers) {
    int headDim = 32;
    int heads = hidden / headDim;
    ModelConfig c =
        ModelConfig.llama(
            50257, hidden, 3 * hidden, layers, heads, Math.max(1, heads / 2), headDim);
    return c.withMaxPositions(4096);
  }

  /**
   * The copy recipe's options from the command line, with its defaults where an option is absent
   * (hidden 128; the stop rule at the end of phase 1).
   */
  CopyOptions copyOptions(Path w, Path outDir) {
    float peak = lr != null ? lr : 3e-3f;
    int[] phases = this.phases != null ? this.phases : DEFAULT_PHASES;
    int sheets = characters != null ? characters : 1;
    String cycleSpec = cycles != null ? cycles : this.phases == null ? SHIPPED_CYCLES : "none";
    return new CopyOptions(
        hidden != null ? hidden : 128,
        layers,
        heads != null ? heads : (hidden != null ? hidden : 128) / 32,
        context,
        vocab,
        seed,
        phases,
        warmup != null ? warmup : 30,
        decay,
        peak,
        Schedule.parse(cycleSpec, sheets),
        0.1f,
        1.0f,
        stepTokens != null ? stepTokens : 500,
        sheets,
        valueWeight,
        firstValueWeight,
        microBatch,
        checkpointEvery != null ? checkpointEvery : 50,
        evalEvery,
        16,
        8,
        flatAfter != null ? flatAfter : phases[0],
        minSwap,
        300,
        w,
        outDir,
        dtype,
        warm,
        drills,
        tokenDrills,
        initFrom,
        initFrom != null || growFrom != null ? initStep : 0,
        digitGroup,
        initNoise,
        growFrom,
        varietyFrom != null ? varietyFrom : Integer.MAX_VALUE,
        composedFrom != null ? composedFrom : Integer.MAX_VALUE,
        nonceFrom != null ? nonceFrom : Integer.MAX_VALUE,
        nonceShare);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter log = spec.commandLine().getOut();
    if (!recipe.equals("gpt2") && !recipe.equals("copy")) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--recipe must be copy or gpt2, not " + recipe);
    }
    boolean copy = recipe.equals("copy");
    Path w = work != null ? work : Path.of(copy ? "../leap-train-copy" : "train-out");
    Path outDir = out != null ? out : w.resolve("model");
    if (chartsOnly) {
      if (!Files.exists(w.resolve("train-log.jsonl"))) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "no train-log.jsonl in " + w + " (set --work)");
      }
      LossChart.write(w.resolve("train-log.jsonl"), w.resolve("loss.png"));
      LossChart.writeSignal(w.resolve("train-log.jsonl"), w.resolve("signal.png"));
      log.printf("wrote %s and %s%n", w.resolve("loss.png"), w.resolve("signal.png"));
      return 0;
    }
    if (copy) {
      if (digitGroup < (initFrom != null ? 2 : 1) || digitGroup > 4) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(),
            "--digit-group must be "
                + (initFrom != null ? "2 to 4 with --init-from" : "1 (single digits) to 4")
                + ", not "
                + digitGroup);
      }
      if (initFrom != null && growFrom != null) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--init-from and --grow-from: give one start, not both");
      }
      if (heads != null && heads < 1) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--heads must be at least 1, not " + heads);
      }
      if (nonceShare < 1 || nonceShare > 3) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--nonce-share must be 1, 2 or 3 (thirds), not " + nonceShare);
      }
      if (growFrom != null) {
        for (String f :
            List.of(
                "config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")) {
          if (!Files.isRegularFile(growFrom.resolve(f))) {
            throw new picocli.CommandLine.ParameterException(
                spec.commandLine(), "--grow-from " + growFrom + ": no " + f + " there");
          }
        }
      }
      CopyOptions o = copyOptions(w, outDir);
      o.schedule(); // a schedule that cannot run fails here, with the cycle it cannot run
      if (signalOf != null) {
        log.println(new CopyTrainer(o, log).signalOf(signalOf, 64, 32));
        return 0;
      }
      if (export) {
        new CopyTrainer(o, log).export();
        return 0;
      }
      CopyTrainer.Outcome outcome = new CopyTrainer(o, log).run();
      return outcome == CopyTrainer.Outcome.FLAT ? 3 : 0;
    }
    float peak = lr != null ? lr : 1.5e-3f;
    Trainer.Options o =
        new Trainer.Options(
            shape(hidden != null ? hidden : 256, layers),
            seed,
            steps,
            warmup != null ? warmup : 30,
            peak,
            peak / 15,
            0.1f,
            1.0f,
            stepTokens != null ? stepTokens : 6000,
            characters != null ? characters : 6,
            minDoc,
            maxDoc,
            microBatch,
            checkpointEvery != null ? checkpointEvery : 20,
            w,
            outDir,
            dtype);
    new Trainer(o, log).run();
    return 0;
  }
}
