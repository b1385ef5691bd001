package dev.leap.fsm.grammar;

import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RuleCalls;
import dev.leap.fsm.internal.Trees;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Grammar syntax to regex trees ({@link Re}): a compiled rule's body with every inlined rule
 * substituted (one shared node per inlined rule, so the NFA builds it once per exit) and every call
 * of a compiled rule written as its marker ({@link RuleCalls#call}). A grammar without recursion
 * becomes one marker-free tree, compiled exactly as a regex is.
 */
final class GrammarTrees {
  private final Map<String, Gbnf.Rule> rules;
  private final Map<String, Integer> compiledIndex = new HashMap<>();
  private final Map<String, Re> inlined = new HashMap<>();
  private final Map<Integer, Re> markers = new HashMap<>();

  GrammarTrees(Map<String, Gbnf.Rule> rules, List<String> compiled) {
    this.rules = rules;
    for (int i = 0; i < compiled.size(); i++) {
      compiledIndex.put(compiled.get(i), i);
    }
  }

  /** The tree of compiled rule {@code name}'s body. */
  Re body(String name) {
    return tree(rules.get(name).body());
  }

  private Re tree(Gbnf.Expr e) {
    if (e instanceof Gbnf.Lit l) {
      return Trees.lit(l.text());
    } else if (e instanceof Gbnf.CharSet c) {
      return new Re.Chars(c.ranges());
    } else if (e instanceof Gbnf.Ref r) {
      Integer k = compiledIndex.get(r.name());
      if (k != null) {
        return markers.computeIfAbsent(k, RuleCalls::call);
      }
      Re re = inlined.get(r.name());
      if (re == null) {
        re = tree(rules.get(r.name()).body());
        inlined.put(r.name(), re);
      }
      return re;
    } else if (e instanceof Gbnf.Seq s) {
      List<Re> items = new ArrayList<>();
      for (Gbnf.Expr x : s.items()) {
        items.add(tree(x));
      }
      return new Re.Concat(items);
    } else if (e instanceof Gbnf.Alt a) {
      List<Re> options = new ArrayList<>();
      for (Gbnf.Expr x : a.options()) {
        options.add(tree(x));
      }
      return new Re.Alt(options);
    } else {
      Gbnf.Repeat r = (Gbnf.Repeat) e;
      return Trees.rep(tree(r.item()), r.min(), r.max());
    }
  }
}
