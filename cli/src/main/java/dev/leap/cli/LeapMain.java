package dev.leap.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;

/**
 * Entry point of the {@code ./leap} script: this module's verbs ({@code generate}, {@code explain},
 * {@code match}) plus {@code demo}, {@code bench}, {@code train} and {@code serve}, whose commands
 * live in the modules that do the work.
 *
 * <p>Those four are registered by class name, and only when the command line is not one of this
 * module's verbs: {@code leap generate} never loads a class of {@code bench}, {@code train} or
 * {@code server}, hence none of JMH, XChart, progressbar or Jetty ({@code -verbose:class} shows no
 * {@code dev.leap.bench}, {@code org.openjdk.jmh}, {@code org.knowm}, {@code me.tongfei} or {@code
 * org.eclipse.jetty} class).
 */
public final class LeapMain {
  private LeapMain() {}

  /**
   * The verbs whose commands live in other modules, by name, in the order {@code leap --help} lists
   * them.
   */
  static final Map<String, String> OTHER_MODULES = new LinkedHashMap<>();

  static {
    OTHER_MODULES.put("demo", "dev.leap.bench.e2e.DemoCommand");
    OTHER_MODULES.put("bench", "dev.leap.bench.e2e.BenchCommand");
    OTHER_MODULES.put("serve", "dev.leap.server.ServeCommand");
    OTHER_MODULES.put("train", "dev.leap.train.TrainCommand");
  }

  /** This module's verbs: a command line that starts with one of them needs no other module. */
  private static final Set<String> OWN = Set.of("generate", "explain", "match");

  public static void main(String[] args) {
    System.exit(commandLine(args).execute(args));
  }

  /**
   * The command line for {@code args}: every verb, or only this module's when {@code args} starts
   * with one.
   */
  static CommandLine commandLine(String[] args) {
    CommandLine cli = LeapCli.commandLine();
    if (args.length == 0 || !OWN.contains(args[0])) {
      for (Map.Entry<String, String> e : OTHER_MODULES.entrySet()) {
        cli.addSubcommand(
            e.getKey(),
            new CommandLine(instantiate(e.getValue()))
                .setExecutionExceptionHandler(cli.getExecutionExceptionHandler()));
      }
    }
    return cli;
  }

  private static Object instantiate(String className) {
    try {
      return Class.forName(className).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "the command class " + className + " is missing from the class path", e);
    }
  }
}
