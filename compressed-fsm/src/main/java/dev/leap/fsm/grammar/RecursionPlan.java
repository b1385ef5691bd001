package dev.leap.fsm.grammar;

import dev.leap.fsm.internal.Re;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which rules get their own automaton (called through the stack) and which are inlined as
 * sub-expressions of their callers.
 *
 * <p>{@code root} is always compiled. A rule on no recursion cycle is always inlined. Of the rules on
 * cycles, enough are compiled to break every cycle among the inlined ones (a feedback vertex set,
 * chosen greedily: in each remaining strongly connected component, the rule with the most calls in
 * and out within it); the other cycle rules are inlined too. So in {@code value ::= object | ...;
 * object ::= "{" member ... ; member ::= string ":" value}, only {@code value} is called through the
 * stack, and {@code object} and {@code member} are parts of its automaton. Invariant: the calls
 * among inlined rules form no cycle, so inlining terminates.
 */
final class RecursionPlan {
  /** Compiled rules, {@code root} first, then in definition order. */
  final List<String> compiled;

  /** Rules on some recursion cycle (reachable from root). */
  final Set<String> recursive;

  private RecursionPlan(List<String> compiled, Set<String> recursive) {
    this.compiled = compiled;
    this.recursive = recursive;
  }

  static RecursionPlan of(Map<String, GbnfParser.Rule> rules) {
    Map<String, Set<String>> calls = new LinkedHashMap<>();
    for (GbnfParser.Rule r : rules.values()) {
      Set<String> out = new LinkedHashSet<>();
      for (Re.Call ref : GrammarChecks.calls(r.body())) {
        out.add(ref.name());
      }
      calls.put(r.name(), out);
    }
    Set<String> recursive = new LinkedHashSet<>();
    for (Set<String> scc : sccs(calls, Set.of())) {
      String one = scc.iterator().next();
      if (scc.size() > 1 || calls.get(one).contains(one)) {
        recursive.addAll(scc);
      }
    }
    Set<String> cut = new LinkedHashSet<>();
    cut.add("root");
    while (true) {
      boolean any = false;
      for (Set<String> scc : sccs(calls, cut)) {
        String one = scc.iterator().next();
        if (scc.size() == 1 && !calls.get(one).contains(one)) {
          continue;
        }
        any = true;
        String best = null;
        long bestScore = -1;
        for (String n : scc) {
          long out = calls.get(n).stream().filter(scc::contains).count();
          long in = scc.stream().filter(m -> calls.get(m).contains(n)).count();
          if (out * in > bestScore) {
            bestScore = out * in;
            best = n;
          }
        }
        cut.add(best);
      }
      if (!any) {
        break;
      }
    }
    List<String> compiled = new ArrayList<>();
    compiled.add("root");
    for (String n : rules.keySet()) {
      if (!n.equals("root") && cut.contains(n)) {
        compiled.add(n);
      }
    }
    return new RecursionPlan(compiled, recursive);
  }

  /**
   * Strongly connected components of {@code graph} without the nodes in {@code removed} (Tarjan).
   */
  private static List<Set<String>> sccs(Map<String, Set<String>> graph, Set<String> removed) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    List<String> stack = new ArrayList<>();
    Set<String> onStack = new HashSet<>();
    List<Set<String>> out = new ArrayList<>();
    int[] counter = {0};
    for (String n : graph.keySet()) {
      if (!removed.contains(n) && !index.containsKey(n)) {
        strongConnect(n, graph, removed, index, low, stack, onStack, out, counter);
      }
    }
    return out;
  }

  private static void strongConnect(
      String v,
      Map<String, Set<String>> graph,
      Set<String> removed,
      Map<String, Integer> index,
      Map<String, Integer> low,
      List<String> stack,
      Set<String> onStack,
      List<Set<String>> out,
      int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]);
    counter[0]++;
    stack.add(v);
    onStack.add(v);
    for (String w : graph.get(v)) {
      if (removed.contains(w)) {
        continue;
      }
      if (!index.containsKey(w)) {
        strongConnect(w, graph, removed, index, low, stack, onStack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> scc = new LinkedHashSet<>();
      String w;
      do {
        w = stack.remove(stack.size() - 1);
        onStack.remove(w);
        scc.add(w);
      } while (!w.equals(v));
      out.add(scc);
    }
  }
}
