package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Members beyond the listed ones, and {@code patternProperties}: which patterns a member name
 * matches ({@link #patternSchemaFor}), and the key automata of members whose names no listed member
 * has ({@link #member}).
 *
 * <p>Key automata: keys are written in their canonical JSON spelling (so that no spelling of a
 * listed name is one). The keys matching exactly the patterns of a subset S (all subsets of up to
 * {@link #MAX_OVERLAPPING_PATTERNS} patterns, else each pattern alone) are the intersection of S's
 * languages minus the other patterns' and the listed names; such a key's value meets every schema
 * of S. Any other key, where allowed, takes the {@code additionalProperties} value.
 */
final class ExtraMembers {
  /** Most patternProperties whose overlaps are written out (keys matching each subset of them). */
  static final int MAX_OVERLAPPING_PATTERNS = 4;

  private final Converter converter;

  /** Whether objects with {@code properties} may have further members. */
  private final boolean beyondProperties;

  /** Whether some object with {@code properties} was given further members. */
  private boolean besideProperties;

  /** The decoded-name automata of patternProperties patterns (empty: matches nothing). */
  private final Map<String, Optional<Dfa>> namePatterns = new HashMap<>();

  ExtraMembers(Converter converter, boolean beyondProperties) {
    this.converter = converter;
    this.beyondProperties = beyondProperties;
  }

  /**
   * Whether some object with {@code properties} was given further members (a retry without them may
   * fit the limits).
   */
  boolean besideProperties() {
    return besideProperties;
  }

  /**
   * One member whose key neither {@code properties} nor the presence formula lists ({@code
   * listed}), at nesting {@code level}: a key that matches patterns of {@code patternProperties}
   * with the value all of them allow, any other key with the {@code additionalProperties} value.
   * Such members are generated where the schema asks for them: {@code patternProperties}, an
   * explicit {@code additionalProperties} (true or a schema), or an object schema without {@code
   * properties}; {@code null} where none may be generated.
   */
  Re member(ObjectNode o, String ptr, int level, Set<String> listed) {
    JsonNode additional = o.get("additionalProperties");
    boolean others =
        additional == null
            ? !o.has("properties")
            : !(additional.isBoolean() && !additional.asBoolean());
    List<String> patterns = new ArrayList<>();
    o.path("patternProperties").fieldNames().forEachRemaining(patterns::add);
    if (patterns.isEmpty() && !others || o.has("properties") && !beyondProperties) {
      return null;
    }
    besideProperties |= o.has("properties");
    String in = converter.layout.newline(level + 1);
    String colon = converter.layout.colon();
    Re anyKey = rep(StringValues.jsonEncode(new Re.Chars(CharRanges.negate(new int[0]))), 0, -1);
    KeyLanguages keys;
    try {
      keys = keyLanguages(o, ptr, listed, patterns, anyKey, others);
    } catch (AutomatonTooLargeException e) {
      converter.notHonoured(
          patterns.isEmpty() ? "additionalProperties" : "patternProperties",
          ptr,
          "the key languages of the members beyond properties exceed the state limit");
      return null;
    }
    List<Re> out = new ArrayList<>();
    for (int i = 0; i < keys.bySubset().size(); i++) {
      List<String> which = keys.subsets().get(i);
      String p = ptr + "/patternProperties/" + Keywords.escapePointer(which.get(0));
      Re v =
          converter.references.valueOfMerge(
              () -> {
                JsonNode acc = null;
                for (String name : which) {
                  JsonNode schema = o.get("patternProperties").get(name);
                  acc = acc == null ? schema : converter.merge.merge(acc, schema, p);
                }
                return acc;
              },
              p,
              level + 1);
      if (v != NOTHING) {
        out.add(
            seq(lit(in + "\""), new Re.Automaton(keys.bySubset().get(i)), lit("\"" + colon), v));
      }
    }
    if (keys.others() != null) {
      Re v =
          additional != null && additional.isObject()
              ? converter.value(additional, ptr + "/additionalProperties", level + 1)
              : converter.any.value(level + 1, Converter.ANY_DEPTH - 1);
      // With nothing to leave out, the key stays a tree (which has regex text).
      Re key = keys.nothingLeftOut() ? anyKey : new Re.Automaton(keys.others());
      if (v != NOTHING) {
        out.add(seq(lit(in + "\""), key, lit("\"" + colon), v));
      }
    }
    return out.isEmpty() ? null : alt(out);
  }

  /**
   * The key languages of the members beyond the listed ones (canonical JSON-encoded key contents).
   *
   * @param bySubset per subset of patterns, the keys matching exactly those (and no listed name)
   * @param subsets the patterns of each subset
   * @param others the keys matching no pattern and no listed name (null: none, or not allowed)
   * @param nothingLeftOut there are neither patterns nor listed names to leave out of {@code
   *     others}
   */
  private record KeyLanguages(
      List<Dfa> bySubset, List<List<String>> subsets, Dfa others, boolean nothingLeftOut) {}

  private KeyLanguages keyLanguages(
      ObjectNode o,
      String ptr,
      Set<String> listed,
      List<String> patterns,
      Re anyKey,
      boolean others) {
    int max = converter.options.maxDfaStates();
    Dfa taken = null;
    if (!listed.isEmpty()) {
      List<Re> names = new ArrayList<>();
      listed.forEach(n -> names.add(StringValues.jsonEncode(lit(n))));
      taken = Automata.compile(alt(names), "JSON Schema", max);
    }
    Dfa canonical = Automata.compile(anyKey, "JSON Schema", max);
    List<Dfa> keys = new ArrayList<>();
    for (String pat : patterns) {
      // pattern() spells characters canonically, except a lenient fallback: keep keys canonical.
      Dfa lang =
          Automata.compile(
              converter.strings.pattern(
                  pat, ptr + "/patternProperties/" + Keywords.escapePointer(pat)),
              "patternProperties",
              max);
      keys.add(lang == null ? null : Automata.intersect(lang, canonical, max, "patternProperties"));
    }
    // Keys matching exactly the patterns of subset S (all subsets when few, else singletons).
    int k = patterns.size();
    List<Integer> subsets = new ArrayList<>();
    if (k <= MAX_OVERLAPPING_PATTERNS) {
      for (int sub = 1; sub < (1 << k); sub++) {
        subsets.add(sub);
      }
    } else {
      for (int i = 0; i < k; i++) {
        subsets.add(1 << i);
      }
    }
    List<Dfa> bySubset = new ArrayList<>();
    List<List<String>> which = new ArrayList<>();
    for (int sub : subsets) {
      Dfa lang = null;
      boolean first = true;
      for (int i = 0; i < k && (first || lang != null); i++) {
        if ((sub & (1 << i)) != 0) {
          lang =
              first
                  ? keys.get(i)
                  : keys.get(i) == null
                      ? null
                      : Automata.intersect(lang, keys.get(i), max, "patternProperties");
          first = false;
        }
      }
      for (int i = 0; i < k && lang != null; i++) {
        if ((sub & (1 << i)) == 0 && keys.get(i) != null) {
          lang = Automata.minus(lang, keys.get(i), max, "patternProperties");
        }
      }
      if (lang != null && taken != null) {
        lang = Automata.minus(lang, taken, max, "patternProperties");
      }
      if (lang != null) {
        List<String> w = new ArrayList<>();
        for (int i = 0; i < k; i++) {
          if ((sub & (1 << i)) != 0) {
            w.add(patterns.get(i));
          }
        }
        bySubset.add(lang);
        which.add(w);
      }
    }
    Dfa otherKeys = null;
    if (others) {
      otherKeys = canonical;
      for (Dfa key : keys) {
        otherKeys =
            otherKeys == null || key == null
                ? otherKeys
                : Automata.minus(otherKeys, key, max, "patternProperties");
      }
      if (otherKeys != null && taken != null) {
        otherKeys = Automata.minus(otherKeys, taken, max, "additionalProperties");
      }
    }
    return new KeyLanguages(bySubset, which, otherKeys, keys.isEmpty() && taken == null);
  }

  /** {@code schema} of listed member {@code name}, merged with the patternProperties it matches. */
  JsonNode withPatternProperties(ObjectNode o, String name, JsonNode schema, String ptr) {
    JsonNode extra = patternSchemaFor(o, name, ptr);
    return extra == null ? schema : converter.merge.merge(schema, extra, ptr);
  }

  /** The patternProperties schemas that apply to member {@code name}, merged; null if none. */
  JsonNode patternSchemaFor(ObjectNode o, String name, String ptr) {
    JsonNode pp = o.get("patternProperties");
    if (pp == null) {
      return null;
    }
    JsonNode acc = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = pp.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String p = ptr + "/patternProperties/" + Keywords.escapePointer(e.getKey());
      if (nameMatches(e.getKey(), name, p)) {
        acc = acc == null ? e.getValue() : converter.merge.merge(acc, e.getValue(), p);
      }
    }
    return acc;
  }

  /**
   * Whether member name {@code name} matches {@code pattern} (searched, as JSON Schema reads it).
   */
  private boolean nameMatches(String pattern, String name, String ptr) {
    Re decoded;
    try {
      decoded = EcmaPattern.searchLanguage(pattern);
    } catch (ConstraintException e) {
      converter.notHonoured(
          "patternProperties",
          ptr,
          "outside Leap's regex dialect: " + e.getMessage().lines().findFirst().orElse(""));
      return false;
    }
    Dfa dfa =
        namePatterns
            .computeIfAbsent(
                pattern,
                k ->
                    Optional.ofNullable(
                        Automata.compile(
                            decoded, "patternProperties", converter.options.maxDfaStates())))
            .orElse(null);
    return dfa != null && dfa.matches(name.getBytes(StandardCharsets.UTF_8));
  }
}
