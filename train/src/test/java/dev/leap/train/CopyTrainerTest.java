package dev.leap.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.runtime.LeapRuntime;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import dev.leap.train.model.TrainableLlama;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copy recipe on a tiny model: the schedule is warmup-stable-decay; the batched loss equals one
 * example at a time; the early signal is about 0 for an untrained model and equals its naive twin;
 * a run trains its tokenizer, falls in loss, logs the signal, resumes where it stopped, and the
 * stop rule ends a run whose swap test stays flat.
 */
class CopyTrainerTest {

  static CopyOptions options(Path work, int[] phases, int flatAfter, double minSwap) {
    return options(work, phases, flatAfter, minSwap, 0);
  }

  static CopyOptions options(Path work, int[] phases, int flatAfter, double minSwap, int warm) {
    return options(work, phases, flatAfter, minSwap, warm, null, 0);
  }

  static CopyOptions options(
      Path work,
      int[] phases,
      int flatAfter,
      double minSwap,
      int warm,
      Path initFrom,
      int initStep) {
    return options(
        work, phases, flatAfter, minSwap, warm, initFrom, initStep, initFrom != null ? 3 : 1);
  }

  static CopyOptions options(
      Path work,
      int[] phases,
      int flatAfter,
      double minSwap,
      int warm,
      Path initFrom,
      int initStep,
      int digitGroup) {
    return new CopyOptions(
        64,
        2,
        2,
        2048,
        512,
        3,
        phases,
        2,
        2,
        1e-2f,
        List.of(),
        0.1f,
        1f,
        700,
        1,
        1f,
        0f,
        2048,
        4,
        4,
        4,
        2,
        flatAfter,
        minSwap,
        6,
        work,
        work.resolve("model"),
        HfModelWriter.StorageType.F16,
        warm,
        0,
        0,
        initFrom,
        initStep,
        digitGroup,
        0.05,
        null,
        Integer.MAX_VALUE,
        Integer.MAX_VALUE,
        Integer.MAX_VALUE,
        1);
  }

  /** {@code o} with another shape and start ({@code --init-from}, {@code --grow-from}). */
  static CopyOptions reshaped(
      CopyOptions o, int hidden, int layers, int heads, Path initFrom, Path growFrom) {
    return new CopyOptions(
        hidden,
        layers,
        heads,
        o.contextTokens(),
        o.vocabSize(),
        o.seed(),
        o.phaseEnds(),
        o.warmupSteps(),
        o.decaySteps(),
        o.learningRate(),
        o.cycles(),
        o.weightDecay(),
        o.clipNorm(),
        o.stepTokens(),
        o.charactersPerStep(),
        o.valueWeight(),
        o.firstValueWeight(),
        o.microBatchTokens(),
        o.checkpointEvery(),
        o.evalEvery(),
        o.evalCards(),
        o.evalArticles(),
        o.flatAfter(),
        o.minSwap(),
        o.tokenizerArticles(),
        o.workDir(),
        o.outDir(),
        o.storage(),
        o.warmSteps(),
        o.drillShare(),
        o.tokenShare(),
        initFrom,
        o.initStep(),
        o.digitGroup(),
        o.initNoise(),
        growFrom,
        o.varietyFrom(),
        o.composedFrom(),
        o.nonceFrom(),
        o.nonceThirds());
  }

  @Test
  void scheduleIsWarmupStableDecay() {
    assertEquals(0.25f, Schedule.learningRate(0, 100, 4, 10, 1f, 0.1f), 1e-6);
    assertEquals(1f, Schedule.learningRate(3, 100, 4, 10, 1f, 0.1f), 1e-6);
    assertEquals(1f, Schedule.learningRate(89, 100, 4, 10, 1f, 0.1f), 1e-6);
    assertEquals(0.91f, Schedule.learningRate(90, 100, 4, 10, 1f, 0.1f), 1e-6);
    assertEquals(0.1f, Schedule.learningRate(99, 100, 4, 10, 1f, 0.1f), 1e-6);
  }

  @Test
  void batchedLossEqualsOneExampleAtATimeAndSignalEqualsItsTwin() {
    HfTokenizer tok = SmallTokenizer.get();
    ModelConfig c = ModelConfig.llama(tok.size(), 64, 128, 2, 2, 1, 32).withMaxPositions(1024);
    SplittableRandom r = new SplittableRandom(1);
    List<Example> ex = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ex.add(Curriculum.card(tok, dev.leap.train.data.City.open(i), r));
    }
    try (TrainableLlama m =
        TrainableLlama.initialize(c, Engine.getInstance().defaultDevice(), 1, 0.02)) {
      double[] batched = CopyLoss.forwardBackward(m, ex, 1, 1, 0f);
      double all = 0;
      double values = 0;
      for (Example e : ex) {
        long[] rows = new long[e.tokens().length - 1];
        long[] labels = new long[rows.length];
        for (int p = 1; p < e.tokens().length; p++) {
          rows[p - 1] = p - 1;
          labels[p - 1] = e.tokens()[p];
        }
        try (NDManager s = m.newScope()) {
          float[] nll = m.nll(s, new int[][] {e.tokens()}, rows, labels).toFloatArray();
          for (int p = 1; p < e.tokens().length; p++) {
            all += nll[p - 1];
          }
          for (int p : e.valueTargets()) {
            values += nll[p - 1];
          }
        }
      }
      assertEquals(all, batched[0], 1e-3 * all);
      assertEquals(values, batched[1], 1e-3 * values);

      Signal sig = new Signal(tok, 4, 2, 2048);
      Signal.Result res = sig.measure(m);
      assertTrue(
          Math.abs(res.swapCards()) < 0.05 && Math.abs(res.swapArticles()) < 0.05,
          "an untrained model does not read the page: " + res);
      // Twin: the swap test from one example at a time.
      double own = 0;
      double other = 0;
      List<Example> a = Curriculum.heldOutCards(tok, 4, false);
      List<Example> b = Curriculum.heldOutCards(tok, 4, true);
      int n = 0;
      for (int i = 0; i < 4; i++) {
        own += sig.valueLoss(m, List.of(a.get(i)), null) * a.get(i).valueTargets().length;
        other += sig.valueLoss(m, List.of(b.get(i)), null) * b.get(i).valueTargets().length;
        n += a.get(i).valueTargets().length;
      }
      assertEquals((other - own) / n, res.swapCards(), 1e-4);
      // Twin of the nats per field: the per-field sums, one example at a time, add up to the
      // cards' own value loss; field by field, each card's field tokens summed by hand.
      double fieldsTotal = 0;
      for (double d : res.fieldNatsCards()) {
        fieldsTotal += d;
      }
      assertEquals(own / 4, fieldsTotal, 1e-4);
      double[] byHand = new double[Signal.FIELDS.size()];
      for (int i = 0; i < 4; i++) {
        Example e = a.get(i);
        long[] rows = new long[e.valueTargets().length];
        long[] labels = new long[rows.length];
        for (int j = 0; j < rows.length; j++) {
          rows[j] = e.valueTargets()[j] - 1;
          labels[j] = e.tokens()[e.valueTargets()[j]];
        }
        try (ai.djl.ndarray.NDManager s = m.newScope()) {
          float[] nll = m.nll(s, new int[][] {e.tokens()}, rows, labels).toFloatArray();
          for (int j = 0; j < rows.length; j++) {
            byHand[e.valueFields()[j]] += nll[j] / 4;
          }
        }
      }
      for (int f = 0; f < byHand.length; f++) {
        assertEquals(byHand[f], res.fieldNatsCards()[f], 1e-3, Signal.FIELDS.get(f));
      }
      // Twin of the swap test without the drill pages: the plain cards one at a time (of 16 cards,
      // which
      // include a drill page and come in micro-batches sorted by length).
      Signal sig16 = new Signal(tok, 16, 2, 2048);
      Signal.Result res16 = sig16.measure(m);
      List<Example> a16 = Curriculum.heldOutCards(tok, 16, false);
      List<Example> b16 = Curriculum.heldOutCards(tok, 16, true);
      double plainOwn = 0;
      double plainOther = 0;
      int plainN = 0;
      int drillPages = 0;
      for (int i = 0; i < 16; i++) {
        if (Curriculum.heldOutCardKind(i) != dev.leap.train.data.FactCard.Kind.DRILL) {
          plainOwn +=
              sig.valueLoss(m, List.of(a16.get(i)), null) * a16.get(i).valueTargets().length;
          plainOther +=
              sig.valueLoss(m, List.of(b16.get(i)), null) * b16.get(i).valueTargets().length;
          plainN += a16.get(i).valueTargets().length;
        } else {
          drillPages++;
          assertTrue(
              tok.decode(a16.get(i).tokens()).contains("Record of ")
                  || tok.decode(a16.get(i).tokens()).contains("\"name\": \"")
                      && tok.decode(
                              java.util.Arrays.copyOf(
                                  a16.get(i).tokens(), a16.get(i).answerStart()))
                          .contains("\"name\""));
        }
      }
      assertTrue(plainN > 0 && drillPages > 0);
      assertEquals((plainOther - plainOwn) / plainN, res16.swapPlainCards(), 1e-4);
      assertTrue(
          Math.abs(res.swapDrills()) < 0.05,
          "an untrained model copies no list: " + res.swapDrills());
      assertTrue(
          Math.abs(res.repeatGain()) < 0.05,
          "an untrained model has no induction: " + res.repeatGain());
      // Twin of the repeat test: each held-out repeat's halves one example at a time, by the
      // log-softmax of the logits.
      double firstRep = 0;
      double again = 0;
      int count = 0;
      for (int i = 0; i < 8; i++) {
        Example e =
            dev.leap.train.data.CopyDrill.tokens(
                tok.size(),
                tok.eosIds(),
                new SplittableRandom(dev.leap.train.data.City.EVAL_SEED_BASE + 13_000 + i));
        int half = e.answerStart();
        long[] allRows = new long[2 * half - 1];
        for (int p = 0; p < allRows.length; p++) {
          allRows[p] = p;
        }
        try (NDManager s = m.newScope()) {
          float[][] lp = new float[allRows.length][];
          var logp = m.logits(s, m.hidden(s, new int[][] {e.tokens()}), allRows).logSoftmax(-1);
          for (int p = 0; p < allRows.length; p++) {
            lp[p] = logp.get(p).toFloatArray();
          }
          for (int j = 1; j < half; j++) {
            firstRep -= lp[j - 1][e.tokens()[j]];
            again -= lp[half + j - 1][e.tokens()[half + j]];
            count++;
          }
        }
      }
      assertEquals((firstRep - again) / count, res.repeatGain(), 1e-4);
      assertTrue(
          Math.abs(res.mentionGap()) < 0.3,
          "an untrained model copies no names: " + res.mentionGap());
      int first = 0;
      int repeat = 0;
      for (int[] k : sig.mentionKinds()) {
        for (int x : k) {
          first += x == 1 ? 1 : 0;
          repeat += x == 2 ? 1 : 0;
        }
      }
      assertTrue(
          first > 10 && repeat > 10,
          "articles name things first and again: " + first + " / " + repeat);
    }
  }

  @Test
  void aRunLearnsLogsTheSignalResumesAndTheFlatRuleStopsIt(@TempDir Path tmp) throws Exception {
    Path work = tmp.resolve("run");
    StringWriter out = new StringWriter();
    int[] phases = {14, 18, 20};
    CopyTrainer t = new CopyTrainer(options(work, phases, 0, 0.1), new PrintWriter(out));
    assertEquals(CopyTrainer.Outcome.STOPPED_AT, t.run(12));
    assertTrue(
        Files.exists(work.resolve("tokenizer/tokenizer.json")),
        "the tokenizer is trained into the work dir");
    // The stopped run's checkpoint exported as a model directory loads in the runtime.
    assertEquals(12, new CopyTrainer(options(work, phases, 0, 0.1), new PrintWriter(out)).export());
    try (LeapRuntime rt =
        LeapRuntime.builder().setModelDir(work.resolve("model")).optKvCapacity(2048).build()) {
      assertTrue(
          rt.generate(
                  dev.leap.train.data.CityDocument.prompt("Velmora is a city.\n", "Its name:\n"),
                  dev.leap.runtime.Constraint.regex("[A-Za-z ]{1,8}"))
              .isComplete());
    }
    assertEquals(
        CopyTrainer.Outcome.FINISHED,
        new CopyTrainer(options(work, phases, 0, 0.1), new PrintWriter(out)).run());
    assertTrue(out.toString().contains("resuming at step 12"), out.toString());
    List<JsonNode> lines = new ArrayList<>();
    ObjectMapper m = new ObjectMapper();
    for (String l : Files.readAllLines(work.resolve("train-log.jsonl"), StandardCharsets.UTF_8)) {
      lines.add(m.readTree(l));
    }
    assertEquals(20, lines.size());
    for (int i = 0; i < 20; i++) {
      assertEquals(i + 1, lines.get(i).get("step").asInt(), "one line per step, in order");
    }
    double first = lines.get(0).get("loss").asDouble();
    double last = lines.get(19).get("loss").asDouble();
    assertTrue(last < first - 1, "loss falls: " + first + " -> " + last);
    assertTrue(lines.get(3).has("swapCards") && lines.get(3).get("exactCards").has("population"));
    assertTrue(
        lines.get(3).has("swapDrills")
            && lines.get(3).get("exactPlainCards").has("population")
            && lines.get(3).has("repeatGain"));
    assertEquals(3, lines.get(19).get("phase").asInt());
    assertTrue(Files.size(work.resolve("model/model.safetensors")) > 10_000);
    assertTrue(
        Files.exists(work.resolve("model/tokenizer.json"))
            && Files.exists(work.resolve("signal.png")));
    HfTokenizer tok = HfTokenizer.load(work.resolve("model/tokenizer.json"));
    assertEquals(512, tok.size());

    // A warm start: the first steps are phase 0 (copy drills), then the cards.
    Path warm = tmp.resolve("warm");
    assertEquals(
        CopyTrainer.Outcome.STOPPED_AT,
        new CopyTrainer(options(warm, phases, 0, 0.1, 2), new PrintWriter(new StringWriter()))
            .run(4));
    List<String> warmLog = Files.readAllLines(warm.resolve("train-log.jsonl"));
    assertEquals(
        List.of(0, 0, 1, 1),
        warmLog.stream()
            .map(
                l -> {
                  try {
                    return m.readTree(l).get("phase").asInt();
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .toList());

    // The warm start of digit groups from the finished model: the tokenizer extended (1,100 digit
    // groups, EOS last), the run starts at --init-step with its warm-up counted from there.
    Path digits = tmp.resolve("digits");
    StringWriter digitsOut = new StringWriter();
    assertEquals(
        CopyTrainer.Outcome.FINISHED,
        new CopyTrainer(
                options(digits, phases, 0, 0.1, 0, work.resolve("model"), 17),
                new PrintWriter(digitsOut))
            .run());
    assertTrue(
        digitsOut.toString().contains("extended the tokenizer")
            && digitsOut.toString().contains("starting at step 17 of 20 from"),
        digitsOut.toString());
    HfTokenizer grown = HfTokenizer.load(digits.resolve("model/tokenizer.json"));
    // The signal of a model directory (here of two tokenizers) as one log line.
    for (Path dir : List.of(work.resolve("model"), digits.resolve("model"))) {
      JsonNode sig =
          new CopyTrainer(options(tmp.resolve("probe"), phases, 0, 0.1), new PrintWriter(out))
              .signalOf(dir, 4, 2);
      assertTrue(
          sig.get("fieldNatsArticles").get("population").asDouble() > 0
              && sig.has("swapCards")
              && sig.get("exactCards").has("latitude"),
          sig.toString());
    }
    assertEquals(512 + 1100, grown.size());
    assertArrayEquals(new int[] {511 + 1100}, grown.eosIds());
    assertEquals(3, grown.encode("1234567").length);
    List<String> digitsLog = Files.readAllLines(digits.resolve("train-log.jsonl"));
    assertEquals(3, digitsLog.size());
    assertEquals(18, m.readTree(digitsLog.get(0)).get("step").asInt());
    assertTrue(m.readTree(digitsLog.get(0)).has("swapCards"), "the signal at the first step");
    assertEquals(
        5e-3, m.readTree(digitsLog.get(0)).get("lr").asDouble(), 1e-9, "warm-up step 1 of 2");
    assertTrue(Double.isFinite(m.readTree(digitsLog.get(2)).get("loss").asDouble()));
    try (LeapRuntime rt =
        LeapRuntime.builder().setModelDir(digits.resolve("model")).optKvCapacity(2048).build()) {
      assertTrue(
          rt.generate(
                  dev.leap.train.data.CityDocument.prompt(
                      "Velmora has 1234567 people.\n", "Its population:\n"),
                  dev.leap.runtime.Constraint.regex("[0-9]{1,7}"))
              .isComplete());
    }
    // A model of another shape is refused with a clear message.
    Path wrong = tmp.resolve("wrong");
    CopyOptions o = options(wrong, phases, 0, 0.1, 0, work.resolve("model"), 17);
    CopyOptions wider = reshaped(o, 128, o.layers(), o.heads(), o.initFrom(), o.growFrom());
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> new CopyTrainer(wider, new PrintWriter(new StringWriter())).run());
    assertTrue(e.getMessage().contains("not this recipe's shape"), e.getMessage());

    // A grown start from the finished model: its tokenizer kept, one more layer and twice the
    // heads (ModelGrowthTest checks the logits), the run from --init-step, the model saved grown.
    Path grownRun = tmp.resolve("grown");
    StringWriter grownOut = new StringWriter();
    CopyOptions base = options(grownRun, phases, 0, 0.1, 0, null, 17);
    CopyOptions g = reshaped(base, base.hidden(), 3, 4, null, work.resolve("model"));
    assertEquals(CopyTrainer.Outcome.FINISHED, new CopyTrainer(g, new PrintWriter(grownOut)).run());
    assertTrue(
        grownOut.toString().contains("grew " + work.resolve("model"))
            && grownOut.toString().contains("starting at step 17 of 20 grown from"),
        grownOut.toString());
    dev.leap.model.ModelConfig grownConfig =
        dev.leap.model.ModelConfig.load(grownRun.resolve("model"));
    assertEquals(3, grownConfig.numLayers());
    assertEquals(4, grownConfig.numHeads());
    assertEquals(2, grownConfig.numKvHeads());
    assertEquals(
        Files.readString(work.resolve("model/tokenizer.json")),
        Files.readString(grownRun.resolve("model/tokenizer.json")));
    // Run again, a finished run is left as it is.
    StringWriter again = new StringWriter();
    assertEquals(CopyTrainer.Outcome.FINISHED, new CopyTrainer(g, new PrintWriter(again)).run());
    assertTrue(again.toString().contains("finished at step 20"), again.toString());
    try (LeapRuntime rt =
        LeapRuntime.builder().setModelDir(grownRun.resolve("model")).optKvCapacity(2048).build()) {
      assertTrue(
          rt.generate(
                  dev.leap.train.data.CityDocument.prompt("Velmora is a city.\n", "Its name:\n"),
                  dev.leap.runtime.Constraint.regex("[A-Za-z ]{1,8}"))
              .isComplete());
    }

    // The stop rule: a swap test that must reach 100 nats by step 4 stops the run there. This run
    // starts fresh with digit groups of two: its tokenizer is trained, then extended by the 100
    // two-digit strings.
    Path flat = tmp.resolve("flat");
    StringWriter flatOut = new StringWriter();
    assertEquals(
        CopyTrainer.Outcome.FLAT,
        new CopyTrainer(options(flat, phases, 4, 100, 0, null, 0, 2), new PrintWriter(flatOut))
            .run());
    assertTrue(flatOut.toString().contains("the swap test stayed flat"), flatOut.toString());
    assertEquals(4, Files.readAllLines(flat.resolve("train-log.jsonl")).size());
    assertTrue(Checkpoint.exists(flat.resolve("checkpoint")));
    HfTokenizer paired = HfTokenizer.load(flat.resolve("tokenizer/tokenizer.json"));
    assertEquals(512 + 100, paired.size());
    assertArrayEquals(new int[] {511 + 100}, paired.eosIds());
    assertEquals(4, paired.encode("1234567").length, "12|34|56|7");
    assertArrayEquals(tok.encode("Velmora is a city."), paired.encode("Velmora is a city."));
  }
}
