package dev.leap.cli;

import dev.leap.runtime.internal.Errors;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code leap} command line with this module's verbs; {@link LeapMain}, which the {@code
 * ./leap} script runs, adds {@code demo}, {@code bench}, {@code train} and {@code serve}.
 *
 * <p>Errors a user can fix (a bad regex, a missing file, a bad value) are printed as one line on
 * stderr — or, for a command run with {@code --json}, as one {@code {"error": "..."}} object on
 * stdout — with exit code 1. Set {@code LEAP_DEBUG=1} to see stack traces.
 */
@Command(
    name = "leap",
    mixinStandardHelpOptions = true,
    version = "leap 0.1.0",
    description = "Structured generation with jump-forward decoding.",
    subcommands = {
      GenerateCommand.class,
      ExplainCommand.class,
      MatchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class LeapCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The command line with every verb this module provides and the one-line error handling. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new LeapCli());
    cli.setExecutionExceptionHandler(LeapCli::handle);
    return cli;
  }

  /** Prints a failed command's error as one line (or one JSON object) and returns exit code 1. */
  static int handle(Exception ex, CommandLine cmd, CommandLine.ParseResult parsed)
      throws Exception {
    String message = message(ex);
    if (System.getenv("LEAP_DEBUG") != null) {
      ex.printStackTrace(cmd.getErr());
    }
    Object command = cmd.getCommand();
    if (command instanceof JsonOutput j && j.json()) {
      PrintWriter out = cmd.getOut();
      out.println(Json.MAPPER.createObjectNode().put("error", message));
      out.flush();
    } else {
      PrintWriter err = cmd.getErr();
      err.println("leap " + cmd.getCommandName() + ": " + message);
      err.flush();
    }
    return 1;
  }

  /**
   * A one-line description of a failure: {@link Errors#oneLine}, the text a {@code Generation}'s
   * error carries.
   */
  public static String message(Throwable ex) {
    String m = Errors.oneLine(ex, "internal error");
    return Errors.isUserError(ex) ? m : m + " (set LEAP_DEBUG=1 for the stack trace)";
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
