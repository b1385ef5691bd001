package dev.leap.fsm.json;

import dev.leap.fsm.SmallVocabulary;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.GrammarMatcher;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * Whole-text matching of a compiled schema, DFA or grammar (the grammar through a matcher over a
 * small vocabulary).
 */
final class CompiledMatch {
  private CompiledMatch() {}

  static Predicate<byte[]> of(JsonSchema.Compiled c) {
    if (c.grammar().isEmpty()) {
      return c.fsm().dfa()::matches;
    }
    GrammarMatcher m =
        CompiledGrammar.compile(c.grammar().get(), SmallVocabulary.create()).newMatcher();
    return text -> m.isAccepting(m.walk(m.initialState(), text, 0, text.length));
  }

  static boolean matches(JsonSchema.Compiled c, String text) {
    return of(c).test(text.getBytes(StandardCharsets.UTF_8));
  }
}
