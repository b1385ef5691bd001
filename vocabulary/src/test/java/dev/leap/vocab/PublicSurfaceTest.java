package dev.leap.vocab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leap.testkit.ImportCycles;
import dev.leap.testkit.PublicSurface;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The module's public types, listed: a new one is a decision (see this module's README). */
class PublicSurfaceTest {

  @Test
  void publicTypesAreTheListedOnes() {
    PublicSurface.check(
        Vocabulary.class,
        List.of(
            "dev.leap.vocab.SkipLinks",
            "dev.leap.vocab.SortedVocabulary",
            "dev.leap.vocab.SortedTokens",
            "dev.leap.vocab.SortedWalk",
            "dev.leap.vocab.SortedWalk$Recognizer",
            "dev.leap.vocab.TokenizerJsonVocabulary",
            "dev.leap.vocab.TokenizerJsonVocabulary$Scheme",
            "dev.leap.vocab.Utf8",
            "dev.leap.vocab.Vocabulary"));
  }

  /** The packages module-info.java exports. */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(List.of("dev.leap.vocab"), PublicSurface.exports(Vocabulary.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(Vocabulary.class);
  }
}
