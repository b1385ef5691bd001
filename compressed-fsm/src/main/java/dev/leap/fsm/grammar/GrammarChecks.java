package dev.leap.fsm.grammar;

import dev.leap.fsm.Excerpt;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks a parsed grammar must pass before it is compiled, each failing with a {@link
 * GrammarSyntaxException} at the offending place: no rule defined twice, a {@code root} rule, every
 * referenced rule defined, every rule reachable from {@code root}, no left recursion (a rule that
 * can reach itself without reading a byte, through nullable prefixes too), and every rule able to
 * finish (it matches some finite text).
 *
 * <p>What the engine relies on afterwards: with no left recursion, pushing rules without reading a
 * byte always stops (the stack closure is finite); with every rule productive, every live state of
 * every rule automaton can still reach a full match, so "not dead" means "a prefix of the language".
 */
final class GrammarChecks {
  private GrammarChecks() {}

  /** The rules by name in definition order, checked. */
  static Map<String, Gbnf.Rule> check(List<Gbnf.Rule> rules) {
    Map<String, Gbnf.Rule> byName = new LinkedHashMap<>();
    for (Gbnf.Rule r : rules) {
      Gbnf.Rule prev = byName.putIfAbsent(r.name(), r);
      if (prev != null) {
        throw new GrammarSyntaxException(r.line(), r.column(),
            "rule \"" + r.name() + "\" is defined twice (first at line " + prev.line() + ")");
      }
    }
    if (!byName.containsKey("root")) {
      throw new GrammarSyntaxException(1, 1, "the grammar has no rule named \"root\"");
    }
    for (Gbnf.Rule r : rules) {
      for (Gbnf.Ref ref : refs(r.body())) {
        if (!byName.containsKey(ref.name())) {
          throw new GrammarSyntaxException(ref.line(), ref.column(), "undefined rule \"" + Excerpt.around(ref.name(), -1) + "\"");
        }
      }
    }
    Set<String> reachable = reachable(byName);
    for (Gbnf.Rule r : rules) {
      if (!reachable.contains(r.name())) {
        throw new GrammarSyntaxException(r.line(), r.column(),
            "rule \"" + r.name() + "\" is never used (not reachable from root)");
      }
    }
    leftRecursion(byName);
    productive(byName);
    return byName;
  }

  /** Every reference in {@code e}, in text order. */
  static List<Gbnf.Ref> refs(Gbnf.Expr e) {
    List<Gbnf.Ref> out = new ArrayList<>();
    collect(e, out);
    return out;
  }

  private static void collect(Gbnf.Expr e, List<Gbnf.Ref> out) {
    if (e instanceof Gbnf.Ref r) {
      out.add(r);
    } else if (e instanceof Gbnf.Seq s) {
      s.items().forEach(x -> collect(x, out));
    } else if (e instanceof Gbnf.Alt a) {
      a.options().forEach(x -> collect(x, out));
    } else if (e instanceof Gbnf.Repeat r) {
      collect(r.item(), out);
    }
  }

  private static Set<String> reachable(Map<String, Gbnf.Rule> byName) {
    Set<String> seen = new LinkedHashSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of("root"));
    while (!todo.isEmpty()) {
      String n = todo.pop();
      if (seen.add(n)) {
        for (Gbnf.Ref ref : refs(byName.get(n).body())) {
          todo.push(ref.name());
        }
      }
    }
    return seen;
  }

  /** Rules that can match the empty string (least fixed point). */
  static Set<String> nullable(Map<String, Gbnf.Rule> byName) {
    Set<String> out = new HashSet<>();
    boolean changed = true;
    while (changed) {
      changed = false;
      for (Gbnf.Rule r : byName.values()) {
        if (!out.contains(r.name()) && nullable(r.body(), out)) {
          out.add(r.name());
          changed = true;
        }
      }
    }
    return out;
  }

  private static boolean nullable(Gbnf.Expr e, Set<String> nullableRules) {
    if (e instanceof Gbnf.Lit l) {
      return l.text().isEmpty();
    } else if (e instanceof Gbnf.CharSet) {
      return false;
    } else if (e instanceof Gbnf.Ref r) {
      return nullableRules.contains(r.name());
    } else if (e instanceof Gbnf.Seq s) {
      return s.items().stream().allMatch(x -> nullable(x, nullableRules));
    } else if (e instanceof Gbnf.Alt a) {
      return a.options().stream().anyMatch(x -> nullable(x, nullableRules));
    } else {
      Gbnf.Repeat r = (Gbnf.Repeat) e;
      return r.min() == 0 || nullable(r.item(), nullableRules);
    }
  }

  /** The rules {@code e} may call before reading any byte. */
  private static void leftRefs(Gbnf.Expr e, Set<String> nullableRules, Set<String> out) {
    if (e instanceof Gbnf.Ref r) {
      out.add(r.name());
    } else if (e instanceof Gbnf.Seq s) {
      for (Gbnf.Expr x : s.items()) {
        leftRefs(x, nullableRules, out);
        if (!nullable(x, nullableRules)) {
          return;
        }
      }
    } else if (e instanceof Gbnf.Alt a) {
      a.options().forEach(x -> leftRefs(x, nullableRules, out));
    } else if (e instanceof Gbnf.Repeat r) {
      if (r.max() != 0) {
        leftRefs(r.item(), nullableRules, out);
      }
    }
  }

  private static void leftRecursion(Map<String, Gbnf.Rule> byName) {
    Set<String> nullableRules = nullable(byName);
    Map<String, Set<String>> left = new HashMap<>();
    for (Gbnf.Rule r : byName.values()) {
      Set<String> s = new LinkedHashSet<>();
      leftRefs(r.body(), nullableRules, s);
      left.put(r.name(), s);
    }
    // The first rule (in definition order) on a cycle of left calls: the shortest such cycle.
    for (Gbnf.Rule r : byName.values()) {
      List<String> path = shortestCycle(r.name(), left);
      if (path != null) {
        throw new GrammarSyntaxException(r.line(), r.column(),
            "rule " + r.name() + " is left-recursive: " + String.join(" -> ", path));
      }
    }
  }

  /** The shortest path {@code start -> ... -> start} in {@code graph}, or null. */
  private static List<String> shortestCycle(String start, Map<String, Set<String>> graph) {
    Map<String, String> parent = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>();
    queue.add(start);
    Set<String> seen = new HashSet<>();
    while (!queue.isEmpty()) {
      String n = queue.poll();
      for (String m : graph.get(n)) {
        if (m.equals(start)) {
          List<String> back = new ArrayList<>();
          for (String x = n; !x.equals(start); x = parent.get(x)) {
            back.add(x);
          }
          List<String> path = new ArrayList<>();
          path.add(start);
          for (int i = back.size() - 1; i >= 0; i--) {
            path.add(back.get(i));
          }
          path.add(start);
          return path;
        }
        if (seen.add(m)) {
          parent.put(m, n);
          queue.add(m);
        }
      }
    }
    return null;
  }

  private static void productive(Map<String, Gbnf.Rule> byName) {
    Set<String> done = new HashSet<>();
    boolean changed = true;
    while (changed) {
      changed = false;
      for (Gbnf.Rule r : byName.values()) {
        if (!done.contains(r.name()) && productive(r.body(), done)) {
          done.add(r.name());
          changed = true;
        }
      }
    }
    // Report a rule that needs itself (through other unfinished rules), not just one that calls it.
    Gbnf.Rule first = null;
    for (Gbnf.Rule r : byName.values()) {
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
      throw new GrammarSyntaxException(first.line(), first.column(), "rule \"" + first.name()
          + "\" never finishes: every alternative needs a rule that never finishes (itself, through recursion)");
    }
  }

  private static boolean reachesItself(String start, Map<String, Gbnf.Rule> byName, Set<String> finishing) {
    Deque<String> todo = new ArrayDeque<>(List.of(start));
    Set<String> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      for (Gbnf.Ref ref : refs(byName.get(todo.pop()).body())) {
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

  private static boolean productive(Gbnf.Expr e, Set<String> done) {
    if (e instanceof Gbnf.Lit || e instanceof Gbnf.CharSet) {
      return true;
    } else if (e instanceof Gbnf.Ref r) {
      return done.contains(r.name());
    } else if (e instanceof Gbnf.Seq s) {
      return s.items().stream().allMatch(x -> productive(x, done));
    } else if (e instanceof Gbnf.Alt a) {
      return a.options().stream().anyMatch(x -> productive(x, done));
    } else {
      Gbnf.Repeat r = (Gbnf.Repeat) e;
      return r.min() == 0 || productive(r.item(), done);
    }
  }
}
