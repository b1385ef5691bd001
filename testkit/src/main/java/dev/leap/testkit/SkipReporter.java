package dev.leap.testkit;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints every skipped test by name with its reason, one line each ({@code [skipped] Class#method:
 * reason}), so a build without {@code ../shared} says which corpus tests did not run, not only how
 * many. A JUnit Platform listener found through {@code META-INF/services}: every module that has
 * testkit on its test class path reports this way.
 */
public final class SkipReporter implements TestExecutionListener {

  /** Made by the JUnit Platform's service loader. */
  public SkipReporter() {}

  @Override
  public void executionSkipped(TestIdentifier test, String reason) {
    print(test, reason);
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
      print(test, result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
    }
  }

  private static void print(TestIdentifier test, String reason) {
    String name =
        test.getSource()
            .filter(MethodSource.class::isInstance)
            .map(MethodSource.class::cast)
            .map(
                m ->
                    m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1)
                        + "#"
                        + m.getMethodName())
            .orElse(test.getDisplayName());
    System.out.println("[skipped] " + name + ": " + reason);
  }
}
