package dev.leap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leap.options.RuntimeOptionsMixin;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code generate}, {@code serve} and {@code bench} take the model and runtime options from one
 * mixin: each accepts them, with the same defaults and help text.
 */
class RuntimeOptionsTest {

  static final List<String> OPTIONS =
      List.of("--model", "--dtype", "--sparse-logits-limit", "--cpu-f32-weights");

  /** The command {@code args} reach, parsed as {@code leap} parses them. */
  static CommandSpec parsed(String... args) {
    CommandLine.ParseResult r = LeapMain.commandLine(args).parseArgs(args);
    return r.subcommand().commandSpec();
  }

  static RuntimeOptionsMixin mixin(CommandSpec spec) {
    return spec.mixins().values().stream()
        .map(CommandSpec::userObject)
        .filter(RuntimeOptionsMixin.class::isInstance)
        .map(RuntimeOptionsMixin.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError(spec.name() + " has no RuntimeOptionsMixin"));
  }

  static String[] with(String[] head, String... tail) {
    String[] all = new String[head.length + tail.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  static final String[][] COMMANDS = {
    {"generate", "--prompt", "x"}, {"serve"}, {"bench", "characters"}
  };

  @Test
  void theThreeCommandsAcceptTheOptions(@TempDir Path dir) {
    for (String[] command : COMMANDS) {
      RuntimeOptionsMixin o =
          mixin(
              parsed(
                  with(
                      command,
                      "--model",
                      dir.toString(),
                      "--dtype",
                      "f16",
                      "--sparse-logits-limit",
                      "7",
                      "--cpu-f32-weights",
                      "off")));
      assertEquals(dir.toString(), o.model(), command[0]);
      assertEquals("f16", o.dtype(), command[0]);
      assertEquals(7, o.sparseLogitsLimit(), command[0]);
      assertEquals("off", o.cpuF32Weights(), command[0]);
    }
  }

  @Test
  void theSameDefaultsAndHelpText() {
    CommandSpec first = parsed(COMMANDS[0]);
    RuntimeOptionsMixin d = mixin(first);
    assertEquals(
        List.of("demo", "auto", 4096, "auto"),
        List.of(d.model(), d.dtype(), d.sparseLogitsLimit(), d.cpuF32Weights()));
    for (String[] command : COMMANDS) {
      CommandSpec spec = parsed(command);
      RuntimeOptionsMixin o = mixin(spec);
      assertEquals(
          List.of(d.model(), d.dtype(), d.sparseLogitsLimit(), d.cpuF32Weights()),
          List.of(o.model(), o.dtype(), o.sparseLogitsLimit(), o.cpuF32Weights()),
          command[0]);
      for (String name : OPTIONS) {
        OptionSpec a = first.findOption(name);
        OptionSpec b = spec.findOption(name);
        assertEquals(a.defaultValue(), b.defaultValue(), command[0] + " " + name);
        assertEquals(a.paramLabel(), b.paramLabel(), command[0] + " " + name);
        assertArrayEquals(a.description(), b.description(), command[0] + " " + name);
      }
    }
  }
}
