/**
 * The {@code leap} command line: {@code generate}, {@code explain} and {@code match}, and {@code
 * demo}, {@code bench}, {@code train} and {@code serve} from their modules, reached by class name
 * only (the {@code ./leap} script runs it on the class path, where those modules are).
 *
 * <p>Exports nothing (no module reads it; {@code LeapMain} is the entry point); {@code
 * dev.leap.cli} is opened to picocli, which reads the commands' options reflectively.
 */
module dev.leap.cli {
  requires dev.leap.runtime;
  requires dev.leap.options; // GenerateCommand's --model, --dtype, --sparse-logits-limit, ...
  requires com.fasterxml.jackson.databind;
  requires info.picocli;

  opens dev.leap.cli to
      info.picocli;
}
