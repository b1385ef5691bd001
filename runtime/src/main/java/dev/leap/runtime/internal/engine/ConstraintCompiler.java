package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDManager;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.fsm.tags.ReasoningGate;
import dev.leap.fsm.tags.StructuralTags;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.internal.Errors;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that switches on a constraint's kind (SGLang's {@code dispatch_regex}, {@code
 * dispatch_json}, {@code dispatch_ebnf}): each kind becomes its automaton, one {@link
 * CompressedFsm} where the language is regular and the rules of a {@link Grammar} where it needs a
 * stack, and that becomes a {@link CompiledDfa} or a {@link CompiledRules}. A regex or choice, a
 * structural tag and a reasoning gate are always one DFA; a JSON Schema is one unless its recursion
 * is too large to unroll (what lenient mode ignored and what was narrowed are logged at WARN); a
 * grammar is one unless it has recursion. The contents of a structural tag or reasoning gate go
 * through the same switch and must be one DFA: a grammar with recursion there is a {@link
 * ConstraintException} for now (it would need the pushdown matcher inside a DFA); an error inside a
 * content names where it is.
 */
final class ConstraintCompiler {
  private static final Logger LOG = LoggerFactory.getLogger(ConstraintCompiler.class);

  private ConstraintCompiler() {}

  /**
   * What a constraint's language compiles to before a vocabulary: one DFA, or the rules of a
   * grammar with a stack (then {@code schema} is the JSON Schema's compilation when it came from
   * one).
   */
  private record Automaton(CompressedFsm dfa, Grammar rules, JsonSchema.Compiled schema) {
    static Automaton regular(CompressedFsm dfa) {
      return new Automaton(dfa, null, null);
    }

    static Automaton of(Grammar g) {
      return g.regular().map(Automaton::regular).orElseGet(() -> new Automaton(null, g, null));
    }

    /** The DFA, for a part that must be one; a grammar with recursion throws, naming its rules. */
    CompressedFsm regularOnly() {
      if (dfa != null) {
        return dfa;
      }
      if (schema != null) {
        return schema.fsm(); // throws, naming the rules
      }
      throw new ConstraintException(
          "a grammar with recursion (rules called through the stack: "
              + rules.compiledRules()
              + ") cannot be the content of a structural tag or reasoning gate yet: use a regex, choice, JSON Schema or"
              + " grammar without recursion");
    }
  }

  /**
   * Compiles {@code c} (not {@link Constraint#none()}) against {@code tokenizer}.
   *
   * @throws IllegalArgumentException (a {@link ConstraintException}, mostly) naming what does not
   *     compile and where
   */
  static CompiledConstraint compile(
      Constraint c, Tokenizer tokenizer, boolean healing, int logitsVocab, NDManager parent) {
    Automaton a = automaton(c);
    return a.rules != null
        ? CompiledRules.of(a.rules, tokenizer, healing, logitsVocab)
        : new CompiledDfa(a.dfa, tokenizer, healing, logitsVocab, parent);
  }

  private static Automaton automaton(Constraint c) {
    return switch (c.kind()) {
      case NONE -> throw new ConstraintException("Constraint.none() has no automaton");
      case REGEX -> Automaton.regular(CompressedFsm.compile(((Constraint.Regex) c).regex()));
      case CHOICE -> Automaton.regular(CompressedFsm.compile(((Constraint.Choice) c).regex()));
      case JSON_SCHEMA -> schema((Constraint.JsonSchema) c);
      case GRAMMAR -> Automaton.of(Grammar.parse(((Constraint.Gbnf) c).text()));
      case STRUCTURAL_TAG -> {
        Constraint.StructuralTag st = (Constraint.StructuralTag) c;
        List<StructuralTags.Tag> tags = new ArrayList<>();
        for (int i = 0; i < st.tags().size(); i++) {
          Constraint.Tag t = st.tags().get(i);
          tags.add(
              new StructuralTags.Tag(
                  t.begin(),
                  content(t.content(), "tag " + i + " (begin " + quote(t.begin()) + ")"),
                  t.end()));
        }
        yield Automaton.regular(StructuralTags.compile(st.triggers(), tags));
      }
      case AFTER_REASONING -> {
        Constraint.AfterReasoning r = (Constraint.AfterReasoning) c;
        yield Automaton.regular(
            ReasoningGate.compile(
                r.endMarker(), content(r.inner(), "the constraint after " + quote(r.endMarker()))));
      }
    };
  }

  /**
   * A JSON Schema: a DFA, or a grammar where its recursion needs rules; what lenient mode ignored
   * and what was narrowed logged at WARN.
   */
  private static Automaton schema(Constraint.JsonSchema c) {
    JsonSchema.Compiled compiled =
        JsonSchema.compileDetailed(
            c.schema(),
            JsonSchemaOptions.defaults().withIndent(c.indent()).withLenient(c.lenient()));
    compiled
        .ignored()
        .forEach(note -> LOG.warn("JSON Schema constraint: ignored (lenient): {}", note));
    compiled.narrowed().forEach(note -> LOG.warn("JSON Schema constraint: narrowed: {}", note));
    return compiled
        .grammar()
        .map(g -> new Automaton(null, g, compiled))
        .orElseGet(() -> Automaton.regular(compiled.fsm()));
  }

  /** The DFA of a composite constraint's part, its errors prefixed by {@code where}. */
  private static CompressedFsm content(Constraint c, String where) {
    try {
      return automaton(c).regularOnly();
    } catch (IllegalArgumentException e) {
      throw new ConstraintException(where + ": " + Errors.oneLine(e, "compilation failed"));
    }
  }

  private static String quote(String text) {
    String shown = text.length() > 60 ? text.substring(0, 60) + "…" : text;
    return "\"" + shown.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }
}
