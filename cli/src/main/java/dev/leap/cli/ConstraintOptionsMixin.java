package dev.leap.cli;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The constraint options shared by {@code explain} and {@code match}: exactly one source. */
public final class ConstraintOptionsMixin {
  @Option(names = "--regex", paramLabel = "R", description = "A regular expression (full match).")
  String regex;

  @Option(names = "--json-schema", paramLabel = "FILE", description = "A JSON Schema file.")
  Path jsonSchema;

  @Option(names = "--indent", defaultValue = "-1", paramLabel = "N",
      description = "JSON Schema layout: spaces per level, -1 for compact JSON (default).")
  int indent;

  @Option(names = "--lenient", description = "JSON Schema: ignore keywords that cannot be honoured exactly (listed on stderr).")
  boolean lenient;

  /** Compiles the chosen constraint. */
  CompressedFsm compile() {
    if ((regex == null) == (jsonSchema == null)) {
      throw new CliError("give exactly one constraint: --regex R or --json-schema FILE");
    }
    if (regex != null) {
      return CompressedFsm.compile(regex);
    }
    JsonSchemaOptions options = JsonSchemaOptions.defaults().withIndent(indent).withLenient(lenient);
    String schema = readSchema(jsonSchema);
    JsonSchema.Compiled c = JsonSchema.compileDetailed(schema, options);
    for (String ignored : c.ignored()) {
      System.err.println("leap: ignored (lenient): " + ignored);
    }
    for (String narrowed : c.narrowed()) {
      System.err.println("leap: narrowed: " + narrowed);
    }
    return c.fsm();
  }

  static String readSchema(Path file) {
    try {
      return Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new CliError("JSON Schema file not found: " + file);
    } catch (IOException e) {
      throw new CliError("cannot read " + file + ": " + e.getMessage());
    }
  }
}
