package dev.leap.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code --grow}: the spec's parts and errors, and the growth stage's options against the run they
 * follow (its model, its last step, the schedule to END).
 */
class GrowthTest {

  @Test
  void specsParseAndBadOnesSayWhy() {
    Growth g = Growth.parse("6:8:17600:1e-3:700:2", 1);
    assertEquals(new Growth(6, 8, 17600, 1e-3f, 700, 2), g);
    assertEquals(3, Growth.parse("6:8:17600:1e-3:700", 3).characters());
    assertNull(Growth.parse("none", 1));
    assertEquals(g, Growth.parse(g.toString(), 1));
    for (String bad :
        new String[] {
          "6:8:17600", "6:x:17600:1e-3:700", "0:8:100:1e-3:10", "6:8:100:0:10", "6:8:100:1e-3:200"
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Growth.parse(bad, 1), bad);
      assertTrue(e.getMessage().startsWith("--grow " + bad), e.getMessage());
    }
  }

  @Test
  void theStageStartsWhereTheRunEndsFromItsModel() {
    CopyOptions base =
        CopyTrainerTest.options(Path.of("/w"), new int[] {14, 18, 20}, 0, 0.1, 0, null, 0);
    CopyOptions stage =
        new Growth(3, 4, 30, 2e-3f, 4, 2).stage(base, Path.of("/w/grown"), Path.of("/out"));
    assertEquals(3, stage.layers());
    assertEquals(4, stage.heads());
    assertEquals(base.hidden(), stage.hidden());
    assertEquals(20, stage.initStep());
    assertEquals(30, stage.steps());
    assertArrayEquals(new int[] {14, 18, 30}, stage.phaseEnds());
    assertEquals(base.outDir(), stage.growFrom());
    assertNull(stage.initFrom());
    assertEquals(20, stage.varietyFrom());
    assertEquals(2, stage.charactersPerStep());
    assertEquals(Path.of("/w/grown"), stage.workDir());
    assertEquals(Path.of("/out"), stage.outDir());
    assertEquals(2e-3f, stage.schedule().rate(25), 1e-9);
    assertTrue(stage.schedule().rate(29) < 1e-3f, "decaying at the end");
    assertThrows(
        IllegalArgumentException.class,
        () -> new Growth(3, 4, 20, 2e-3f, 4, 2).stage(base, Path.of("/g"), Path.of("/o")));
  }
}
