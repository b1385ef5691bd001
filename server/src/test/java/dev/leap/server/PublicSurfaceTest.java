package dev.leap.server;

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
        LeapServer.class,
        List.of(
            "dev.leap.server.LeapServer",
            "dev.leap.server.LeapServer$Options",
            "dev.leap.server.ServeCommand",
            "dev.leap.server.chat.ChatTemplate",
            "dev.leap.server.chat.ChatTemplateException",
            "dev.leap.server.http.ApiHandler",
            "dev.leap.server.openai.ApiError",
            "dev.leap.server.openai.Completions",
            "dev.leap.server.openai.Completions$Prepared",
            "dev.leap.server.openai.GenerationOptions",
            "dev.leap.server.openai.Json",
            "dev.leap.server.openai.RequestBody",
            "dev.leap.server.openai.StructuredOutput"));
  }

  /**
   * The packages module-info.java exports: the rest is this module's own, whatever Java visibility
   * says.
   */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(List.of("dev.leap.server"), PublicSurface.exports(LeapServer.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(LeapServer.class);
  }
}
