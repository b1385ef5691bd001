package dev.leap.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A {@link Schedule} with cycles is the chain of resumed runs it replaces: the same learning rate
 * and the same data at every step.
 */
class ScheduleTest {

  /**
   * The learning rates the shipped model's chain logged (r38, then r39-r41 resumed from its
   * checkpoints; {@code train-log.jsonl}'s {@code step} is the 0-based step plus one), against the
   * default schedule of {@code leap train}.
   */
  @Test
  void theDefaultScheduleIsTheShippedChainsAsLogged() {
    TrainCommand c = new TrainCommand();
    new CommandLine(c).parseArgs();
    Schedule s = c.copyOptions(Path.of("w"), Path.of("w", "model")).schedule();
    assertEquals(15_400, s.steps());
    float[][] logged = {
      {0, 0.0001f},
      {29, 0.003f},
      {9599, 0.003f},
      {10299, 0.00029999996f},
      {10300, 0.0015f},
      {10999, 0.0015f},
      {11000, 0.0014983125f},
      {11799, 0.00014999998f},
      {11800, 0.001f},
      {13599, 0.001f},
      {13600, 0.0009992501f},
      {14799, 0.000100000005f},
      {14800, 0.00049925f},
      {15399, 5.0000002e-05f}
    };
    for (float[] l : logged) {
      assertEquals(l[1], s.rate((int) l[0]), 1e-9, "step " + (int) l[0]);
    }
    assertEquals(1, s.characters(14_799));
    assertEquals(3, s.characters(14_800), "r41's three character sheets a step");
    TrainCommand other = new TrainCommand();
    new CommandLine(other).parseArgs("--phases", "10,20,30");
    assertEquals(30, other.copyOptions(Path.of("w"), Path.of("w", "m")).steps(), "no cycles");
  }

  /** Seeded random schedules against the chain of runs, each resumed where the last ended. */
  @Test
  void randomSchedulesEqualTheirChainOfResumedRuns() {
    SplittableRandom r = new SplittableRandom(25);
    for (int trial = 0; trial < 200; trial++) {
      int init = r.nextBoolean() ? 0 : r.nextInt(50);
      int warmup = 1 + r.nextInt(40);
      List<Schedule.Cycle> cycles = new ArrayList<>();
      int end = init;
      for (int k = 0, n = 1 + r.nextInt(4); k < n; k++) {
        int len = 1 + r.nextInt(300);
        end += len;
        cycles.add(
            new Schedule.Cycle(
                end, (float) (1e-4 + r.nextDouble() * 5e-3), r.nextInt(len + 1), r.nextInt(4)));
      }
      Schedule s = new Schedule(cycles, warmup, init);
      int start = init;
      for (Schedule.Cycle run : cycles) {
        // The run resumed at `start` with --phases ...,run.end, --lr run.peak, --decay run.decay.
        for (int step = start; step < run.end(); step++) {
          assertEquals(
              Schedule.learningRate(
                  step - init, run.end() - init, warmup, run.decay(), run.peak(), run.peak() / 10),
              s.rate(step),
              0f);
          assertEquals(run.characters(), s.characters(step));
        }
        start = run.end();
      }
      assertEquals(end, s.steps());
    }
  }

  @Test
  void aCurriculumWithScheduledSheetsIsTheConstantOnePerCycle() {
    HfTokenizer tok = SmallTokenizer.get();
    int[] phases = {2, 4, 6};
    Schedule s =
        new Schedule(
            List.of(new Schedule.Cycle(6, 1e-3f, 2, 1), new Schedule.Cycle(9, 1e-3f, 2, 3)), 1, 0);
    Curriculum scheduled =
        new Curriculum(tok, 5, 400, 1, phases, 4608).withCharacters(s::characters);
    Curriculum one = new Curriculum(tok, 5, 400, 1, phases, 4608);
    Curriculum three = new Curriculum(tok, 5, 400, 3, phases, 4608);
    for (int step = 0; step < 9; step++) {
      List<Example> got = scheduled.step(step);
      List<Example> want = (step < 6 ? one : three).step(step);
      assertEquals(want.size(), got.size(), "step " + step);
      for (int i = 0; i < want.size(); i++) {
        assertArrayEquals(want.get(i).tokens(), got.get(i).tokens(), "step " + step);
      }
    }
  }

  @Test
  void badCyclesSayWhich() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Schedule.parse("100:1e-3", 1));
    assertTrue(e.getMessage().contains("'100:1e-3'"), e.getMessage());
    assertEquals(List.of(), Schedule.parse("none", 1));
    assertEquals(
        List.of(new Schedule.Cycle(20, 1e-3f, 5, 2), new Schedule.Cycle(30, 5e-4f, 10, 3)),
        Schedule.parse("20:1e-3:5, 30:5e-4:10:3", 2));
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new Schedule(
                    List.of(
                        new Schedule.Cycle(10, 1e-3f, 2, 1), new Schedule.Cycle(8, 1e-3f, 2, 1)),
                    1,
                    0));
    assertTrue(e.getMessage().startsWith("cycle 2 (8:"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new Schedule(List.of(new Schedule.Cycle(10, 0f, 1, 1)), 1, 0),
        "a rate of 0");
  }
}
