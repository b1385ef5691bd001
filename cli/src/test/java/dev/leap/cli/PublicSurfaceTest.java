package dev.leap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leap.testkit.ImportCycles;
import dev.leap.testkit.PublicSurface;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module's public types, listed: a new one is a decision (see the README's API and this
 * module's README).
 */
class PublicSurfaceTest {

  @Test
  void publicTypesAreTheListedOnes() {
    PublicSurface.check(
        LeapMain.class,
        List.of(
            "dev.leap.cli.CliError",
            "dev.leap.cli.ConstraintOptionsMixin",
            "dev.leap.cli.ExplainCommand",
            "dev.leap.cli.GenerateCommand",
            "dev.leap.cli.LeapCli",
            "dev.leap.cli.LeapMain",
            "dev.leap.cli.MatchCommand"));
  }

  /** module-info.java exports nothing: no module reads this one. */
  @Test
  void exportsNothing() {
    assertEquals(List.of(), PublicSurface.exports(LeapMain.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(LeapMain.class);
  }
}
