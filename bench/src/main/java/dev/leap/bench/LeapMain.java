package dev.leap.bench;

import dev.leap.runtime.cli.LeapCli;
import picocli.CommandLine;

/** Entry point of the {@code ./leap} script: the runtime's verbs plus {@code bench}. */
public final class LeapMain {
  private LeapMain() {}

  public static void main(String[] args) {
    CommandLine cli = LeapCli.commandLine();
    System.exit(cli.execute(args));
  }
}
