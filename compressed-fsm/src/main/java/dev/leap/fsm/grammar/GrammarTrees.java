package dev.leap.fsm.grammar;

import dev.leap.fsm.internal.Re;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The parser's rule trees resolved for compilation: a compiled rule's body with every inlined rule
 * substituted (one shared node per inlined rule, so the NFA builds it once per exit) and every call
 * of a compiled rule resolved to its index ({@link Re.Call#resolved}, one node per called rule; the
 * NFA builder writes it as the call's marker). A grammar without recursion becomes one tree with no
 * call, compiled exactly as a regex is.
 */
final class GrammarTrees {
  private final Map<String, GbnfParser.Rule> rules;
  private final Map<String, Integer> compiledIndex = new HashMap<>();
  private final Map<String, Re> inlined = new HashMap<>();
  private final Map<Integer, Re> calls = new HashMap<>();

  GrammarTrees(Map<String, GbnfParser.Rule> rules, List<String> compiled) {
    this.rules = rules;
    for (int i = 0; i < compiled.size(); i++) {
      compiledIndex.put(compiled.get(i), i);
    }
  }

  /** The tree of compiled rule {@code name}'s body. */
  Re body(String name) {
    return tree(rules.get(name).body());
  }

  private Re tree(Re e) {
    if (e instanceof Re.Call c) {
      Integer k = compiledIndex.get(c.name());
      if (k != null) {
        return calls.computeIfAbsent(k, c::resolved);
      }
      Re re = inlined.get(c.name());
      if (re == null) {
        re = tree(rules.get(c.name()).body());
        inlined.put(c.name(), re);
      }
      return re;
    } else if (e instanceof Re.Concat s) {
      List<Re> items = new ArrayList<>();
      for (Re x : s.items()) {
        items.add(tree(x));
      }
      return new Re.Concat(items);
    } else if (e instanceof Re.Alt a) {
      List<Re> options = new ArrayList<>();
      for (Re x : a.options()) {
        options.add(tree(x));
      }
      return new Re.Alt(options);
    } else if (e instanceof Re.Repeat r) {
      return new Re.Repeat(tree(r.item()), r.min(), r.max());
    } else {
      return e; // a leaf: Empty, Chars, Automaton
    }
  }
}
