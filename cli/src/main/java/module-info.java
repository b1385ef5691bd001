/**
 * The {@code leap} command line: {@code generate}, {@code explain} and {@code match}, and {@code
 * demo}, {@code bench}, {@code train} and {@code serve} from their modules, reached by class name
 * only (the {@code ./leap} script runs it on the class path, where those modules are).
 *
 * <p>Exported: {@code dev.leap.cli} ({@code LeapMain}, the commands), opened to picocli, which
 * reads the commands' options reflectively.
 */
@SuppressWarnings("module") // LeapCli reads runtime's internal.Errors, exported to this module only
module dev.leap.cli {
  requires dev.leap.runtime;
  requires com.fasterxml.jackson.databind;
  requires info.picocli;

  exports dev.leap.cli;

  opens dev.leap.cli to
      info.picocli;
}
