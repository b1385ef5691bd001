package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.internal.Re;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Recursion as grammar rules instead of unrolled: one conversion of a schema in which every
 * recursive {@code $ref} (its target can reach the same reference again) is a call of a rule whose
 * body is the target's value (with {@link Converter#sharedRules}, every {@code $ref} named from two
 * or more places too: a large automaton's copies of them), and every free-form value ({@code true},
 * {@code {}}, an {@code additionalProperties: true} or missing {@code items}) is a call of the rule
 * {@value #VALUE}: any JSON value, nested without bound, with the same string and number syntax as
 * {@link AnyValues}. The rules become a {@link Grammar} through {@link Grammar#ofRules}.
 *
 * <p>Only for the compact layout: the indented layout writes a value's text by its nesting level,
 * so a rule would be needed per level, and recursion makes the levels unbounded. Invariants: rule 0
 * is {@value #ROOT}, the document's value; a reference is one rule whatever the path to it (its
 * target converted once, from no unrolling context: the exact value, recursion included); every
 * rule is converted exactly once, after the document ({@link #convert}); a rule call is never
 * inside a string, key or intersection (references are values, and values are only concatenated,
 * alternated and repeated), so the only automata built from trees holding calls ({@link Re.Call},
 * built as marker bytes by the NFA builder) are those of values, where a call's marker bytes can
 * never match text.
 */
final class RecursiveRules {
  /** The start rule's name. */
  static final String ROOT = "root";

  /**
   * The free-form value rule's name (cannot be a reference's canonical name, which is a URI or
   * starts with {@code #}).
   */
  static final String VALUE = "(any JSON value)";

  private final Converter converter;
  private final List<String> names = new ArrayList<>(List.of(ROOT));
  private final List<Re> bodies = new ArrayList<>(Collections.singletonList((Re) null));

  /** Rule index by reference key (canonical name) or {@link #VALUE}. */
  private final Map<String, Integer> byName = new HashMap<>();

  private final Map<Integer, Re> calls = new HashMap<>();

  /** Rules whose body is still to convert: index and body. */
  private final ArrayDeque<Object[]> pending = new ArrayDeque<>();

  private boolean recursion;

  RecursiveRules(Converter converter) {
    if (!converter.layout.compact()) {
      throw new IllegalArgumentException("recursion as rules needs the compact layout");
    }
    this.converter = converter;
  }

  /**
   * The call of the rule for reference {@code key} (canonical name) to {@code target}, first met at
   * {@code ptr}.
   */
  Re reference(String key, JsonNode target, String ptr) {
    return rule(key, displayName(key), () -> converter.value(target, ptr, 0));
  }

  /**
   * The call of the rule named by {@code key}, whose body {@code body} gives (converted later, from
   * no unrolling context, once per key). For a schema merged with a recursive reference's target (a
   * {@code $ref} with sibling keywords, an {@code allOf}): the key is made of the references and
   * the merged schema's JSON, document content, so a merge met again inside itself is the same rule
   * and the set of rules stays finite.
   */
  Re rule(String key, String name, Supplier<Re> body) {
    recursion = true;
    Integer k = byName.get(key);
    if (k == null) {
      k = add(key, name);
      pending.add(new Object[] {k, body});
    }
    return call(k);
  }

  /** The call of the free-form value rule. */
  Re anyValue() {
    Integer k = byName.get(VALUE);
    if (k == null) {
      k = add(VALUE, VALUE);
      Re v = call(k);
      Re member = seq(StringValues.anyString(), lit(":"), v);
      bodies.set(
          k,
          alt(
              List.of(
                  lit("null"),
                  lit("true"),
                  lit("false"),
                  converter.numbers.number(JsonNodeFactory.instance.objectNode(), ""),
                  StringValues.anyString(),
                  alt(List.of(lit("[]"), seq(lit("["), v, rep(seq(lit(","), v), 0, -1), lit("]")))),
                  alt(
                      List.of(
                          lit("{}"),
                          seq(lit("{"), member, rep(seq(lit(","), member), 0, -1), lit("}")))))));
    }
    return call(k);
  }

  /** Whether the conversion called any rule (else the grammar is the plain DFA of the document). */
  boolean any() {
    return names.size() > 1;
  }

  /**
   * Whether the conversion met a recursive reference (called a rule other than {@value #VALUE};
   * with {@link Converter#sharedRules}, a shared reference counts too).
   */
  boolean recursion() {
    return recursion;
  }

  /** The rules' names, {@value #ROOT} first. */
  List<String> names() {
    return List.copyOf(names);
  }

  /** Converts the document and then every rule it calls (which may add rules); once. */
  void convert() {
    bodies.set(0, converter.convert());
    while (!pending.isEmpty()) {
      Object[] p = pending.poll();
      @SuppressWarnings("unchecked")
      Supplier<Re> body = (Supplier<Re>) p[1];
      bodies.set((Integer) p[0], body.get());
    }
  }

  /**
   * Compiles the converted rules ({@link #convert} first).
   *
   * @throws dev.leap.fsm.ConstraintException a rule never finishes or is left-recursive (see {@link
   *     Grammar#ofRules}), or a limit
   */
  Grammar compile(String source) {
    return Grammar.ofRules(source, List.copyOf(names), bodies, converter.options.maxDfaStates());
  }

  private int add(String key, String name) {
    int k = names.size();
    names.add(name);
    bodies.add(null);
    byName.put(key, k);
    return k;
  }

  /**
   * A reference's name as a rule: its canonical name, the fragment alone in a document without a
   * base URI.
   */
  static String displayName(String key) {
    String base = SchemaIndex.DEFAULT_BASE.toString();
    return key.equals(base) ? "#" : key.startsWith(base + "#") ? key.substring(base.length()) : key;
  }

  /** The call of rule {@code k}: one node per rule (the NFA builds a shared node once per exit). */
  private Re call(int k) {
    return calls.computeIfAbsent(k, i -> Re.Call.of(names.get(i), i));
  }
}
