package dev.leap.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The mixin's options, their defaults and help text, read through picocli as a command would. */
class RuntimeOptionsMixinTest {

  @Command(name = "probe")
  static final class Probe {
    @Mixin RuntimeOptionsMixin runtime;
  }

  static RuntimeOptionsMixin parse(String... args) {
    Probe p = new Probe();
    new CommandLine(p).parseArgs(args);
    return p.runtime;
  }

  @Test
  void defaults() {
    RuntimeOptionsMixin o = parse();
    assertEquals("demo", o.model());
    assertEquals("auto", o.dtype());
    assertEquals(4096, o.sparseLogitsLimit());
    assertEquals("auto", o.cpuF32Weights());
    assertEquals("cpu", o.device());
    assertEquals("auto", o.fusedAttention());
  }

  @Test
  void valuesAsGiven(@TempDir Path dir) {
    RuntimeOptionsMixin o =
        parse(
            "--model",
            dir.toString(),
            "--dtype",
            "f16",
            "--sparse-logits-limit",
            "0",
            "--cpu-f32-weights",
            "off",
            "--device",
            "gpu0",
            "--fused-attention",
            "on");
    assertEquals(dir.toString(), o.model());
    assertEquals(dir, o.modelDir(new PrintWriter(new StringWriter())));
    assertEquals("f16", o.dtype());
    assertEquals(0, o.sparseLogitsLimit());
    assertEquals("off", o.cpuF32Weights());
    assertEquals("gpu0", o.device());
    assertEquals("on", o.fusedAttention());
  }

  @Test
  void aMissingModelDirectoryIsAClearError() {
    RuntimeOptionsMixin o = parse("--model", "/nonexistent/leap-model");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> o.modelDir(new PrintWriter(new StringWriter())));
    assertTrue(e.getMessage().contains("/nonexistent/leap-model"), e.getMessage());
  }

  @Test
  void aNonNumericLimitIsRefusedByPicocli() {
    assertThrows(
        CommandLine.ParameterException.class, () -> parse("--sparse-logits-limit", "many"));
  }

  @Test
  void helpNamesEachOptionWithItsDefault() {
    String help =
        new CommandLine(new Probe())
            .getUsageMessage(CommandLine.Help.Ansi.OFF)
            .replaceAll("\\s+", " "); // help text wraps at 80 columns
    for (String s :
        new String[] {
          "--model=DIR|demo",
          "--dtype=<dtype>",
          "--sparse-logits-limit=N",
          "--cpu-f32-weights=auto|on|off",
          "--device=<device>",
          "--fused-attention=auto|on|off",
          "Default: demo",
          "Default: 4096"
        }) {
      assertTrue(help.contains(s), s + " missing from:\n" + help);
    }
  }
}
