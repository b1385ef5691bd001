package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.Trees;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Proofs that no JSON value is valid against two schemas (what {@code oneOf} needs to become an
 * alternation). The proof reads the schemas, never the languages Leap generates for them: a
 * generated language is a part of the valid values (one key order, no unasked-for members, one
 * spelling per number), so two disjoint generated languages say nothing about the valid values.
 *
 * <p>Sound, not complete: only the keywords below are read, and leaving a keyword out only makes a
 * schema allow more, so a proof on the rest holds for the whole. The kinds of value a schema allows
 * are read from {@code type}, {@code const}/{@code enum} and its {@code anyOf}/{@code oneOf}
 * branches. Two schemas are disjoint when, for every kind of value both allow: their {@code
 * const}/{@code enum} values share none; or (numbers) their bounds leave no common number; or
 * (objects) a member that one requires is forbidden by the other ({@code false}, {@code {"not":
 * {}}}, or {@code additionalProperties: false} without a matching pattern), or is required by both
 * with provably disjoint values.
 */
final class Disjoint {
  /** Kinds of JSON values; numbers split by whether they are whole (JSON Schema's integers). */
  enum Kind {
    NULL,
    BOOLEAN,
    OBJECT,
    ARRAY,
    STRING,
    WHOLE,
    FRACTION
  }

  /** How deep member values are compared. */
  static final int MAX_DEPTH = 8;

  /**
   * String lengths above this are read as unbounded (an over-approximation keeps a proof sound).
   */
  static final int MAX_LENGTH_READ = 256;

  private final UnaryOperator<JsonNode> resolve;

  /** {@code resolve} follows a schema's top-level {@code $ref} and merges its {@code allOf}. */
  Disjoint(UnaryOperator<JsonNode> resolve) {
    this.resolve = resolve;
  }

  boolean proven(JsonNode a, JsonNode b) {
    return proven(a, b, 0);
  }

  /** {@code schema} with its top-level reference followed and allOf merged. */
  JsonNode resolved(JsonNode schema) {
    return resolve.apply(schema);
  }

  /**
   * The kinds of value for which no value is valid against both (kinds neither allows included).
   */
  Set<Kind> provenKinds(JsonNode a, JsonNode b) {
    Set<Kind> out = EnumSet.allOf(Kind.class);
    JsonNode ra = resolve.apply(a);
    JsonNode rb = resolve.apply(b);
    if (isFalse(ra) || isFalse(rb)) {
      return out;
    }
    if (!ra.isObject() || !rb.isObject()) {
      return EnumSet.noneOf(Kind.class);
    }
    Set<Kind> common = kinds(ra);
    common.retainAll(kinds(rb));
    for (Kind k : common) {
      if (!provenFor(k, ra, rb, 0)) {
        out.remove(k);
      }
    }
    return out;
  }

  private boolean proven(JsonNode a, JsonNode b, int depth) {
    if (depth > MAX_DEPTH) {
      return false;
    }
    a = resolve.apply(a);
    b = resolve.apply(b);
    if (isFalse(a) || isFalse(b)) {
      return true;
    }
    if (!a.isObject() || !b.isObject()) {
      return false; // true, or not a schema
    }
    Set<Kind> common = kinds(a);
    common.retainAll(kinds(b));
    for (Kind k : common) {
      if (!provenFor(k, a, b, depth)) {
        return false;
      }
    }
    return true;
  }

  private boolean provenFor(Kind k, JsonNode a, JsonNode b, int depth) {
    List<JsonNode> va = literals(a);
    List<JsonNode> vb = literals(b);
    if (va != null && vb != null) {
      for (JsonNode x : va) {
        for (JsonNode y : vb) {
          if (kind(x) == k && kind(y) == k && sameValue(x, y)) {
            return false;
          }
        }
      }
      return true;
    }
    if (k == Kind.WHOLE || k == Kind.FRACTION) {
      return disjointBounds(a, b);
    }
    if (k == Kind.STRING) {
      if (disjointLengths(a, b)) {
        return true;
      }
      Dfa la = decodedStrings(a);
      Dfa lb = la == null ? null : decodedStrings(b);
      try {
        return la != null && lb != null && Automata.intersect(la, lb, 200_000, "oneOf") == null;
      } catch (AutomatonTooLargeException e) {
        return false;
      }
    }
    if (k == Kind.OBJECT) {
      for (JsonNode[] pair : new JsonNode[][] {{a, b}, {b, a}}) {
        for (JsonNode r : pair[0].path("required")) {
          String p = r.asText();
          JsonNode other = member(pair[1], p);
          if (isFalse(resolve.apply(other))) {
            return true;
          }
          if (requires(pair[1], p) && proven(member(pair[0], p), other, depth + 1)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The kinds of values {@code schema} allows by {@code type} and {@code const}/{@code enum}. */
  Set<Kind> kinds(JsonNode schema) {
    return kinds(schema, 0);
  }

  /**
   * The kinds of value that resolved object schema {@code schema} allows, read from {@code type},
   * {@code const}/{@code enum}, and its {@code anyOf} and {@code oneOf} branches (a value valid
   * against either is valid against one of its branches, so of one of their kinds).
   */
  private Set<Kind> kinds(JsonNode schema, int depth) {
    Set<Kind> out = EnumSet.allOf(Kind.class);
    JsonNode t = schema.get("type");
    if (t != null) {
      Set<Kind> typed = EnumSet.noneOf(Kind.class);
      for (JsonNode x : t.isArray() ? t : List.of(t)) {
        switch (x.asText()) {
          case "null" -> typed.add(Kind.NULL);
          case "boolean" -> typed.add(Kind.BOOLEAN);
          case "object" -> typed.add(Kind.OBJECT);
          case "array" -> typed.add(Kind.ARRAY);
          case "string" -> typed.add(Kind.STRING);
          case "integer" -> typed.add(Kind.WHOLE);
          case "number" -> {
            typed.add(Kind.WHOLE);
            typed.add(Kind.FRACTION);
          }
          default -> typed.addAll(EnumSet.allOf(Kind.class)); // not a type: proves nothing
        }
      }
      out.retainAll(typed);
    }
    List<JsonNode> lits = literals(schema);
    if (lits != null) {
      Set<Kind> of = EnumSet.noneOf(Kind.class);
      lits.forEach(v -> of.add(kind(v)));
      out.retainAll(of);
    }
    for (String k : new String[] {"anyOf", "oneOf"}) {
      JsonNode branches = schema.get(k);
      if (depth < MAX_DEPTH && branches != null && branches.isArray() && !branches.isEmpty()) {
        Set<Kind> union = EnumSet.noneOf(Kind.class);
        for (JsonNode branch : branches) {
          JsonNode r = resolve.apply(branch);
          union.addAll(
              r.isObject()
                  ? kinds(r, depth + 1)
                  : isFalse(r) ? EnumSet.noneOf(Kind.class) : EnumSet.allOf(Kind.class));
        }
        out.retainAll(union);
      }
    }
    return out;
  }

  /**
   * The values {@code const} and {@code enum} allow (both must hold), or null if neither is given.
   */
  static List<JsonNode> literals(JsonNode schema) {
    List<JsonNode> out = null;
    if (schema.has("enum") && schema.get("enum").isArray()) {
      out = new ArrayList<>();
      schema.get("enum").forEach(out::add);
    }
    if (schema.has("const")) {
      JsonNode c = schema.get("const");
      if (out == null || out.stream().anyMatch(v -> sameValue(v, c))) {
        out = new ArrayList<>(List.of(c));
      } else {
        out = new ArrayList<>();
      }
    }
    return out;
  }

  static Kind kind(JsonNode v) {
    if (v.isNull()) {
      return Kind.NULL;
    }
    if (v.isBoolean()) {
      return Kind.BOOLEAN;
    }
    if (v.isObject()) {
      return Kind.OBJECT;
    }
    if (v.isArray()) {
      return Kind.ARRAY;
    }
    if (v.isNumber()) {
      return v.decimalValue().stripTrailingZeros().scale() <= 0 ? Kind.WHOLE : Kind.FRACTION;
    }
    return Kind.STRING;
  }

  /**
   * JSON Schema's equality: numbers by value, containers member by member, everything else as JSON.
   */
  static boolean sameValue(JsonNode x, JsonNode y) {
    if (x.isNumber() && y.isNumber()) {
      return x.decimalValue().compareTo(y.decimalValue()) == 0;
    }
    if (x.isArray() && y.isArray()) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!sameValue(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (x.isObject() && y.isObject()) {
      if (x.size() != y.size()) {
        return false;
      }
      for (Iterator<String> it = x.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!y.has(k) || !sameValue(x.get(k), y.get(k))) {
          return false;
        }
      }
      return true;
    }
    return x.equals(y);
  }

  /**
   * A DFA over the UTF-8 bytes of decoded strings that accepts at least every string valid against
   * {@code schema}'s {@code pattern}, lengths and {@code const}/{@code enum} (never fewer: an
   * over-approximation is what a proof may use), or null if it cannot say. A pattern outside Leap's
   * dialect says nothing.
   */
  static Dfa decodedStrings(JsonNode schema) {
    Re anyCp = new Re.Chars(CharRanges.negate(new int[0]));
    List<Re> parts = new ArrayList<>();
    if (schema.path("pattern").isTextual()) {
      try {
        parts.add(EcmaPattern.searchLanguage(schema.get("pattern").asText()));
      } catch (ConstraintException e) {
        // outside the dialect: says nothing
      }
    }
    List<JsonNode> lits = literals(schema);
    if (lits != null) {
      List<Re> strings = new ArrayList<>();
      for (JsonNode v : lits) {
        if (v.isTextual()) {
          strings.add(Trees.lit(v.asText()));
        }
      }
      parts.add(strings.isEmpty() ? Trees.NOTHING : Trees.alt(strings));
    }
    int min = schema.path("minLength").canConvertToInt() ? schema.get("minLength").asInt() : 0;
    int max = schema.path("maxLength").canConvertToInt() ? schema.get("maxLength").asInt() : -1;
    min = min > MAX_LENGTH_READ ? 0 : min;
    max = max > MAX_LENGTH_READ ? -1 : max;
    if (min > 0 || max >= 0) {
      parts.add(Trees.rep(anyCp, min, max));
    }
    try {
      Dfa acc = null;
      for (Re part : parts) {
        Dfa d = Automata.compile(part, "oneOf", 20_000);
        acc = d == null ? null : acc == null ? d : Automata.intersect(acc, d, 20_000, "oneOf");
        if (acc == null) {
          return null; // an empty language has no DFA: says nothing (never wrong)
        }
      }
      return acc;
    } catch (ConstraintException e) {
      return null;
    }
  }

  /** Whether the string lengths {@code a} and {@code b} allow have none in common. */
  static boolean disjointLengths(JsonNode a, JsonNode b) {
    long minA = a.path("minLength").asLong(0);
    long minB = b.path("minLength").asLong(0);
    long maxA = a.path("maxLength").isNumber() ? a.get("maxLength").asLong() : Long.MAX_VALUE;
    long maxB = b.path("maxLength").isNumber() ? b.get("maxLength").asLong() : Long.MAX_VALUE;
    return maxA < minB || maxB < minA;
  }

  /** Whether the numeric bounds of {@code a} and {@code b} leave no number in both. */
  static boolean disjointBounds(JsonNode a, JsonNode b) {
    Bound ba = Bound.of(a);
    Bound bb = Bound.of(b);
    return below(ba.hi, ba.hiEx, bb.lo, bb.loEx) || below(bb.hi, bb.hiEx, ba.lo, ba.loEx);
  }

  /** Whether every number at most {@code hi} is less than every number at least {@code lo}. */
  private static boolean below(BigDecimal hi, boolean hiEx, BigDecimal lo, boolean loEx) {
    if (hi == null || lo == null) {
      return false;
    }
    int c = hi.compareTo(lo);
    return c < 0 || (c == 0 && (hiEx || loEx));
  }

  private record Bound(BigDecimal lo, boolean loEx, BigDecimal hi, boolean hiEx) {
    static Bound of(JsonNode schema) {
      BigDecimal lo = null;
      BigDecimal hi = null;
      boolean loEx = false;
      boolean hiEx = false;
      if (schema.path("minimum").isNumber()) {
        lo = schema.get("minimum").decimalValue();
        loEx =
            schema.path("exclusiveMinimum").isBoolean()
                && schema.get("exclusiveMinimum").asBoolean(); // draft 4
      }
      if (schema.path("maximum").isNumber()) {
        hi = schema.get("maximum").decimalValue();
        hiEx =
            schema.path("exclusiveMaximum").isBoolean()
                && schema.get("exclusiveMaximum").asBoolean();
      }
      if (schema.path("exclusiveMinimum").isNumber()) {
        BigDecimal e = schema.get("exclusiveMinimum").decimalValue();
        if (lo == null || e.compareTo(lo) >= 0) {
          lo = e;
          loEx = true;
        }
      }
      if (schema.path("exclusiveMaximum").isNumber()) {
        BigDecimal e = schema.get("exclusiveMaximum").decimalValue();
        if (hi == null || e.compareTo(hi) <= 0) {
          hi = e;
          hiEx = true;
        }
      }
      return new Bound(lo, loEx, hi, hiEx);
    }
  }

  private static boolean requires(JsonNode schema, String name) {
    for (JsonNode r : schema.path("required")) {
      if (r.asText().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The schema member {@code name} of an object must satisfy, as far as {@code properties} and
   * {@code additionalProperties} say ({@code true} where a pattern might apply: patterns are not
   * read).
   */
  private static JsonNode member(JsonNode schema, String name) {
    JsonNode p = schema.path("properties").get(name);
    if (p != null) {
      return p;
    }
    if (schema.has("patternProperties")) {
      return BooleanNode.TRUE;
    }
    JsonNode ap = schema.get("additionalProperties");
    return ap == null ? BooleanNode.TRUE : ap;
  }

  /**
   * Whether {@code schema} allows no value: {@code false}, or {@code not} of a schema that allows
   * everything.
   */
  static boolean isFalse(JsonNode schema) {
    if (schema.isBoolean()) {
      return !schema.asBoolean();
    }
    if (schema.isObject() && schema.has("not")) {
      JsonNode n = schema.get("not");
      return (n.isBoolean() && n.asBoolean()) || (n.isObject() && n.isEmpty());
    }
    return false;
  }
}
