package dev.leap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import dev.leap.runtime.testing.TestModels;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line's errors are one short line (the library's side: {@code SmallFixesTest}), and
 * {@code leap generate} loads no class of the modules behind {@code demo}, {@code bench}, {@code
 * train} and {@code serve}.
 */
class ErrorLinesTest {

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = LeapMain.commandLine(args);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void aHugeBadRegexIsOneShortLine() {
    String regex = "x".repeat(60_000) + "(?=y)" + "z".repeat(40_000);
    Run r = run("explain", "--regex", regex);
    assertEquals(1, r.code);
    assertTrue(
        r.err.length() < 400 && r.err.strip().lines().count() == 1,
        r.err.length() + " chars: " + r.err);
    assertTrue(r.err.contains("index 60000"), r.err);
  }

  @Test
  void aGpuDeviceWithoutCudaIsOneLineSayingSo() {
    Assumptions.assumeTrue(Engine.getInstance().getGpuCount() == 0, "this machine has CUDA");
    Path dir = TestModels.dir("llama", TestModels.llama());
    Run r = run("generate", "--model", dir.toString(), "--prompt", "x", "--device", "gpu0");
    assertEquals(1, r.code);
    assertTrue(
        r.err.contains("CUDA is not available")
            && r.err.strip().lines().count() == 1
            && r.err.length() < 400,
        r.err);
    Run unknown = run("generate", "--model", dir.toString(), "--prompt", "x", "--device", "tpu0");
    assertEquals(1, unknown.code);
    assertTrue(
        unknown.err.contains("tpu0")
            && unknown.err.strip().lines().count() == 1
            && unknown.err.length() < 400,
        unknown.err);
  }

  @Test
  void aMissingModelDirectoryIsOneLine() {
    Run r = run("generate", "--model", "/nonexistent/leap-model", "--prompt", "x");
    assertEquals(1, r.code);
    assertEquals(
        "leap generate: model directory not found: /nonexistent/leap-model", r.err.strip());
  }

  @Test
  void everyVerbIsRegisteredAndTheOtherModulesOnlyWhenNeeded() {
    CommandLine all = LeapMain.commandLine(new String[] {"--help"});
    assertEquals(
        List.of("generate", "explain", "match", "help", "demo", "bench", "serve", "train"),
        List.copyOf(all.getSubcommands().keySet()));
    for (String verb : LeapMain.OTHER_MODULES.keySet()) {
      assertEquals(verb, all.getSubcommands().get(verb).getCommandName());
    }
    CommandLine own = LeapMain.commandLine(new String[] {"generate", "--prompt", "x"});
    assertEquals(
        List.of("generate", "explain", "match", "help"),
        List.copyOf(own.getSubcommands().keySet()));
  }

  /**
   * A fresh JVM with {@code -verbose:class}: {@code leap generate} on a tiny model loads none of
   * them.
   */
  @Test
  void generateLoadsNoBenchTrainOrServerClass() throws IOException, InterruptedException {
    Path dir = TestModels.dir("llama", TestModels.llama());
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb =
        new ProcessBuilder(
            java.toString(),
            "-verbose:class",
            "-Dai.djl.offline=true",
            "-cp",
            System.getProperty("java.class.path"),
            LeapMain.class.getName(),
            "generate",
            "--model",
            dir.toString(),
            "--prompt",
            "ab",
            "--regex",
            "[a-z]{3}",
            "--max-tokens",
            "4");
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out");
    assertEquals(0, p.exitValue(), log.length() > 4000 ? log.substring(log.length() - 4000) : log);
    assertTrue(
        log.contains("dev.leap.cli.GenerateCommand")
            && log.contains("dev.leap.runtime.LeapRuntime"),
        "the class-loading log is not what this test reads");
    for (String prefix :
        List.of(
            "dev.leap.bench.",
            "dev.leap.train.",
            "dev.leap.server.",
            "org.openjdk.jmh.",
            "org.knowm.xchart.",
            "me.tongfei.progressbar.",
            "org.eclipse.jetty.",
            "com.hubspot.jinjava.")) {
      assertFalse(log.contains(" " + prefix), "leap generate loaded a class of " + prefix);
    }
  }
}
