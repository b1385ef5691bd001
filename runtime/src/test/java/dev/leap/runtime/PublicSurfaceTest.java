package dev.leap.runtime;

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
        LeapRuntime.class,
        List.of(
            // The library's API (the README's "Library" section); DemoModel is `--model demo`.
            "dev.leap.runtime.Constraint",
            "dev.leap.runtime.Constraint$AfterReasoning",
            "dev.leap.runtime.Constraint$Choice",
            "dev.leap.runtime.Constraint$Gbnf",
            "dev.leap.runtime.Constraint$JsonSchema",
            "dev.leap.runtime.Constraint$Kind",
            "dev.leap.runtime.Constraint$None",
            "dev.leap.runtime.Constraint$Regex",
            "dev.leap.runtime.Constraint$StructuralTag",
            "dev.leap.runtime.Constraint$Tag",
            "dev.leap.runtime.DemoModel",
            "dev.leap.runtime.FinishReason",
            "dev.leap.runtime.Generation",
            "dev.leap.runtime.GenerationHandle",
            "dev.leap.runtime.GenerationRequest",
            "dev.leap.runtime.GenerationStats",
            "dev.leap.runtime.LeapRuntime",
            "dev.leap.runtime.LeapRuntime$Builder",
            "dev.leap.runtime.OutputListener",
            "dev.leap.runtime.SamplingParams",
            "dev.leap.runtime.SamplingParams$Builder",
            // Not API: not exported (module-info.java), internal to cli alone (Errors); public
            // to Java for this module's API package and for bench, on the class path.
            "dev.leap.runtime.internal.Errors",
            "dev.leap.runtime.internal.Json",
            "dev.leap.runtime.internal.engine.Scheduler",
            "dev.leap.runtime.internal.engine.Scheduler$Options",
            "dev.leap.runtime.internal.engine.StopMatcher"));
  }

  /**
   * The packages module-info.java exports: the rest is this module's own, whatever Java visibility
   * says.
   */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(
        List.of("dev.leap.runtime", "dev.leap.runtime.internal to dev.leap.cli"),
        PublicSurface.exports(LeapRuntime.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(LeapRuntime.class);
  }
}
