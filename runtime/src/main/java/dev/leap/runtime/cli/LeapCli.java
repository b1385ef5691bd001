package dev.leap.runtime.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code leap} command line: one picocli command per verb. {@code bench} is added by the bench
 * module's {@code LeapMain}, which is what the {@code ./leap} script runs.
 */
@Command(
    name = "leap",
    mixinStandardHelpOptions = true,
    version = "leap 0.1.0",
    description = "Structured generation with jump-forward decoding.",
    subcommands = {CommandLine.HelpCommand.class})
public final class LeapCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** The command line with every verb this module provides. */
  public static CommandLine commandLine() {
    return new CommandLine(new LeapCli());
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
