package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code dependencies}, {@code dependentRequired} and {@code dependentSchemas} as a {@link
 * Presence} formula on the object's members: for each member {@code p}, "p absent, or the object
 * meets the dependent schema".
 *
 * <p>A dependent schema is written out when it says only which members are present and which
 * schemas their values meet ({@link #conditionOnly}); a value demand becomes a {@link
 * ValueConstraint}, referred to by a {@link Presence.Meets} that appears only positively. Where a
 * dependent schema cannot be written out, the member it depends on is not generated (a part of the
 * valid objects, noted as narrowed), or, when that member is required, the keyword is not honoured.
 */
final class Dependencies {
  /**
   * A dependent schema's demand that member {@code member}'s value meets {@code schema} (see {@link
   * Presence.Meets}).
   */
  record ValueConstraint(String member, JsonNode schema, String ptr) {}

  private final Converter converter;

  Dependencies(Converter converter) {
    this.converter = converter;
  }

  /**
   * What the dependency keywords of object schema {@code o} require, adding the value constraints
   * of dependent schemas to {@code constraints} (a {@link Presence.Meets} refers to one by index).
   */
  Presence formula(ObjectNode o, String ptr, List<ValueConstraint> constraints) {
    List<Presence> all = new ArrayList<>();
    for (String kw : List.of("dependencies", "dependentRequired", "dependentSchemas")) {
      JsonNode deps = o.get(kw);
      if (deps == null) {
        continue;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = deps.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String p = ptr + "/" + kw + "/" + Keywords.escapePointer(e.getKey());
        Presence then = dependent(e.getValue(), kw, p, o, e.getKey(), constraints);
        if (then != null) {
          all.add(Presence.or(List.of(Presence.not(new Presence.Has(e.getKey())), then)));
        }
      }
    }
    return Presence.and(all);
  }

  /**
   * What dependency {@code d} of member {@code key} requires of the object ({@link Presence#FALSE}
   * where the member is left out instead), or null where the keyword is not honoured (lenient).
   */
  private Presence dependent(
      JsonNode d,
      String kw,
      String p,
      ObjectNode o,
      String key,
      List<ValueConstraint> constraints) {
    if (d.isArray()) {
      List<Presence> names = new ArrayList<>();
      d.forEach(n -> names.add(new Presence.Has(n.asText())));
      return Presence.and(names);
    }
    if (PresenceSchemas.presenceOnly(d, o)) {
      return PresenceSchemas.formula(d);
    }
    String why = null;
    int before = constraints.size();
    Presence then = null;
    if (conditionOnly(d, 0)) {
      try {
        then = condition(d, p, o, key, constraints);
      } catch (JsonSchemaException x) {
        why = x.getMessage();
      }
    } else {
      why =
          "a dependent schema is supported when it asserts which members are present (required, anyOf, ...)"
              + " and what their values meet (properties)";
    }
    if (then != null) {
      return then;
    }
    constraints.subList(before, constraints.size()).clear();
    if (Keywords.containsValue(o.path("required"), JsonNodeFactory.instance.textNode(key))) {
      converter.notHonoured(kw, p, why);
      return null;
    }
    // Leaving the member out satisfies the dependency: a part of the valid objects.
    converter.narrowed.add("#" + p + ": member \"" + key + "\" is not generated (" + why + ")");
    return Presence.FALSE;
  }

  /**
   * Whether {@code schema} (a dependent schema, applied to the object itself) says nothing but
   * which members are present and which schemas their values meet: {@code required}, {@code
   * properties}, {@code type}, and {@code anyOf}/{@code oneOf}/{@code allOf} of such, {@code not}
   * of presence only; {@code $ref} to such a schema. Nesting deeper than 8 is refused.
   */
  private boolean conditionOnly(JsonNode schema, int depth) {
    if (schema.isBoolean()) {
      return true;
    }
    if (!schema.isObject() || depth > 8) {
      return false;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      JsonNode v = e.getValue();
      if (!Keywords.asserts(k)) {
        continue;
      }
      boolean ok =
          switch (k) {
            case "required" -> v.isArray();
            case "properties" -> v.isObject();
            case "type" -> true;
            case "not" -> PresenceSchemas.presenceOnly(v);
            case "$ref" ->
                v.isTextual()
                    && converter.references.localTarget(v.asText(), schema) != null
                    && conditionOnly(
                        converter.references.localTarget(v.asText(), schema).node(), depth + 1);
            case "anyOf", "oneOf", "allOf" -> {
              boolean all = v.isArray();
              for (JsonNode b : v) {
                all &= conditionOnly(b, depth + 1);
              }
              yield all;
            }
            default -> false;
          };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * The formula of a {@link #conditionOnly} schema {@code schema} for an instance of object schema
   * {@code o} that has member {@code key}. {@code properties} become "member absent, or its value
   * meets the schema" (a new constraint); {@link Presence.Meets} appears only positively, so
   * writing a member in a version that claims fewer constraints than its value meets never makes a
   * valid object invalid, and every valid object has a version choice that satisfies the formula.
   */
  private Presence condition(
      JsonNode schema, String ptr, ObjectNode o, String key, List<ValueConstraint> constraints) {
    if (schema.isBoolean()) {
      return schema.asBoolean() ? Presence.TRUE : Presence.FALSE;
    }
    List<Presence> all = new ArrayList<>();
    if (schema.path("$ref").isTextual()) {
      all.add(
          condition(
              converter.references.target(schema.get("$ref").asText(), schema, ptr).node(),
              ptr,
              o,
              key,
              constraints));
    }
    schema.path("required").forEach(n -> all.add(new Presence.Has(n.asText())));
    if (schema.has("type")) {
      JsonNode t = schema.get("type");
      boolean object =
          t.isArray()
              ? Keywords.containsValue(t, JsonNodeFactory.instance.textNode("object"))
              : t.asText().equals("object");
      all.add(object ? Presence.TRUE : Presence.FALSE);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode c = e.getValue();
      if (c.isBoolean() && c.asBoolean()
          || c.isObject() && !Keywords.hasAssertions((ObjectNode) c) && !c.has("$ref")) {
        continue; // met by every value
      }
      Presence has = new Presence.Has(e.getKey());
      if (Disjoint.isFalse(c)) {
        all.add(Presence.not(has));
        continue;
      }
      constraints.add(
          new ValueConstraint(
              e.getKey(), c, ptr + "/properties/" + Keywords.escapePointer(e.getKey())));
      all.add(
          Presence.or(
              List.of(Presence.not(has), new Presence.Meets(e.getKey(), constraints.size() - 1))));
    }
    if (schema.has("not")) {
      all.add(Presence.not(PresenceSchemas.formula(schema.get("not"))));
    }
    for (String k : List.of("allOf", "anyOf", "oneOf")) {
      if (!schema.has(k)) {
        continue;
      }
      JsonNode branches = schema.get(k);
      if (k.equals("oneOf")) {
        boolean presenceBranches = true;
        for (JsonNode b : branches) {
          presenceBranches &= PresenceSchemas.presenceOnly(b, o);
        }
        if (presenceBranches) {
          List<Presence> items = new ArrayList<>();
          branches.forEach(b -> items.add(PresenceSchemas.formula(b)));
          all.add(Presence.exactlyOne(items));
          continue;
        }
        if (!converter.alternatives.branchesDisjoint(branches, o, key, ptr)) {
          converter.notHonoured(
              "oneOf",
              ptr,
              "its branches constrain member values and may both hold for one object, so"
                  + " exactly-one could not be enforced");
          continue;
        }
      }
      List<Presence> items = new ArrayList<>();
      for (int i = 0; i < branches.size(); i++) {
        items.add(condition(branches.get(i), ptr + "/" + k + "/" + i, o, key, constraints));
      }
      all.add(k.equals("allOf") ? Presence.and(items) : Presence.or(items));
    }
    return Presence.and(all);
  }
}
