package dev.leap.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code leap train} with no option is the copy recipe of BENCHMARKS "Issue 25, r38" (the small
 * model, digit groups of two, a warm start long enough for induction heads to form, and a stop rule
 * that does not fire during that warm start) followed by r39-r41's cycles: the shipped model.
 */
class TrainCommandTest {

  private static CopyOptions parse(String... args) {
    TrainCommand c = new TrainCommand();
    new CommandLine(c).parseArgs(args);
    return c.copyOptions(Path.of("w"), Path.of("w", "model"));
  }

  @Test
  void copyDefaultsAreTheRecipeOfR38() {
    CopyOptions o = parse();
    assertEquals(128, o.hidden());
    assertEquals(4, o.layers());
    assertEquals(6000, o.warmSteps());
    assertArrayEquals(new int[] {7500, 8500, 10300}, o.phaseEnds());
    assertEquals(700, o.decaySteps());
    assertEquals(3e-3f, o.learningRate());
    assertEquals(7500, o.flatAfter(), "the stop rule waits for the end of phase 1");
    assertEquals(2, o.digitGroup());
    assertEquals(1.0, o.tokenShare());
    assertEquals(0.3, o.drillShare());
    assertEquals(Schedule.parse(TrainCommand.SHIPPED_CYCLES, 1), o.cycles());
    assertEquals(15_400, o.steps());
    assertEquals(parse("--recipe", "copy").cycles(), o.cycles(), "copy is the default recipe");
    assertEquals(Integer.MAX_VALUE, o.varietyFrom(), "the shipped model's data");
    assertEquals(15_400, parse("--variety-from", "15400").varietyFrom());
    assertEquals(Integer.MAX_VALUE, o.composedFrom(), "the shipped model's data");
    assertEquals(17_650, parse("--composed-from", "17650").composedFrom());
    assertEquals(Integer.MAX_VALUE, o.nonceFrom(), "the shipped model's data");
    assertEquals(19_100, parse("--nonce-from", "19100").nonceFrom());
    assertEquals(1, o.nonceThirds(), "a third, r51's share");
    assertEquals(2, parse("--nonce-from", "19100", "--nonce-share", "2").nonceThirds());
  }

  @Test
  void aNonceShareOutsideOneToThreeThirdsIsRefused(@org.junit.jupiter.api.io.TempDir Path tmp) {
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine cl = new CommandLine(new TrainCommand());
    cl.setErr(new java.io.PrintWriter(err, true));
    int rc = cl.execute("--work", tmp.toString(), "--nonce-from", "5", "--nonce-share", "4");
    org.junit.jupiter.api.Assertions.assertNotEquals(0, rc);
    org.junit.jupiter.api.Assertions.assertTrue(
        err.toString().contains("--nonce-share must be 1, 2 or 3"), err.toString());
  }

  @Test
  void givenOptionsWin() {
    CopyOptions o =
        parse("--recipe", "copy", "--hidden", "256", "--phases", "10,20,30", "--flat-after", "5");
    assertEquals(256, o.hidden());
    assertEquals(5, o.flatAfter());
    assertEquals(30, o.phaseEnds()[2]);
    assertEquals(10, parse("--recipe", "copy", "--phases", "10,20,30").flatAfter());
    assertEquals(30, parse("--phases", "10,20,30").steps(), "other phases: no cycles");
    assertEquals(40, parse("--phases", "10,20,30", "--cycles", "40:1e-3:5").steps());
    assertEquals(10_300, parse("--cycles", "none").steps());
  }
}
