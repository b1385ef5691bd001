package dev.leap.runtime.internal.engine;

import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.retokenize.JumpRetokenizer;
import dev.leap.retokenize.Tokenizer;

/**
 * A grammar with recursion: a {@link CompiledGrammar} whose rule states' token sets are computed on
 * first use and shared (a big grammar's request visits a small part of it), each request matching
 * with its own {@link GrammarMatcher} ({@link GrammarState}). The start state's token sets are
 * computed at compile time: the first mask is ready when the request's first step comes.
 */
final class CompiledRules extends CompiledConstraint {
  final CompiledGrammar grammar;

  private CompiledRules(CompiledGrammar grammar, JumpRetokenizer retokenizer, int logitsVocab) {
    super(retokenizer, logitsVocab);
    this.grammar = grammar;
  }

  static CompiledRules of(
      Grammar recursive, Tokenizer tokenizer, boolean healing, int logitsVocab) {
    CompiledGrammar cg = CompiledGrammar.compileLazily(recursive, tokenizer);
    cg.precompute(); // the first states' sets here, off the step loop; the others on first use
    GrammarMatcher first = cg.newMatcher();
    first.allowed(first.initialState());
    return new CompiledRules(
        cg, new JumpRetokenizer(tokenizer, cg.newMatcher(), healing), logitsVocab);
  }

  @Override
  ConstraintState newState() {
    return new GrammarState(this, grammar.newMatcher());
  }
}
