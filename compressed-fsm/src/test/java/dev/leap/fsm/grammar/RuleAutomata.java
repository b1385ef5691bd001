package dev.leap.fsm.grammar;

import dev.leap.fsm.Dfa;
import java.util.ArrayList;
import java.util.List;

/**
 * Test access to a grammar's compiled rules, for tests outside this package (the JSON Schema
 * fingerprints).
 */
public final class RuleAutomata {
  private RuleAutomata() {}

  /**
   * The rule automata of {@code grammar}, indexed like {@link Grammar#compiledRules()}, call edges
   * as their marker bytes.
   */
  public static List<Dfa> of(Grammar grammar) {
    List<Dfa> out = new ArrayList<>();
    for (RuleAutomaton a : grammar.automata()) {
      out.add(a.dfa);
    }
    return out;
  }
}
