package dev.leap.runtime.internal.engine;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.fsm.tags.ReasoningGate;
import dev.leap.fsm.tags.StructuralTags;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.internal.Errors;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A constraint whose language is regular, compiled to its one {@link CompressedFsm}: a regex or
 * choice, a JSON Schema (what lenient mode ignored and what was narrowed are logged at WARN), a
 * grammar without recursion, and the constraints built around such contents (structural tags, a
 * reasoning gate), recursively. A grammar with recursion anywhere inside a composite constraint is
 * a {@link ConstraintException} for now (it would need the pushdown matcher inside a DFA); an error
 * inside a tag's content names the tag.
 */
final class RegularConstraints {
  private static final Logger LOG = LoggerFactory.getLogger(RegularConstraints.class);

  private RegularConstraints() {}

  /**
   * The compressed FSM of {@code c}.
   *
   * @throws ConstraintException (or another {@link IllegalArgumentException}) naming what does not compile and where
   */
  static CompressedFsm fsm(Constraint c) {
    return switch (c.kind()) {
      case NONE -> throw new ConstraintException("Constraint.none() has no automaton");
      case REGEX, CHOICE -> CompressedFsm.compile(c.regex());
      case JSON_SCHEMA -> schema(c).fsm(); // a schema that needs grammar rules says so

      case GRAMMAR -> {
        Grammar g = Grammar.parse(c.grammar());
        yield g.regular().orElseThrow(() -> new ConstraintException("a grammar with recursion (rules called through"
            + " the stack: " + g.compiledRules() + ") cannot be the content of a structural tag or reasoning gate"
            + " yet: use a regex, choice, JSON Schema or grammar without recursion"));
      }
      case STRUCTURAL_TAG -> {
        List<StructuralTags.Tag> tags = new ArrayList<>();
        for (int i = 0; i < c.tags().size(); i++) {
          Constraint.Tag t = c.tags().get(i);
          tags.add(new StructuralTags.Tag(t.begin(), content(t.content(), "tag " + i + " (begin " + quote(t.begin()) + ")"),
              t.end()));
        }
        yield StructuralTags.compile(c.triggers(), tags);
      }
      case AFTER_REASONING -> ReasoningGate.compile(
          c.endMarker(), content(c.inner(), "the constraint after " + quote(c.endMarker())));
    };
  }

  /**
   * A JSON Schema constraint compiled: a DFA, or a grammar where its recursion needs rules; what
   * lenient mode ignored and what was narrowed are logged at WARN.
   */
  static JsonSchema.Compiled schema(Constraint c) {
    JsonSchema.Compiled compiled = JsonSchema.compileDetailed(
        c.schema(), JsonSchemaOptions.defaults().withIndent(c.indent()).withLenient(c.lenient()));
    compiled.ignored().forEach(note -> LOG.warn("JSON Schema constraint: ignored (lenient): {}", note));
    compiled.narrowed().forEach(note -> LOG.warn("JSON Schema constraint: narrowed: {}", note));
    return compiled;
  }

  /** {@link #fsm} of a part, its errors prefixed by {@code where}. */
  private static CompressedFsm content(Constraint c, String where) {
    try {
      return fsm(c);
    } catch (IllegalArgumentException e) {
      throw new ConstraintException(where + ": " + Errors.oneLine(e, "compilation failed"));
    }
  }

  private static String quote(String text) {
    String shown = text.length() > 60 ? text.substring(0, 60) + "…" : text;
    return "\"" + shown.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }
}
