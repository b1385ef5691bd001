package dev.leap.train;

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
        Trainer.class,
        List.of(
            "dev.leap.train.LossChart",
            "dev.leap.train.TrainCommand",
            "dev.leap.train.Trainer",
            "dev.leap.train.Trainer$Options",
            "dev.leap.train.data.Character",
            "dev.leap.train.data.City",
            "dev.leap.train.data.CityDocument",
            "dev.leap.train.data.CopyDrill",
            "dev.leap.train.data.CopyDrill$Kind",
            "dev.leap.train.data.CopyDrill$Text",
            "dev.leap.train.data.Curriculum",
            "dev.leap.train.data.Example",
            "dev.leap.train.data.FactCard",
            "dev.leap.train.data.FactCard$Kind",
            "dev.leap.train.data.GazetteerDocument",
            "dev.leap.train.data.OpenValues",
            "dev.leap.train.data.SglangInputs",
            "dev.leap.train.data.TrainingMix",
            "dev.leap.train.internal.Json",
            "dev.leap.train.model.AdamW",
            "dev.leap.train.model.TrainableLlama",
            "dev.leap.train.model.ModelGrowth",
            "dev.leap.train.model.VocabularySurgery",
            "dev.leap.train.tokenizer.BpeTrainer",
            "dev.leap.train.tokenizer.BpeTrainer$Merges",
            "dev.leap.train.tokenizer.VocabularyExtension",
            "dev.leap.train.tokenizer.VocabularyExtension$Extension",
            "dev.leap.train.tokenizer.TokenizerCorpus"));
  }

  /**
   * The packages module-info.java exports: the rest is this module's own, whatever Java visibility
   * says.
   */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(
        List.of("dev.leap.train", "dev.leap.train.data"), PublicSurface.exports(Trainer.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(Trainer.class);
  }
}
