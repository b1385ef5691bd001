package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leap.testkit.ImportCycles;
import dev.leap.testkit.PublicSurface;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module's public types, listed: a new one is a decision (see this module's README). The
 * helpers of {@code LlamaModel} stay package-private.
 */
class PublicSurfaceTest {

  @Test
  void publicTypesAreTheListedOnes() {
    PublicSurface.check(
        LlamaModel.class,
        List.of(
            "dev.leap.model.HfModelWriter",
            "dev.leap.model.HfModelWriter$FloatSink",
            "dev.leap.model.HfModelWriter$StorageType",
            "dev.leap.model.HfModelWriter$TensorValues",
            "dev.leap.model.KvPool",
            "dev.leap.model.LlamaModel",
            "dev.leap.model.LlamaModel$CpuF32Weights",
            "dev.leap.model.LlamaModel$SequenceInput",
            "dev.leap.model.ModelConfig",
            "dev.leap.model.Precision",
            "dev.leap.model.Rope",
            "dev.leap.model.SafeTensors",
            "dev.leap.model.TorchScriptArchive"));
  }

  /** The packages module-info.java exports. */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(List.of("dev.leap.model"), PublicSurface.exports(LlamaModel.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(LlamaModel.class);
  }
}
