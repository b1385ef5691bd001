package dev.leap.radix;

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
        RadixCache.class,
        List.of(
            "dev.leap.radix.CacheStats",
            "dev.leap.radix.EvictionPolicy",
            "dev.leap.radix.RadixCache",
            "dev.leap.radix.RadixCache$Match",
            "dev.leap.radix.RadixCache$Node",
            "dev.leap.radix.SlotAllocator"));
  }

  /**
   * The packages module-info.java exports: the rest is this module's own, whatever Java visibility
   * says.
   */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(List.of("dev.leap.radix"), PublicSurface.exports(RadixCache.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(RadixCache.class);
  }
}
