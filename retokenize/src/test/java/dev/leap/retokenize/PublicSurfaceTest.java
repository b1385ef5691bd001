package dev.leap.retokenize;

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
        Tokenizer.class,
        List.of(
            "dev.leap.retokenize.HfTokenizer",
            "dev.leap.retokenize.JumpPlan",
            "dev.leap.retokenize.JumpRetokenizer",
            "dev.leap.retokenize.Tokenizer"));
  }

  /**
   * The packages module-info.java exports: the rest is this module's own, whatever Java visibility
   * says.
   */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(List.of("dev.leap.retokenize"), PublicSurface.exports(Tokenizer.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(Tokenizer.class);
  }
}
