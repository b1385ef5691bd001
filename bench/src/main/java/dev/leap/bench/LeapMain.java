package dev.leap.bench;

import dev.leap.bench.e2e.BenchCommand;
import dev.leap.bench.e2e.DemoCommand;
import dev.leap.bench.serve.ServeBenchCommand;
import dev.leap.runtime.cli.LeapCli;
import dev.leap.server.ServeCommand;
import dev.leap.train.TrainCommand;
import picocli.CommandLine;

/** Entry point of the {@code ./leap} script: the runtime's verbs plus {@code demo}, {@code bench}, {@code train} and {@code serve}. */
public final class LeapMain {
  private LeapMain() {}

  public static void main(String[] args) {
    CommandLine cli = LeapCli.commandLine();
    cli.addSubcommand("demo", new CommandLine(new DemoCommand()).setExecutionExceptionHandler(cli.getExecutionExceptionHandler()));
    cli.addSubcommand("bench", new CommandLine(new BenchCommand())
        .addSubcommand("serve", new CommandLine(new ServeBenchCommand()).setExecutionExceptionHandler(cli.getExecutionExceptionHandler()))
        .setExecutionExceptionHandler(cli.getExecutionExceptionHandler()));
    cli.addSubcommand("serve", new CommandLine(new ServeCommand()).setExecutionExceptionHandler(cli.getExecutionExceptionHandler()));
    cli.addSubcommand("train", new CommandLine(new TrainCommand()).setExecutionExceptionHandler(cli.getExecutionExceptionHandler()));
    System.exit(cli.execute(args));
  }
}
