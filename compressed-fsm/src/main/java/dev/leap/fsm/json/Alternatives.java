package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.alt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.internal.Re;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code anyOf} and {@code oneOf} of schemas that say more than which members are present: the
 * union of the branches (each merged with the keywords beside it). For {@code oneOf}, "exactly one"
 * is the union only where no value is valid against two branches, which {@link Disjoint} proves
 * kind of value by kind ({@link #oneOfKinds}); kinds it cannot prove are not generated (noted as
 * narrowed), and with no kind left {@code oneOf} is not honoured. Inside dependent schemas, {@link
 * #branchesDisjoint} proves the same for objects that have the dependent member.
 */
final class Alternatives {
  private final Converter converter;

  Alternatives(Converter converter) {
    this.converter = converter;
  }

  /**
   * The values of object schema {@code o} with {@code oneOf} or {@code anyOf}, at nesting {@code
   * level}.
   */
  Re value(ObjectNode o, String ptr, int level) {
    String key = o.has("oneOf") ? "oneOf" : "anyOf";
    if (o.has("oneOf") && o.has("anyOf")) {
      converter.notHonoured("anyOf", ptr, "anyOf beside oneOf");
    }
    ObjectNode siblings = converter.references.copy(o);
    siblings.remove(key);
    JsonNode arr = o.get(key);
    JsonNode kinds = key.equals("oneOf") && arr.size() > 1 ? oneOfKinds(siblings, arr, ptr) : null;
    List<Re> branches = new ArrayList<>();
    for (int i = 0; i < arr.size(); i++) {
      JsonNode b = arr.get(i);
      String p = ptr + "/" + key + "/" + i;
      if (Keywords.hasAssertions(siblings) || kinds != null) {
        branches.add(
            converter.references.valueOfMerge(
                () -> {
                  JsonNode merged =
                      Keywords.hasAssertions(siblings) ? converter.merge.merge(siblings, b, p) : b;
                  return kinds == null ? merged : converter.merge.merge(merged, kinds, p);
                },
                p,
                level));
      } else {
        branches.add(converter.value(b, p, level));
      }
    }
    return alt(branches);
  }

  /**
   * For oneOf: null if no value can be valid against two branches (then exactly-one is
   * alternation), else a schema {@code {"type": [...]}} of the kinds of value on which the branches
   * are proven disjoint, to merge into every branch (the other kinds are not generated, and that is
   * noted). Fails (naming oneOf) if there is no such kind.
   */
  private JsonNode oneOfKinds(ObjectNode siblings, JsonNode arr, String ptr) {
    int mark = converter.references.followedMark();
    try {
      List<JsonNode> schemas = new ArrayList<>();
      for (int i = 0; i < arr.size(); i++) {
        schemas.add(
            Keywords.hasAssertions(siblings)
                ? converter.merge.merge(siblings, arr.get(i), ptr + "/oneOf/" + i)
                : arr.get(i));
      }
      Disjoint proof = disjointness(ptr);
      Set<Disjoint.Kind> allowed = EnumSet.noneOf(Disjoint.Kind.class);
      for (JsonNode schema : schemas) {
        JsonNode r = proof.resolved(schema);
        allowed.addAll(
            r.isObject()
                ? proof.kinds(r)
                : r.asBoolean() ? EnumSet.allOf(Disjoint.Kind.class) : Set.of());
      }
      Set<Disjoint.Kind> ok = EnumSet.copyOf(allowed);
      for (int i = 0; i < schemas.size(); i++) {
        for (int j = i + 1; j < schemas.size(); j++) {
          ok.retainAll(proof.provenKinds(schemas.get(i), schemas.get(j)));
        }
      }
      if (allowed.contains(Disjoint.Kind.OBJECT)
          && !ok.contains(Disjoint.Kind.OBJECT)
          && generatedObjectsDisjoint(schemas, proof)) {
        ok.add(Disjoint.Kind.OBJECT);
      }
      if (ok.equals(allowed)) {
        return null;
      }
      List<String> types = typesOf(ok);
      if (types.isEmpty()) {
        converter.notHonoured(
            "oneOf",
            ptr,
            "its branches may both hold for one value (Leap proves oneOf branches"
                + " disjoint, kind of value by kind, by type, const/enum, numeric bounds, string lengths and patterns, or a"
                + " member one requires and the other forbids or requires with a disjoint value), so exactly-one could not"
                + " be enforced");
        return null;
      }
      Set<Disjoint.Kind> dropped = EnumSet.copyOf(allowed);
      dropped.removeAll(ok);
      converter.narrowed.add(
          (ptr.isEmpty() ? "#" : "#" + ptr)
              + "/oneOf: values of kind "
              + dropped.toString().toLowerCase(Locale.ROOT)
              + " are not generated (more than one branch may hold for them)");
      ObjectNode t = JsonNodeFactory.instance.objectNode();
      ArrayNode list = t.putArray("type");
      types.forEach(list::add);
      return t;
    } finally {
      converter.references.forgetFollowedSince(mark);
    }
  }

  /**
   * Objects Leap generates for a branch have only its listed members: it is enough that no such
   * object is valid against another branch (branch i read as closed, {@link #asGenerated}).
   */
  private static boolean generatedObjectsDisjoint(List<JsonNode> schemas, Disjoint proof) {
    boolean each = true;
    for (int i = 0; i < schemas.size() && each; i++) {
      JsonNode closed = asGenerated(proof.resolved(schemas.get(i)));
      for (int j = 0; j < schemas.size() && each; j++) {
        each = i == j || proof.provenKinds(closed, schemas.get(j)).contains(Disjoint.Kind.OBJECT);
      }
    }
    return each;
  }

  /**
   * The JSON Schema types of the kinds {@code ok} (numbers that are not whole alone have no type of
   * their own).
   */
  private static List<String> typesOf(Set<Disjoint.Kind> ok) {
    List<String> types = new ArrayList<>();
    for (Disjoint.Kind k : ok) {
      switch (k) {
        case NULL -> types.add("null");
        case BOOLEAN -> types.add("boolean");
        case OBJECT -> types.add("object");
        case ARRAY -> types.add("array");
        case STRING -> types.add("string");
        case WHOLE -> types.add(ok.contains(Disjoint.Kind.FRACTION) ? "number" : "integer");
        default -> {}
      }
    }
    return types;
  }

  /**
   * A schema valid for (at least) every object Leap generates for {@code schema}: with {@code
   * properties} and no explicit {@code additionalProperties} or {@code patternProperties}, Leap
   * writes only the listed members (and those {@code required} names), so {@code schema} closed
   * with {@code additionalProperties: false} after listing the required ones; else (also where
   * presence keywords may name further members) {@code schema} itself.
   */
  static JsonNode asGenerated(JsonNode schema) {
    if (!schema.isObject()
        || !schema.has("properties")
        || schema.has("additionalProperties")
        || schema.has("patternProperties")) {
      return schema;
    }
    for (String k :
        List.of(
            "dependencies",
            "dependentRequired",
            "dependentSchemas",
            "anyOf",
            "oneOf",
            "allOf",
            "not",
            "$ref")) {
      if (schema.has(k)) {
        return schema; // they may name further members that Leap then generates
      }
    }
    ObjectNode closed = ((ObjectNode) schema).deepCopy();
    ObjectNode props = ((ObjectNode) closed.get("properties")).deepCopy();
    schema
        .path("required")
        .forEach(
            r -> {
              if (!props.has(r.asText())) {
                props.set(r.asText(), JsonNodeFactory.instance.booleanNode(true));
              }
            });
    closed.set("properties", props);
    closed.put("additionalProperties", false);
    return closed;
  }

  /**
   * Whether no object valid against {@code o} that has member {@code key} is valid against two of
   * {@code branches} ({@link Disjoint}, each branch read as an object schema with the object's
   * {@code required} and {@code key}).
   */
  boolean branchesDisjoint(JsonNode branches, ObjectNode o, String key, String ptr) {
    int mark = converter.references.followedMark();
    Disjoint proof = disjointness(ptr);
    try {
      List<JsonNode> withRequired = new ArrayList<>();
      for (JsonNode b : branches) {
        JsonNode r = converter.references.resolveShallow(b, ptr);
        if (r.isObject()) {
          ObjectNode copy = converter.references.copy((ObjectNode) r);
          Set<String> names = new LinkedHashSet<>();
          r.path("required").forEach(n -> names.add(n.asText()));
          o.path("required").forEach(n -> names.add(n.asText()));
          names.add(key);
          ArrayNode req = copy.putArray("required");
          names.forEach(req::add);
          if (!copy.has("type")) {
            copy.put("type", "object");
          }
          r = copy;
        }
        withRequired.add(r);
      }
      for (int i = 0; i < withRequired.size(); i++) {
        for (int j = i + 1; j < withRequired.size(); j++) {
          if (!proof.proven(withRequired.get(i), withRequired.get(j))) {
            return false;
          }
        }
      }
      return true;
    } catch (ConstraintException e) {
      return false;
    } finally {
      converter.references.forgetFollowedSince(mark);
    }
  }

  /** The disjointness prover, resolving references and merging allOf as this converter does. */
  private Disjoint disjointness(String ptr) {
    return new Disjoint(
        x -> {
          try {
            return converter.references.resolveShallow(x, ptr);
          } catch (ConstraintException e) {
            return JsonNodeFactory.instance.booleanNode(
                true); // a merge Leap cannot do proves nothing
          }
        });
  }
}
