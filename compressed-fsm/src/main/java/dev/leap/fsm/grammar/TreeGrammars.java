package dev.leap.fsm.grammar;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RuleGrammars;
import java.util.ArrayList;
import java.util.List;

/**
 * Grammars whose rules arrive as regex trees with calls as markers (the JSON Schema compiler's
 * recursive {@code $ref}s and free-form values), behind {@link RuleGrammars}: each body compiled to
 * its minimal DFA by the regex pipeline, read as a {@link RuleAutomaton}, checked by {@link
 * RuleChecks}. Every rule is compiled (called through the stack): the caller has already inlined
 * what it wants inlined. The result is an ordinary {@link Grammar}, compiled against a vocabulary
 * and matched like a GBNF one.
 */
final class TreeGrammars implements RuleGrammars.Builder {
  @Override
  public Grammar grammar(String source, List<String> names, List<Re> bodies, int maxDfaStates) {
    if (names.isEmpty() || names.size() != bodies.size()) {
      throw new IllegalArgumentException("need one body per rule name, at least one: " + names.size() + " names, "
          + bodies.size() + " bodies");
    }
    if (names.size() > RuleAutomaton.MAX_RULES) {
      throw new GrammarLimitException("called rules", RuleAutomaton.MAX_RULES, source + " needs " + names.size()
          + " rules called through the stack, above the limit of " + RuleAutomaton.MAX_RULES);
    }
    RuleAutomaton[] automata = new RuleAutomaton[names.size()];
    for (int k = 0; k < automata.length; k++) {
      String name = names.get(k);
      Dfa dfa;
      try {
        dfa = Automata.compile(bodies.get(k), source + ", rule " + name, maxDfaStates);
      } catch (AutomatonTooLargeException e) {
        throw new AutomatonTooLargeException(source, e.limit(), e.reached(), source + ": rule \"" + name
            + "\" needs more than " + e.limit() + " DFA states (maxDfaStates)");
      }
      if (dfa == null) {
        if (k == 0) {
          throw new EmptyLanguageException(source);
        }
        throw new ConstraintException(source + ": rule \"" + dev.leap.fsm.Excerpt.around(name, -1) + "\" matches nothing");
      }
      automata[k] = new RuleAutomaton(name, dfa);
      for (int c : automata[k].callee) {
        if (c >= names.size()) {
          throw new IllegalArgumentException("rule \"" + name + "\" calls rule " + c + " of " + names.size());
        }
      }
    }
    RuleChecks.check(automata, source);
    return Grammar.ofAutomata(source, names, automata, RuleChecks.recursive(automata));
  }

  @Override
  public Re call(int rule) {
    if (rule < 0 || rule >= RuleAutomaton.MAX_RULES) {
      throw new IllegalArgumentException("rule index " + rule + " outside 0.." + (RuleAutomaton.MAX_RULES - 1));
    }
    return RuleAutomaton.marker(rule);
  }

  @Override
  public List<Dfa> ruleAutomata(Grammar grammar) {
    List<Dfa> out = new ArrayList<>();
    for (RuleAutomaton a : grammar.automata()) {
      out.add(a.dfa);
    }
    return out;
  }
}
