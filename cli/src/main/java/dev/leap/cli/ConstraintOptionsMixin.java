package dev.leap.cli;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.vocab.Vocabulary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The constraint options shared by {@code explain} and {@code match}: exactly one source. */
public final class ConstraintOptionsMixin {
  /**
   * A compiled constraint: a DFA ({@code fsm}; a regex, a schema, or a grammar without recursion),
   * or a grammar with recursion ({@code grammar}, {@code fsm} null).
   */
  record Compiled(CompressedFsm fsm, Grammar grammar) {
    /**
     * A fresh automaton to match texts with (a grammar's matcher interns states: one per text keeps
     * memory flat).
     */
    ByteAutomaton automaton() {
      return fsm != null ? fsm.dfa() : CompiledGrammar.compile(grammar, NO_TOKENS).newMatcher();
    }
  }

  /**
   * Matching bytes needs no vocabulary: a grammar compiled against none has only its byte automata.
   */
  private static final Vocabulary NO_TOKENS =
      new Vocabulary() {
        @Override
        public int size() {
          return 0;
        }

        @Override
        public byte[] tokenBytes(int id) {
          throw new IndexOutOfBoundsException(id);
        }

        @Override
        public int[] eosIds() {
          return new int[0];
        }
      };

  @Option(names = "--regex", paramLabel = "R", description = "A regular expression (full match).")
  String regex;

  @Option(names = "--json-schema", paramLabel = "FILE", description = "A JSON Schema file.")
  Path jsonSchema;

  @Option(
      names = "--grammar",
      paramLabel = "FILE",
      description = "A GBNF grammar file (docs/grammar.md).")
  Path grammar;

  @Option(
      names = "--indent",
      defaultValue = "-1",
      paramLabel = "N",
      description = "JSON Schema layout: spaces per level, -1 for compact JSON (default).")
  int indent;

  @Option(
      names = "--lenient",
      description =
          "JSON Schema: ignore keywords that cannot be honoured exactly (listed on stderr).")
  boolean lenient;

  /** Compiles the chosen constraint. */
  Compiled compile() {
    int given = (regex != null ? 1 : 0) + (jsonSchema != null ? 1 : 0) + (grammar != null ? 1 : 0);
    if (given != 1) {
      throw new CliError(
          "give exactly one constraint: --regex R, --json-schema FILE or --grammar FILE");
    }
    if (regex != null) {
      return new Compiled(CompressedFsm.compile(regex), null);
    }
    if (grammar != null) {
      Grammar g = Grammar.parse(readFile(grammar, "grammar"));
      return g.regular().isPresent() ? new Compiled(g.regular().get(), g) : new Compiled(null, g);
    }
    JsonSchemaOptions options =
        JsonSchemaOptions.defaults().withIndent(indent).withLenient(lenient);
    String schema = readSchema(jsonSchema);
    JsonSchema.Compiled c = JsonSchema.compileDetailed(schema, options);
    for (String ignored : c.ignored()) {
      System.err.println("leap: ignored (lenient): " + ignored);
    }
    for (String narrowed : c.narrowed()) {
      System.err.println("leap: narrowed: " + narrowed);
    }
    if (c.grammar().isPresent()) {
      return new Compiled(null, c.grammar().get()); // recursion too large to unroll: grammar rules
    }
    return new Compiled(c.fsm(), null);
  }

  static String readSchema(Path file) {
    return readFile(file, "JSON Schema");
  }

  /**
   * The text of {@code file}; a missing or unreadable file is a {@link CliError} naming it as
   * {@code what}.
   */
  static String readFile(Path file, String what) {
    try {
      return Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new CliError(what + " file not found: " + file);
    } catch (IOException e) {
      throw new CliError("cannot read " + file + ": " + e.getMessage());
    }
  }
}
