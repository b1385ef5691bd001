package dev.leap.fsm.grammar;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.Excerpt;
import dev.leap.fsm.internal.Re;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks a grammar must pass before it is matched, one suite for both forms a grammar arrives
 * in: GBNF syntax ({@link #check(List)}, failing with a {@link GrammarSyntaxException} at the
 * offending place) and rules given as trees, compiled to rule automata ({@link
 * #check(RuleAutomaton[], String)}, for the JSON Schema compiler's rules, where there is no syntax
 * to point at: errors name the rules). Syntax alone: no rule defined twice, a {@code root} rule,
 * every referenced rule defined, every rule reachable from {@code root}. Both: no left recursion (a
 * rule that can reach itself without reading a byte, through rules that match the empty text too),
 * and every rule able to finish (it matches some finite text). Those two are computed once, over
 * {@link Rules}: the facts each form gives about its rules (read from the syntax tree, or from the
 * automata's text bytes and call edges).
 *
 * <p>What the engine relies on afterwards: with no left recursion, pushing rules without reading a
 * byte always stops (the stack closure is finite); with every rule productive, every live state of
 * every rule automaton can still reach a full match, so "not dead" means "a prefix of the
 * language".
 */
final class GrammarChecks {
  private GrammarChecks() {}

  /** The rules by name in definition order, checked. */
  static Map<String, GbnfParser.Rule> check(List<GbnfParser.Rule> rules) {
    Map<String, GbnfParser.Rule> byName = new LinkedHashMap<>();
    for (GbnfParser.Rule r : rules) {
      GbnfParser.Rule prev = byName.putIfAbsent(r.name(), r);
      if (prev != null) {
        throw new GrammarSyntaxException(
            r.line(),
            r.column(),
            "rule \"" + r.name() + "\" is defined twice (first at line " + prev.line() + ")");
      }
    }
    if (!byName.containsKey("root")) {
      throw new GrammarSyntaxException(1, 1, "the grammar has no rule named \"root\"");
    }
    for (GbnfParser.Rule r : rules) {
      for (Re.Call ref : calls(r.body())) {
        if (!byName.containsKey(ref.name())) {
          throw new GrammarSyntaxException(
              ref.line(),
              ref.column(),
              "undefined rule \"" + Excerpt.around(ref.name(), -1) + "\"");
        }
      }
    }
    Set<String> reachable = reachable(byName);
    for (GbnfParser.Rule r : rules) {
      if (!reachable.contains(r.name())) {
        throw new GrammarSyntaxException(
            r.line(),
            r.column(),
            "rule \"" + r.name() + "\" is never used (not reachable from root)");
      }
    }
    SyntaxRules facts = new SyntaxRules(rules);
    List<Integer> cycle = leftRecursion(facts);
    if (cycle != null) {
      GbnfParser.Rule r = rules.get(cycle.get(0));
      List<String> path = new ArrayList<>();
      cycle.forEach(k -> path.add(rules.get(k).name()));
      throw new GrammarSyntaxException(
          r.line(),
          r.column(),
          "rule " + r.name() + " is left-recursive: " + String.join(" -> ", path));
    }
    productive(rules, byName, finishing(facts));
    return byName;
  }

  /**
   * Rules given as automata: fails with a {@link ConstraintException} naming the first rule that
   * never finishes or, after that, the first left-recursive rule and its cycle.
   */
  static void check(RuleAutomaton[] rules, String source) {
    AutomatonRules facts = new AutomatonRules(rules);
    BitSet finishing = finishing(facts);
    for (int k = 0; k < rules.length; k++) {
      if (!finishing.get(k)) {
        throw new ConstraintException(
            source
                + ": rule \""
                + rules[k].name
                + "\" never finishes: every way through it calls a rule that never finishes (itself, through recursion)");
      }
    }
    List<Integer> cycle = leftRecursion(facts);
    if (cycle != null) {
      StringBuilder path = new StringBuilder();
      for (int c : cycle) {
        path.append(path.length() == 0 ? "" : " -> ").append(rules[c].name);
      }
      throw new ConstraintException(
          source
              + ": rule \""
              + rules[cycle.get(0)].name
              + "\" is left-recursive (calls itself before reading a byte): "
              + path);
    }
  }

  /** What the shared checks need to know about a grammar's rules, indexed 0..size-1. */
  interface Rules {
    int size();

    /**
     * Whether rule {@code k} can end, calling only rules in {@code callable}: reading text too when
     * {@code bytes} (it can finish), without reading a byte otherwise (it matches the empty text).
     */
    boolean ends(int k, BitSet callable, boolean bytes);

    /**
     * The rules {@code k} may call before reading a byte, given the rules that match the empty
     * text; no repeats.
     */
    List<Integer> leftCalls(int k, BitSet nullable);
  }

  /** The rules that can finish (least fixed point). */
  static BitSet finishing(Rules rules) {
    return fixpoint(rules, true);
  }

  /** The rules that match the empty text (least fixed point). */
  static BitSet nullable(Rules rules) {
    return fixpoint(rules, false);
  }

  private static BitSet fixpoint(Rules rules, boolean bytes) {
    BitSet done = new BitSet();
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int k = 0; k < rules.size(); k++) {
        if (!done.get(k) && rules.ends(k, done, bytes)) {
          done.set(k);
          changed = true;
        }
      }
    }
    return done;
  }

  /**
   * The shortest cycle of left calls {@code k -> ... -> k} of the first rule {@code k} (in index
   * order) on one, or null when no rule is left-recursive.
   */
  static List<Integer> leftRecursion(Rules rules) {
    BitSet nullable = nullable(rules);
    List<List<Integer>> left = new ArrayList<>();
    for (int k = 0; k < rules.size(); k++) {
      left.add(rules.leftCalls(k, nullable));
    }
    for (int k = 0; k < rules.size(); k++) {
      List<Integer> cycle = shortestCycle(k, left);
      if (cycle != null) {
        return cycle;
      }
    }
    return null;
  }

  /** The shortest path {@code start -> ... -> start} in {@code graph}, or null. */
  private static List<Integer> shortestCycle(int start, List<List<Integer>> graph) {
    int[] parent = new int[graph.size()];
    Arrays.fill(parent, -2);
    Deque<Integer> queue = new ArrayDeque<>(List.of(start));
    while (!queue.isEmpty()) {
      int n = queue.poll();
      for (int m : graph.get(n)) {
        if (m == start) {
          List<Integer> path = new ArrayList<>();
          for (int x = n; x != start; x = parent[x]) {
            path.add(0, x);
          }
          path.add(0, start);
          path.add(start);
          return path;
        }
        if (parent[m] == -2) {
          parent[m] = n;
          queue.add(m);
        }
      }
    }
    return null;
  }

  /** The rules on some cycle of calls (a rule that can call itself, through others or directly). */
  static BitSet recursive(RuleAutomaton[] rules) {
    BitSet out = new BitSet();
    for (int k = 0; k < rules.length; k++) {
      BitSet seen = new BitSet();
      Deque<Integer> todo = new ArrayDeque<>(List.of(k));
      while (!todo.isEmpty() && !out.get(k)) {
        RuleAutomaton r = rules[todo.poll()];
        for (int c : r.callee) {
          if (c == k) {
            out.set(k);
            break;
          }
          if (!seen.get(c)) {
            seen.set(c);
            todo.add(c);
          }
        }
      }
    }
    return out;
  }

  /**
   * The facts of GBNF rules, read from their trees as {@link GbnfParser} writes them (literals,
   * character sets, calls by name, sequences, alternatives, repetitions); indexes in definition
   * order.
   */
  private static final class SyntaxRules implements Rules {
    private final List<GbnfParser.Rule> rules;
    private final Map<String, Integer> index = new HashMap<>();

    SyntaxRules(List<GbnfParser.Rule> rules) {
      this.rules = rules;
      for (int k = 0; k < rules.size(); k++) {
        index.put(rules.get(k).name(), k);
      }
    }

    @Override
    public int size() {
      return rules.size();
    }

    @Override
    public boolean ends(int k, BitSet callable, boolean bytes) {
      return ends(rules.get(k).body(), callable, bytes);
    }

    private boolean ends(Re e, BitSet callable, boolean bytes) {
      if (e instanceof Re.Empty) {
        return true;
      } else if (e instanceof Re.Chars c) {
        return bytes && c.ranges().length > 0;
      } else if (e instanceof Re.Call r) {
        return callable.get(index.get(r.name()));
      } else if (e instanceof Re.Automaton) {
        throw new IllegalArgumentException("a GBNF rule's tree holds no automaton");
      } else if (e instanceof Re.Concat s) {
        for (Re x : s.items()) {
          if (!ends(x, callable, bytes)) {
            return false;
          }
        }
        return true;
      } else if (e instanceof Re.Alt a) {
        for (Re x : a.options()) {
          if (ends(x, callable, bytes)) {
            return true;
          }
        }
        return false;
      } else {
        Re.Repeat r = (Re.Repeat) e;
        return r.min() == 0 || ends(r.item(), callable, bytes);
      }
    }

    @Override
    public List<Integer> leftCalls(int k, BitSet nullable) {
      Set<Integer> out = new LinkedHashSet<>();
      leftRefs(rules.get(k).body(), nullable, out);
      return new ArrayList<>(out);
    }

    /** The rules {@code e} may call before reading any byte. */
    private void leftRefs(Re e, BitSet nullable, Set<Integer> out) {
      if (e instanceof Re.Call r) {
        out.add(index.get(r.name()));
      } else if (e instanceof Re.Concat s) {
        for (Re x : s.items()) {
          leftRefs(x, nullable, out);
          if (!ends(x, nullable, false)) {
            return;
          }
        }
      } else if (e instanceof Re.Alt a) {
        a.options().forEach(x -> leftRefs(x, nullable, out));
      } else if (e instanceof Re.Repeat r) {
        if (r.max() != 0) {
          leftRefs(r.item(), nullable, out);
        }
      }
    }
  }

  /** The facts of compiled rule automata: paths from state 0 through text bytes and call edges. */
  private static final class AutomatonRules implements Rules {
    private final RuleAutomaton[] rules;

    AutomatonRules(RuleAutomaton[] rules) {
      this.rules = rules;
    }

    @Override
    public int size() {
      return rules.length;
    }

    @Override
    public boolean ends(int k, BitSet callable, boolean bytes) {
      RuleAutomaton r = rules[k];
      boolean[] seen = new boolean[r.stateCount()];
      Deque<Integer> todo = new ArrayDeque<>();
      todo.add(0);
      seen[0] = true;
      while (!todo.isEmpty()) {
        int s = todo.poll();
        if (r.isAccepting(s)) {
          return true;
        }
        if (bytes) {
          for (int b = 0; b < RuleAutomaton.DIGIT0; b++) {
            int t = r.step(s, b);
            if (t != Dfa.DEAD && !seen[t]) {
              seen[t] = true;
              todo.add(t);
            }
          }
        }
        for (int i = r.callStart[s]; i < r.callStart[s + 1]; i++) {
          int t = r.callTarget[i];
          if (callable.get(r.callee[i]) && !seen[t]) {
            seen[t] = true;
            todo.add(t);
          }
        }
      }
      return false;
    }

    @Override
    public List<Integer> leftCalls(int k, BitSet nullable) {
      RuleAutomaton r = rules[k];
      List<Integer> out = new ArrayList<>();
      boolean[] seen = new boolean[r.stateCount()];
      Deque<Integer> todo = new ArrayDeque<>();
      todo.add(0);
      seen[0] = true;
      while (!todo.isEmpty()) {
        int s = todo.poll();
        for (int i = r.callStart[s]; i < r.callStart[s + 1]; i++) {
          if (!out.contains(r.callee[i])) {
            out.add(r.callee[i]);
          }
          int t = r.callTarget[i];
          if (nullable.get(r.callee[i]) && !seen[t]) {
            seen[t] = true;
            todo.add(t);
          }
        }
      }
      return out;
    }
  }

  /** Every call in {@code e}, in text order. */
  static List<Re.Call> calls(Re e) {
    List<Re.Call> out = new ArrayList<>();
    collect(e, out);
    return out;
  }

  private static void collect(Re e, List<Re.Call> out) {
    if (e instanceof Re.Call r) {
      out.add(r);
    } else if (e instanceof Re.Concat s) {
      s.items().forEach(x -> collect(x, out));
    } else if (e instanceof Re.Alt a) {
      a.options().forEach(x -> collect(x, out));
    } else if (e instanceof Re.Repeat r) {
      collect(r.item(), out);
    }
  }

  private static Set<String> reachable(Map<String, GbnfParser.Rule> byName) {
    Set<String> seen = new LinkedHashSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of("root"));
    while (!todo.isEmpty()) {
      String n = todo.pop();
      if (seen.add(n)) {
        for (Re.Call ref : calls(byName.get(n).body())) {
          todo.push(ref.name());
        }
      }
    }
    return seen;
  }

  /**
   * Fails at a rule that never finishes, if any: the first (in definition order) that needs itself
   * through other unfinished rules, else the first unfinished one (a rule that needs itself is the
   * cause; one that merely calls it is not).
   */
  private static void productive(
      List<GbnfParser.Rule> rules, Map<String, GbnfParser.Rule> byName, BitSet finishingRules) {
    Set<String> done = new HashSet<>();
    for (int k = finishingRules.nextSetBit(0); k >= 0; k = finishingRules.nextSetBit(k + 1)) {
      done.add(rules.get(k).name());
    }
    GbnfParser.Rule first = null;
    for (GbnfParser.Rule r : rules) {
      if (done.contains(r.name())) {
        continue;
      }
      if (first == null) {
        first = r;
      }
      if (reachesItself(r.name(), byName, done)) {
        first = r;
        break;
      }
    }
    if (first != null) {
      throw new GrammarSyntaxException(
          first.line(),
          first.column(),
          "rule \""
              + first.name()
              + "\" never finishes: every alternative needs a rule that never finishes (itself, through recursion)");
    }
  }

  private static boolean reachesItself(
      String start, Map<String, GbnfParser.Rule> byName, Set<String> finishing) {
    Deque<String> todo = new ArrayDeque<>(List.of(start));
    Set<String> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      for (Re.Call ref : calls(byName.get(todo.pop()).body())) {
        if (finishing.contains(ref.name())) {
          continue;
        }
        if (ref.name().equals(start)) {
          return true;
        }
        if (seen.add(ref.name())) {
          todo.push(ref.name());
        }
      }
    }
    return false;
  }
}
