/**
 * Test support shared by every module's tests: the {@code ../shared} corpora, the public-surface
 * check, the random regex generator, the naive structural-tag twin. Used in test scope only.
 */
module dev.leap.testkit {
  requires transitive org.junit.jupiter.api;
  requires transitive org.junit.platform.launcher; // SkipReporter is a TestExecutionListener
  requires com.fasterxml.jackson.databind;

  exports dev.leap.testkit;

  provides org.junit.platform.launcher.TestExecutionListener with
      dev.leap.testkit.SkipReporter;
}
