package dev.leap.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.ringa.A;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

class ImportCyclesTest {

  @Test
  void cyclesAreTheStronglyConnectedComponentsOfMoreThanOneNode() {
    Map<String, Map<String, String>> g =
        Map.of(
            "a", Map.of("b", ""),
            "b", Map.of("c", ""),
            "c", Map.of("a", "", "d", ""),
            "d", Map.of(),
            "e", Map.of("e", "", "f", ""),
            "f", Map.of("g", ""),
            "g", Map.of("f", ""));
    assertEquals(List.of(List.of("a", "b", "c"), List.of("f", "g")), ImportCycles.cycles(g));
    assertEquals(List.of(), ImportCycles.cycles(Map.of("a", Map.of("b", ""), "b", Map.of())));
  }

  @Test
  void aLongChainDoesNotOverflowTheStack() {
    Map<String, Map<String, String>> g = new HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      g.put("p" + i, Map.of("p" + (i + 1), ""));
    }
    g.put("p100000", Map.of("p0", ""));
    assertEquals(100_001, ImportCycles.cycles(g).get(0).size());
  }

  @Test
  void onlyRingsAcrossPackagesCount() {
    Map<String, Map<String, String>> g =
        Map.of(
            // a ring inside one package: allowed
            "p.A", Map.of("p.B", ""),
            "p.B", Map.of("p.A", "", "p.internal.X", ""),
            // the packages use each other, but no class ring: allowed
            "p.internal.X", Map.of("p.Error", ""),
            "p.Error", Map.of(),
            // a ring across packages: reported
            "q.C", Map.of("q.internal.D", ""),
            "q.internal.D", Map.of("q.C", ""));
    assertEquals(List.of(List.of("q.C", "q.internal.D")), ImportCycles.crossingPackages(g));
  }

  @Test
  void classFilesNameTheirReferences() throws IOException {
    Set<String> refs;
    try (InputStream in = A.class.getResourceAsStream("/dev/leap/testkit/ringb/B.class")) {
      refs = ImportCycles.referencedClasses(in.readAllBytes());
    }
    assertTrue(refs.contains("dev/leap/testkit/ringa/A"), refs.toString());
    assertTrue(refs.contains("java/lang/Object"), refs.toString());
  }

  @Test
  void aRingAcrossPackagesFailsNamingItsEdges() {
    // The test classes of this module hold the ring ringa.A <-> ringb.B.
    AssertionFailedError e =
        assertThrows(AssertionFailedError.class, () -> ImportCycles.check(A.class));
    assertTrue(
        e.getMessage().contains("[dev.leap.testkit.ringa.A, dev.leap.testkit.ringb.B]"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("dev.leap.testkit.ringb.B -> dev.leap.testkit.ringa.A"),
        e.getMessage());
  }

  @Test
  void testkitItselfHasNoRing() {
    ImportCycles.check(ImportCycles.class);
  }
}
