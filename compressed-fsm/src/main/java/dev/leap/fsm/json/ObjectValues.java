package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.Trees;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Object values: which members are written, in which order, with which values; the choices of
 * present and absent members are laid out by {@link MemberLayout}.
 *
 * <p>The members, in order: those of {@code properties} (each value merged with the
 * patternProperties its name matches); those {@code required} names that {@code properties} does
 * not list; those the presence formula names that neither lists, in alphabetical order (the order
 * {@link KeyOrder} also uses), where {@code additionalProperties} allows them; then members beyond
 * all of these ({@link ExtraMembers}). The presence formula is the conjunction of the presence
 * combinators on the object ({@link PresenceSchemas}) and its dependencies ({@link Dependencies});
 * a dependency that constrains a member's value is a {@link Dependencies.ValueConstraint}, and the
 * member is written in one version per subset of its value constraints.
 */
final class ObjectValues {
  /**
   * Most value constraints on one member (its value is written in a version per subset of them).
   */
  static final int MAX_MEMBER_CONSTRAINTS = 3;

  /**
   * A lean conversion ({@link Converter#lean}) gives up at this fraction of {@link
   * MemberLayout#MAX_COST}: its members' sizes are those of lean trees, which may be smaller than
   * the minimal automata the conversion without it measures (the layout is the same).
   */
  static final int LEAN_COST_MARGIN = 8;

  /**
   * An object member: its value's language, and the schema that language was made from (for
   * versions).
   */
  record Member(String name, Re value, JsonNode schema, boolean required) {}

  private final Converter converter;

  ObjectValues(Converter converter) {
    this.converter = converter;
  }

  /**
   * The objects object schema {@code o} allows at nesting {@code level}, whose members also satisfy
   * {@code combined}.
   */
  Re value(ObjectNode o, String ptr, int level, Presence combined) {
    Set<String> required = new LinkedHashSet<>();
    o.path("required").forEach(r -> required.add(r.asText()));
    List<Member> members = listedMembers(o, ptr, level, required);
    JsonNode additional = o.get("additionalProperties");
    boolean closed = additional != null && additional.isBoolean() && !additional.asBoolean();
    JsonNode props = o.get("properties");
    for (String r : required) {
      if (props == null || !props.has(r)) {
        members.add(
            new Member(r, unlistedValue(o, r, ptr, level), unlistedSchema(o, r, ptr), true));
      }
    }
    List<Dependencies.ValueConstraint> constraints = new ArrayList<>();
    Presence formula =
        Presence.and(List.of(combined, converter.dependencies.formula(o, ptr, constraints)));
    int minProps = o.has("minProperties") ? Converter.nonNegative(o, "minProperties", ptr) : 0;
    int maxProps = o.has("maxProperties") ? Converter.nonNegative(o, "maxProperties", ptr) : -1;
    Set<String> listed = new LinkedHashSet<>();
    members.forEach(m -> listed.add(m.name()));
    // Members the formula names but properties do not list: optional members after the listed
    // ones where additionalProperties allows them (in alphabetical order, which KeyOrder also
    // uses), else absent.
    Set<String> named = new TreeSet<>();
    formula.names(named);
    for (String n : named) {
      if (!listed.contains(n)) {
        if (closed && converter.extraMembers.patternSchemaFor(o, n, ptr) == null) {
          formula = formula.assign(n, false);
          continue;
        }
        members.add(
            new Member(n, unlistedValue(o, n, ptr, level), unlistedSchema(o, n, ptr), false));
        listed.add(n);
      }
    }
    Re extra = maxProps == 0 ? null : converter.extraMembers.member(o, ptr, level, listed);
    // Each member is written in a version per subset of its value constraints (version 0: none).
    String colon = converter.layout.colon();
    String in = converter.layout.newline(level + 1);
    Re[][] versions = new Re[members.size()][];
    long[][] sizes = new long[members.size()][];
    int[][] constraintIds = new int[members.size()][];
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      List<Integer> mine = new ArrayList<>();
      for (int k = 0; k < constraints.size(); k++) {
        if (constraints.get(k).member().equals(m.name())) {
          mine.add(k);
        }
      }
      if (mine.size() > MAX_MEMBER_CONSTRAINTS) {
        converter.notHonoured(
            o.has("dependentSchemas") ? "dependentSchemas" : "dependencies",
            ptr,
            "more than "
                + MAX_MEMBER_CONSTRAINTS
                + " dependent schemas constrain the value of member \""
                + m.name()
                + "\"");
        for (int k : mine) {
          formula = formula.assignMeets(m.name(), k, true); // lenient: the constraints are ignored
        }
        mine = List.of();
      }
      constraintIds[i] = mine.stream().mapToInt(Integer::intValue).toArray();
      versions[i] =
          memberVersions(
              m,
              constraintIds[i],
              constraints,
              in + converter.layout.quote(m.name()) + colon,
              level);
      sizes[i] = new long[versions[i].length];
      for (int v = 0; v < versions[i].length; v++) {
        sizes[i][v] = Trees.size(versions[i][v]);
      }
    }
    MemberLayout layout =
        new MemberLayout(
            members,
            versions,
            constraintIds,
            sizes,
            minProps,
            maxProps,
            converter.layout.newline(level),
            extra);
    Re body = layout.from(0, false, formula, 0);
    if (body == NOTHING && layout.minUnreachable()) {
      converter.notHonoured(
          "minProperties",
          ptr,
          "reaching minProperties needs more than one member beyond the listed"
              + " ones (a generated key may repeat, so only one extra member is certain to count)");
    }
    if (converter.lean && layout.cost() > MemberLayout.MAX_COST / LEAN_COST_MARGIN) {
      // The members' sizes are those of lean trees, not of the automata the limit was set for.
      throw new Converter.LeanOverflow("member layout cost " + layout.cost());
    }
    if (layout.cost() > MemberLayout.MAX_COST) {
      String keyword =
          List.of(
                  "minProperties",
                  "maxProperties",
                  "oneOf",
                  "anyOf",
                  "not",
                  "dependencies",
                  "dependentRequired",
                  "dependentSchemas")
              .stream()
              .filter(o::has)
              .findFirst()
              .orElse("required");
      converter.notHonoured(
          keyword,
          ptr,
          "too many combinations of present members to write out (over "
              + MemberLayout.MAX_COST
              + " nodes)");
    }
    return seq(lit("{"), body);
  }

  /**
   * The members {@code properties} lists, in its order, each value merged with the
   * patternProperties it matches.
   */
  private List<Member> listedMembers(ObjectNode o, String ptr, int level, Set<String> required) {
    List<Member> members = new ArrayList<>();
    JsonNode props = o.get("properties");
    if (props == null) {
      return members;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String p = ptr + "/properties/" + Keywords.escapePointer(e.getKey());
      JsonNode[] schema = new JsonNode[1];
      Re v =
          converter.references.valueOfMerge(
              () ->
                  schema[0] =
                      converter.extraMembers.withPatternProperties(o, e.getKey(), e.getValue(), p),
              p,
              level + 1);
      members.add(new Member(e.getKey(), v, schema[0], required.contains(e.getKey())));
    }
    return members;
  }

  /**
   * Member {@code m} (its key text {@code key} and value) in one version per subset of its value
   * constraints {@code constraintIds}: version v meets the constraints of the bits of v ({@link
   * Trees#NOTHING} where no value meets them all).
   */
  private Re[] memberVersions(
      Member m,
      int[] constraintIds,
      List<Dependencies.ValueConstraint> constraints,
      String key,
      int level) {
    Re[] versions = new Re[1 << constraintIds.length];
    for (int v = 0; v < versions.length; v++) {
      Re value = m.value();
      if (v > 0) {
        List<Dependencies.ValueConstraint> meet = new ArrayList<>();
        for (int k = 0; k < constraintIds.length; k++) {
          if ((v >> k & 1) == 1) {
            meet.add(constraints.get(constraintIds[k]));
          }
        }
        String cp = meet.get(0).ptr();
        value =
            converter.references.valueOfMerge(
                () -> {
                  JsonNode acc = m.schema();
                  for (Dependencies.ValueConstraint c : meet) {
                    acc = converter.merge.merge(acc, c.schema(), cp);
                  }
                  return acc;
                },
                cp,
                level + 1);
      }
      versions[v] = value == NOTHING ? NOTHING : seq(StringValues.jsonText(key), value);
    }
    return versions;
  }

  /**
   * The value of member {@code name} that {@code properties} does not list (never generated if
   * forbidden).
   */
  private Re unlistedValue(ObjectNode o, String name, String ptr, int level) {
    JsonNode additional = o.get("additionalProperties");
    if (o.has("patternProperties")) {
      Re v =
          converter.references.valueOfMerge(
              () -> converter.extraMembers.patternSchemaFor(o, name, ptr),
              ptr + "/patternProperties",
              level + 1);
      if (v != null) {
        return v;
      }
    }
    if (additional != null && additional.isObject()) {
      return converter.value(additional, ptr + "/additionalProperties", level + 1);
    }
    return additional != null && additional.isBoolean() && !additional.asBoolean()
        ? NOTHING
        : converter.any.value(level + 1, Converter.ANY_DEPTH - 1);
  }

  /**
   * The schema of member {@code name} that {@code properties} does not list ({@code false} if
   * forbidden).
   */
  private JsonNode unlistedSchema(ObjectNode o, String name, String ptr) {
    int mark = converter.references.followedMark();
    try {
      JsonNode pattern = converter.extraMembers.patternSchemaFor(o, name, ptr);
      if (pattern != null) {
        return pattern;
      }
    } finally {
      converter.references.forgetFollowedSince(mark);
    }
    JsonNode additional = o.get("additionalProperties");
    return additional == null ? JsonNodeFactory.instance.booleanNode(true) : additional;
  }
}
