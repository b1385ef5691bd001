package dev.leap.fsm.internal;

import dev.leap.fsm.Dfa;
import dev.leap.fsm.grammar.Grammar;
import java.util.List;

/**
 * The grammar engine's entry point for rules given as regex trees, for {@code dev.leap.fsm.json}
 * (not API: it is public to Java only because the two packages differ, and it keeps {@link Re} out
 * of every public signature of {@code dev.leap.fsm.grammar}).
 *
 * <p>A grammar is a list of rules {@code (name, body)}, rule 0 the start; a body is a tree in which
 * a call of rule {@code k} is the tree {@link #call call(k)} (a four-byte marker no UTF-8 text
 * contains). The implementation lives in {@code dev.leap.fsm.grammar} and is installed by {@link
 * Grammar}'s class initializer, which every method here triggers first; only the first {@link
 * #install} counts.
 */
public final class RuleGrammars {
  private RuleGrammars() {}

  /** What {@code dev.leap.fsm.grammar} provides. */
  public interface Builder {
    /** See {@link RuleGrammars#grammar}. */
    Grammar grammar(String source, List<String> names, List<Re> bodies, int maxDfaStates);

    /** See {@link RuleGrammars#call}. */
    Re call(int rule);

    /** See {@link RuleGrammars#ruleAutomata}. */
    List<Dfa> ruleAutomata(Grammar grammar);
  }

  private static volatile Builder builder;

  /** Installs the implementation (done once, by {@link Grammar}'s class initializer; later calls are ignored). */
  public static synchronized void install(Builder b) {
    if (builder == null) {
      builder = b;
    }
  }

  /**
   * Compiles rules given as trees: each body to its minimal DFA (at most {@code maxDfaStates}
   * states), checked: every rule can finish (a rule that cannot is an error naming it), and no rule
   * calls itself before reading a byte (left recursion, an error naming the cycle).
   *
   * @param source names the grammar in errors and in {@link Grammar#source()}
   * @param names rule names, rule 0 the start; at most 1,000 rules
   * @param bodies the rules' trees, with calls written by {@link #call}
   * @throws dev.leap.fsm.EmptyLanguageException the start rule matches nothing
   * @throws dev.leap.fsm.AutomatonTooLargeException a rule needs more than {@code maxDfaStates} states
   * @throws dev.leap.fsm.ConstraintException a rule never finishes, or left recursion
   */
  public static Grammar grammar(String source, List<String> names, List<Re> bodies, int maxDfaStates) {
    return get().grammar(source, names, bodies, maxDfaStates);
  }

  /** The tree that calls rule {@code rule} (0 to 999) of a grammar built by {@link #grammar}. */
  public static Re call(int rule) {
    return get().call(rule);
  }

  /** The rule automata of {@code grammar}, call edges as their marker bytes (fingerprints, tests). */
  public static List<Dfa> ruleAutomata(Grammar grammar) {
    return get().ruleAutomata(grammar);
  }

  private static Builder get() {
    if (builder == null) {
      try {
        Class.forName(Grammar.class.getName(), true, Grammar.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
    }
    Builder b = builder;
    if (b == null) {
      throw new IllegalStateException("the grammar engine did not install its tree entry point");
    }
    return b;
  }
}
