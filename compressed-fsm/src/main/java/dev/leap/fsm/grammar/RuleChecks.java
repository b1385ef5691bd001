package dev.leap.fsm.grammar;

import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;

/**
 * The checks of {@link GrammarChecks}, done on compiled rule automata instead of GBNF syntax: for
 * grammars whose rules arrive as trees ({@link Grammar#ofRules}), where there is no syntax to point
 * at, so errors name the rules.
 *
 * <p>Every rule can finish (some path from state 0 to an accepting state reads text bytes and calls
 * only rules that can finish; least fixed point), and no rule can call itself before reading a byte
 * (left recursion: the calls a rule may make from states reached from 0 through calls of rules that
 * match the empty text only). What the engine relies on is then true as for a GBNF grammar: pushing
 * rules without reading a byte stops, and every live state of every rule can reach a full match
 * (the automata are trimmed, so every state reaches acceptance through bytes and calls, and every
 * call can finish).
 */
final class RuleChecks {
  private RuleChecks() {}

  /** Fails with a {@link ConstraintException} naming the rule (and, for left recursion, the cycle). */
  static void check(RuleAutomaton[] rules, String source) {
    BitSet finishing = fixpoint(rules, true);
    for (int k = 0; k < rules.length; k++) {
      if (!finishing.get(k)) {
        throw new ConstraintException(source + ": rule \"" + rules[k].name
            + "\" never finishes: every way through it calls a rule that never finishes (itself, through recursion)");
      }
    }
    BitSet nullable = fixpoint(rules, false);
    List<List<Integer>> left = new ArrayList<>();
    for (RuleAutomaton r : rules) {
      left.add(leftCalls(r, nullable));
    }
    for (int k = 0; k < rules.length; k++) {
      List<Integer> cycle = cycle(k, left);
      if (cycle != null) {
        StringBuilder path = new StringBuilder();
        for (int c : cycle) {
          path.append(path.length() == 0 ? "" : " -> ").append(rules[c].name);
        }
        throw new ConstraintException(source + ": rule \"" + rules[k].name
            + "\" is left-recursive (calls itself before reading a byte): " + path);
      }
    }
  }

  /**
   * The rules that can reach acceptance from state 0 through calls of rules already in the set and,
   * when {@code bytes}, text bytes too (can finish); without bytes: match the empty text.
   */
  private static BitSet fixpoint(RuleAutomaton[] rules, boolean bytes) {
    BitSet done = new BitSet();
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int k = 0; k < rules.length; k++) {
        if (!done.get(k) && reachesAccept(rules[k], done, bytes)) {
          done.set(k);
          changed = true;
        }
      }
    }
    return done;
  }

  private static boolean reachesAccept(RuleAutomaton r, BitSet callable, boolean bytes) {
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

  /** The rules {@code r} may call before reading a byte. */
  private static List<Integer> leftCalls(RuleAutomaton r, BitSet nullable) {
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

  /** The shortest path {@code start -> ... -> start} in {@code graph}, or null. */
  private static List<Integer> cycle(int start, List<List<Integer>> graph) {
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
}
