package dev.leap.bench.xgrammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.bench.Json;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The side-by-side benchmark's inputs: the warm-up cases (run through both engines before the timed
 * ones, not timed) are disjoint from the measured sample, the same on every call, and leave the
 * measured sample as it was.
 */
class XGrammarSampleTest {
  private static final Path GRAMMARS = Path.of("..", "docs", "grammars");

  @Test
  void warmUpIsDisjointFromTheMeasuredSample() throws Exception {
    List<Case> measured = CaseSample.sample(Json.MAPPER, GRAMMARS, 6, 2, 2);
    List<Case> warm = CaseSample.warmUp(Json.MAPPER, measured, 6, 2, 2, 2);
    assertEquals(measured, CaseSample.sample(Json.MAPPER, GRAMMARS, 6, 2, 2), "seeded");
    assertEquals(warm, CaseSample.warmUp(Json.MAPPER, measured, 6, 2, 2, 2), "seeded");
    assertEquals(4 + 9 * 6, measured.size());
    assertEquals(9 * 2 + CaseSample.WARM_GRAMMARS.length, warm.size());
    Set<String> sources = new HashSet<>();
    Set<String> ids = new HashSet<>();
    for (Case c : measured) {
      sources.add(c.source());
      ids.add(c.id());
    }
    for (Case w : warm) {
      assertFalse(sources.contains(w.source()), w.id() + " is also measured");
      assertFalse(ids.contains(w.id().replaceFirst("^warm-up/", "")), w.id());
      assertEquals("warm-up", w.group());
      assertFalse(w.instances().isEmpty(), w.id());
      if (w.kind().equals("schema")) {
        assertTrue(w.source().length() <= CaseSample.WARM_MAX_SCHEMA_CHARS, w.id());
      }
    }
    assertTrue(CaseSample.warmUp(Json.MAPPER, measured, 6, 0, 2, 2).isEmpty());
  }
}
