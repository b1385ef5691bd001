package dev.leap.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.City;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import dev.leap.train.model.AdamW;
import dev.leap.train.model.TrainableLlama;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The shared step: its micro-batching does not change the step (the same sums and gradient norm
 * whether the examples run in one padded batch or one at a time), on seeded random examples and the
 * copy recipe's loss.
 */
class TrainingStepTest {

  @Test
  void microBatchingLeavesTheStepUnchanged() {
    HfTokenizer tok = SmallTokenizer.get();
    ModelConfig c = ModelConfig.llama(tok.size(), 64, 128, 2, 2, 1, 32).withMaxPositions(1024);
    SplittableRandom r = new SplittableRandom(7);
    List<Example> ex = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ex.add(Curriculum.card(tok, City.open(r.nextInt(1000)), r));
    }
    int rows = 0;
    int values = 0;
    for (Example e : ex) {
      rows += e.tokens().length - 1;
      values += e.valueTargets().length;
    }
    TrainingStep.Loss loss = CopyLoss.loss(rows, values, 1.5f);
    TrainingStep.Result whole;
    TrainingStep.Result single;
    try (TrainableLlama a =
            TrainableLlama.initialize(c, Engine.getInstance().defaultDevice(), 3, 0.02);
        AdamW optA = new AdamW(a.parameters(), 0.9f, 0.95f, 1e-8f, 0.1f)) {
      whole = TrainingStep.run(a, optA, ex, 1 << 20, loss, 1e-3f, 1f);
    }
    try (TrainableLlama b =
            TrainableLlama.initialize(c, Engine.getInstance().defaultDevice(), 3, 0.02);
        AdamW optB = new AdamW(b.parameters(), 0.9f, 0.95f, 1e-8f, 0.1f)) {
      single = TrainingStep.run(b, optB, ex, 1, loss, 1e-3f, 1f);
    }
    assertEquals(4, TrainingStep.microBatches(ex, 1).size());
    assertEquals(1, TrainingStep.microBatches(ex, 1 << 20).size());
    assertEquals(whole.sums()[0], single.sums()[0], 1e-4 * whole.sums()[0]);
    assertEquals(whole.sums()[1], single.sums()[1], 1e-4 * whole.sums()[1]);
    assertEquals(whole.gradNorm(), single.gradNorm(), 1e-3 * whole.gradNorm());
    assertTrue(whole.sums()[1] > 0 && whole.gradNorm() > 0, "a step with value tokens");
  }
}
