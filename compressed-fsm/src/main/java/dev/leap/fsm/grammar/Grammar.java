package dev.leap.fsm.grammar;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.fsm.Excerpt;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A context-free grammar in GBNF (as llama.cpp and XGrammar write it; see {@code docs/grammar.md}),
 * checked and compiled to one byte automaton per <em>compiled</em> rule.
 *
 * <p>Compilation: parse ({@link GbnfParser}); check ({@link GrammarChecks}: root, undefined,
 * unused, left-recursive and never-finishing rules are errors with line and column); choose which
 * rules are called through a stack and which are inlined ({@link RecursionPlan}: every rule on no
 * recursion cycle is inlined); each compiled rule's body, with inlined rules substituted and calls
 * resolved to compiled rules ({@link GrammarTrees}), goes through the regex pipeline (tree &rarr;
 * NFA, where a call becomes its marker bytes &rarr; subset construction with a state limit &rarr;
 * minimal DFA) into a {@link RuleAutomaton}, which reads the markers back as call edges.
 *
 * <p>A grammar with no recursion reachable from {@code root} is one tree with no call, compiled by
 * exactly the pipeline a regex goes through: {@link #regular()} is that {@link CompressedFsm}, with
 * the same states, transitions and jump edges as the equivalent regex's.
 *
 * <p>Immutable and thread-safe. Compiling it against a vocabulary: {@link CompiledGrammar#compile}.
 */
public final class Grammar {
  private final String source;
  private final List<GbnfParser.Rule> rules;
  private final List<String> compiledNames;
  private final Set<String> recursive;
  private final RuleAutomaton[] automata;
  private final CompressedFsm regular;

  private Grammar(String source, int maxDfaStates) {
    this.source = source;
    this.rules = List.copyOf(GbnfParser.parse(source));
    Map<String, GbnfParser.Rule> byName = GrammarChecks.check(rules);
    RecursionPlan plan = RecursionPlan.of(byName);
    if (plan.compiled.size() > RuleAutomaton.MAX_RULES) {
      throw new GrammarLimitException(
          "called rules",
          RuleAutomaton.MAX_RULES,
          "the grammar needs "
              + plan.compiled.size()
              + " rules called through the stack, above the limit of "
              + RuleAutomaton.MAX_RULES);
    }
    this.compiledNames = List.copyOf(plan.compiled);
    this.recursive = Collections.unmodifiableSet(plan.recursive);
    GrammarTrees trees = new GrammarTrees(byName, compiledNames);
    this.automata = new RuleAutomaton[compiledNames.size()];
    if (compiledNames.size() == 1 && !recursive.contains("root")) {
      // No recursion: exactly the regex pipeline.
      this.regular =
          CompressedFsm.of(
              Automata.compileNonEmpty(trees.body("root"), source, maxDfaStates), source);
      automata[0] = new RuleAutomaton("root", regular.dfa());
    } else {
      this.regular = null;
      for (int k = 0; k < automata.length; k++) {
        String name = compiledNames.get(k);
        Re body = trees.body(name);
        Dfa dfa;
        try {
          dfa = Automata.compile(body, "rule " + name, maxDfaStates);
        } catch (AutomatonTooLargeException e) {
          GbnfParser.Rule r = byName.get(name);
          throw new AutomatonTooLargeException(
              source,
              e.limit(),
              e.reached(),
              "grammar line "
                  + r.line()
                  + ", column "
                  + r.column()
                  + ": rule \""
                  + Excerpt.around(name, -1)
                  + "\" (with the rules inlined into it) needs more than "
                  + e.limit()
                  + " DFA states (maxDfaStates); split it into rules or simplify it");
        }
        automata[k] = new RuleAutomaton(name, dfa);
      }
    }
  }

  /**
   * A grammar of compiled rules given as automata ({@link #ofRules}): no GBNF rules, never regular.
   */
  private Grammar(
      String source, List<String> names, RuleAutomaton[] automata, Set<String> recursive) {
    this.source = source;
    this.rules = List.of();
    this.compiledNames = List.copyOf(names);
    this.recursive = Collections.unmodifiableSet(recursive);
    this.automata = automata;
    this.regular = null;
  }

  /**
   * A grammar of rules given as regex trees (the JSON Schema compiler's recursive {@code $ref}s and
   * free-form values; {@link Re} is not exported, so only this module calls it): each body compiled
   * to its minimal DFA by the regex pipeline, read as a {@link RuleAutomaton}, checked by {@link
   * GrammarChecks}: every rule can finish (a rule that cannot is an error naming it), and no rule
   * calls itself before reading a byte (left recursion, an error naming the cycle). Every rule is
   * compiled (called through the stack): the caller has already inlined what it wants inlined. The
   * result is compiled against a vocabulary and matched like a GBNF grammar; it is never regular.
   *
   * @param source names the grammar in errors and in {@link #source()}
   * @param names rule names, rule 0 the start; at most 1,000 rules
   * @param bodies the rules' trees, a call of rule {@code k} written as a resolved {@link Re.Call}
   *     ({@link Re.Call#of Re.Call.of(name, k)}, one object per called rule)
   * @throws EmptyLanguageException the start rule matches nothing
   * @throws AutomatonTooLargeException a rule needs more than {@code maxDfaStates} states
   * @throws ConstraintException a rule never finishes, or left recursion
   */
  @SuppressWarnings("exports")
  public static Grammar ofRules(
      String source, List<String> names, List<Re> bodies, int maxDfaStates) {
    if (names.isEmpty() || names.size() != bodies.size()) {
      throw new IllegalArgumentException(
          "need one body per rule name, at least one: "
              + names.size()
              + " names, "
              + bodies.size()
              + " bodies");
    }
    if (names.size() > RuleAutomaton.MAX_RULES) {
      throw new GrammarLimitException(
          "called rules",
          RuleAutomaton.MAX_RULES,
          source
              + " needs "
              + names.size()
              + " rules called through the stack, above the limit of "
              + RuleAutomaton.MAX_RULES);
    }
    RuleAutomaton[] automata = new RuleAutomaton[names.size()];
    for (int k = 0; k < automata.length; k++) {
      String name = names.get(k);
      Dfa dfa;
      try {
        dfa = Automata.compile(bodies.get(k), source + ", rule " + name, maxDfaStates);
      } catch (AutomatonTooLargeException e) {
        throw new AutomatonTooLargeException(
            source,
            e.limit(),
            e.reached(),
            source
                + ": rule \""
                + name
                + "\" needs more than "
                + e.limit()
                + " DFA states (maxDfaStates)");
      }
      if (dfa == null) {
        if (k == 0) {
          throw new EmptyLanguageException(source);
        }
        throw new ConstraintException(
            source + ": rule \"" + Excerpt.around(name, -1) + "\" matches nothing");
      }
      automata[k] = new RuleAutomaton(name, dfa);
      for (int c : automata[k].callee) {
        if (c >= names.size()) {
          throw new IllegalArgumentException(
              "rule \"" + name + "\" calls rule " + c + " of " + names.size());
        }
      }
    }
    GrammarChecks.check(automata, source);
    Set<String> recursive = new LinkedHashSet<>();
    GrammarChecks.recursive(automata).stream().forEach(k -> recursive.add(names.get(k)));
    return new Grammar(source, names, automata, recursive);
  }

  /**
   * Parses, checks and compiles {@code gbnf} with the default state limit per rule ({@value
   * CompressedFsm#DEFAULT_MAX_DFA_STATES}).
   */
  public static Grammar parse(String gbnf) {
    return parse(gbnf, CompressedFsm.DEFAULT_MAX_DFA_STATES);
  }

  /**
   * Parses, checks and compiles {@code gbnf}.
   *
   * @throws GrammarSyntaxException bad syntax, no {@code root}, an undefined, duplicate or unused
   *     rule, left recursion, or a rule that never finishes (with line and column)
   * @throws AutomatonTooLargeException a rule's automaton needs more than {@code maxDfaStates}
   *     states
   */
  public static Grammar parse(String gbnf, int maxDfaStates) {
    return new Grammar(gbnf, maxDfaStates);
  }

  /**
   * Free-form JSON, compact (no whitespace), nested without bound: the language of {@code
   * {"type":...}}-less schemas, any depth.
   */
  public static Grammar json() {
    return JsonGrammars.JSON;
  }

  /**
   * Free-form JSON whose top level is an object (OpenAI's {@code response_format: {"type":
   * "json_object"}}).
   */
  public static Grammar jsonObject() {
    return JsonGrammars.JSON_OBJECT;
  }

  /**
   * The GBNF text; for a grammar built from a JSON Schema, what it was built from (e.g. {@code
   * "JSON Schema"}).
   */
  public String source() {
    return source;
  }

  /**
   * The compressed FSM when no recursion is reachable from {@code root} (exactly the regex
   * pipeline's), else empty.
   */
  public Optional<CompressedFsm> regular() {
    return Optional.ofNullable(regular);
  }

  /** Rules called through the stack, {@code root} first. */
  public List<String> compiledRules() {
    return compiledNames;
  }

  /** The automata, indexed like {@link #compiledRules()}. */
  RuleAutomaton[] automata() {
    return automata;
  }

  /**
   * For {@code leap explain}: each rule, whether it was inlined or compiled, recursive or not, and
   * states per compiled rule.
   */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        regular != null
            ? "regular grammar: one DFA, " + regular.stateCount() + " states\n"
            : "context-free grammar: "
                + compiledNames.size()
                + " rules called through the stack\n");
    if (rules.isEmpty()) {
      // Built from trees (a JSON Schema): every rule is compiled, none inlined.
      for (int k = 0; k < automata.length; k++) {
        RuleAutomaton a = automata[k];
        sb.append("  ")
            .append(a.name)
            .append(": compiled, ")
            .append(recursive.contains(a.name) ? "recursive" : "not recursive")
            .append(", ")
            .append(a.liveStates)
            .append(" states, ")
            .append(a.callee.length)
            .append(" call edges\n");
      }
    }
    for (GbnfParser.Rule r : rules) {
      int k = compiledNames.indexOf(r.name());
      String rec = recursive.contains(r.name()) ? "recursive" : "not recursive";
      if (k >= 0) {
        RuleAutomaton a = automata[k];
        sb.append("  ")
            .append(r.name())
            .append(" (line ")
            .append(r.line())
            .append("): compiled, ")
            .append(rec)
            .append(", ")
            .append(a.liveStates)
            .append(" states, ")
            .append(a.callee.length)
            .append(" call edges\n");
      } else {
        sb.append("  ")
            .append(r.name())
            .append(" (line ")
            .append(r.line())
            .append("): inlined, ")
            .append(rec)
            .append('\n');
      }
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "Grammar["
        + compiledNames.size()
        + " compiled rules"
        + (regular != null ? ", regular" : "")
        + "]";
  }
}
