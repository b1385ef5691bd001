package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The merge of two schemas that must both hold ({@code allOf}, a {@code $ref} with siblings,
 * patternProperties over a listed member, dependent schemas on a member's value), where it is
 * simple: one schema whose valid values are valid against both (the same set, or where noted a
 * subset). Where the two do not merge simply it fails with a {@link JsonSchemaException} naming
 * {@code allOf}.
 *
 * <p>The steps, in order: follow top-level references ({@link References#resolveShallow}); boolean
 * schemas; reject a tuple beside a list form of {@code items}; merge keyword by keyword ({@link
 * #mergeKeyword}); then members one side lists and the other does not ({@link
 * #applyAdditionalToListed} without patternProperties, {@link #keepMembersBothAllow} with them).
 */
final class SchemaMerge {
  private final Converter converter;

  SchemaMerge(Converter converter) {
    this.converter = converter;
  }

  /**
   * Object schema {@code o} with its {@code allOf} branches merged in (the result has no {@code
   * allOf}).
   */
  ObjectNode mergeAllOf(ObjectNode o, String ptr) {
    ObjectNode base = converter.references.copy(o);
    base.remove("allOf");
    JsonNode all = o.get("allOf");
    JsonNode acc = base;
    for (int i = 0; i < all.size(); i++) {
      acc = merge(acc, all.get(i), ptr + "/allOf/" + i);
    }
    if (!acc.isObject()) {
      throw new JsonSchemaException("allOf", ptr, "allOf of boolean schemas");
    }
    return (ObjectNode) acc;
  }

  /** Merges two schemas that must both hold, where that is simple; otherwise fails naming allOf. */
  JsonNode merge(JsonNode a, JsonNode b, String ptr) {
    a = converter.references.resolveShallow(a, ptr);
    b = converter.references.resolveShallow(b, ptr);
    if (a.isBoolean()) {
      return a.asBoolean() ? b : a;
    }
    if (b.isBoolean()) {
      return b.asBoolean() ? a : b;
    }
    rejectTupleBesideList(a, b, ptr);
    ObjectNode out = converter.references.copy((ObjectNode) a);
    for (Iterator<Map.Entry<String, JsonNode>> it = b.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      mergeKeyword(out, e.getKey(), e.getValue(), ptr);
    }
    if (!a.has("patternProperties") && !b.has("patternProperties")) {
      applyAdditionalToListed(out, a, b, ptr);
    } else {
      keepMembersBothAllow(out, a, b, ptr);
    }
    return out;
  }

  /** {@code items} applies to every element on one side and only past the tuple on the other. */
  private static void rejectTupleBesideList(JsonNode a, JsonNode b, String ptr) {
    for (JsonNode[] pair : new JsonNode[][] {{a, b}, {b, a}}) {
      boolean tuple = pair[0].has("prefixItems") || pair[0].path("items").isArray();
      boolean list =
          pair[1].has("items") && !pair[1].path("items").isArray() && !pair[1].has("prefixItems");
      if (tuple && list) {
        throw new JsonSchemaException(
            "allOf", ptr, "prefixItems on one side and items on the other do not merge simply");
      }
    }
  }

  /**
   * Merges keyword {@code k} with value {@code v} into {@code out} (which holds the other side's
   * keywords).
   */
  private void mergeKeyword(ObjectNode out, String k, JsonNode v, String ptr) {
    JsonNode have = out.get(k);
    if (have == null || have.equals(v) || Keywords.ANNOTATIONS.contains(k)) {
      if (have == null) {
        out.set(k, v);
      }
      return;
    }
    switch (k) {
      case "properties" -> out.set(k, mergeProperties(have, v, ptr));
      case "required" -> {
        Set<String> req = new LinkedHashSet<>();
        have.forEach(x -> req.add(x.asText()));
        v.forEach(x -> req.add(x.asText()));
        ArrayNode arr = out.putArray("required");
        req.forEach(arr::add);
      }
      case "type" -> {
        Set<String> common = commonTypes(have, v);
        ArrayNode arr = out.putArray("type");
        common.forEach(arr::add);
      }
      case "minimum", "minLength", "minItems", "exclusiveMinimum" ->
          out.set(k, tighterBound(k, have, v, true, ptr));
      case "maximum", "maxLength", "maxItems", "exclusiveMaximum" ->
          out.set(k, tighterBound(k, have, v, false, ptr));
      case "additionalProperties" -> {
        if (have.isBoolean() && !have.asBoolean() || v.isBoolean() && !v.asBoolean()) {
          out.put(k, false);
        } else {
          out.set(k, merge(have, v, ptr + "/additionalProperties"));
        }
      }
      case "items" -> out.set(k, merge(have, v, ptr + "/items"));
      case "enum", "const" -> {
        ArrayNode both = commonValues(k, have, v);
        out.remove("const");
        out.set("enum", both);
      }
      default -> {
        if (!Keywords.HANDLED.contains(k) && !Keywords.UNSUPPORTED.contains(k)) {
          return; // unknown keywords assert nothing
        }
        throw new JsonSchemaException(
            "allOf", ptr, "the schemas disagree on '" + k + "' and do not merge simply");
      }
    }
  }

  /** Both sides' {@code properties}, a member listed by both with its two schemas merged. */
  private ObjectNode mergeProperties(JsonNode have, JsonNode v, String ptr) {
    ObjectNode props = converter.references.copy((ObjectNode) have);
    for (Iterator<Map.Entry<String, JsonNode>> pi = v.fields(); pi.hasNext(); ) {
      Map.Entry<String, JsonNode> pe = pi.next();
      JsonNode prev = props.get(pe.getKey());
      props.set(
          pe.getKey(),
          prev == null
              ? pe.getValue()
              : merge(prev, pe.getValue(), ptr + "/properties/" + pe.getKey()));
    }
    return props;
  }

  /**
   * The types both {@code type} values allow ({@code integer} is within {@code number}), in the
   * first one's order.
   */
  private static Set<String> commonTypes(JsonNode have, JsonNode v) {
    Set<String> ta = typeSet(have);
    Set<String> tb = typeSet(v);
    if (ta.contains("number") && tb.contains("integer")) {
      ta.add("integer");
    }
    if (tb.contains("number") && ta.contains("integer")) {
      tb.add("integer");
    }
    ta.retainAll(tb);
    return ta;
  }

  private static Set<String> typeSet(JsonNode type) {
    Set<String> out = new LinkedHashSet<>();
    if (type.isArray()) {
      type.forEach(x -> out.add(x.asText()));
    } else {
      out.add(type.asText());
    }
    return out;
  }

  /**
   * The tighter of two numeric bounds {@code k}: the larger lower bound, or the smaller upper
   * bound.
   */
  private static JsonNode tighterBound(
      String k, JsonNode have, JsonNode v, boolean lower, String ptr) {
    if (!have.isNumber() || !v.isNumber()) {
      throw new JsonSchemaException("allOf", ptr, "conflicting " + k);
    }
    int c = have.decimalValue().compareTo(v.decimalValue());
    return (lower ? c >= 0 : c <= 0) ? have : v;
  }

  /**
   * The values of {@code have} (an {@code enum}, or a {@code const} when {@code k} is {@code
   * const}) that {@code v} of the same keyword allows, as an {@code enum}. A value equal in JSON
   * but written differently is dropped: a subset.
   */
  private static ArrayNode commonValues(String k, JsonNode have, JsonNode v) {
    List<JsonNode> mine = new ArrayList<>();
    if (k.equals("enum")) {
      have.forEach(mine::add);
    } else {
      mine.add(have);
    }
    ArrayNode both = JsonNodeFactory.instance.arrayNode();
    for (JsonNode x : mine) {
      boolean inOther = k.equals("enum") ? Keywords.containsValue(v, x) : x.equals(v);
      if (inOther) {
        both.add(x);
      }
    }
    return both;
  }

  /**
   * Without patternProperties: a member that one side lists and the other does not is an additional
   * property of the other side, so its schema also meets that side's {@code additionalProperties}
   * ({@code false}: forbidden).
   */
  private void applyAdditionalToListed(ObjectNode out, JsonNode a, JsonNode b, String ptr) {
    ObjectNode props =
        out.has("properties")
            ? converter.references.copy((ObjectNode) out.get("properties"))
            : JsonNodeFactory.instance.objectNode();
    List<String> names = new ArrayList<>();
    props.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      for (JsonNode side : new JsonNode[] {a, b}) {
        if (!side.path("properties").has(name) && side.has("additionalProperties")) {
          props.set(
              name,
              merge(
                  props.get(name),
                  side.get("additionalProperties"),
                  ptr + "/properties/" + Keywords.escapePointer(name)));
        }
      }
    }
    if (!names.isEmpty()) {
      out.set("properties", props);
    }
  }

  /**
   * With patternProperties, which members are additional depends on the patterns too: a member that
   * one side lists and the other side forbids ({@code additionalProperties: false}) is left out,
   * and the result is closed (a part of the valid objects). {@code additionalProperties} as a
   * schema merges only where it does not apply to the other side's members.
   */
  private void keepMembersBothAllow(ObjectNode out, JsonNode a, JsonNode b, String ptr) {
    Set<String> allowed = null;
    for (JsonNode side : new JsonNode[] {a, b}) {
      JsonNode ap = side.get("additionalProperties");
      if (ap == null || (ap.isBoolean() && ap.asBoolean())) {
        continue;
      }
      Set<String> names = new LinkedHashSet<>();
      side.path("properties").fieldNames().forEachRemaining(names::add);
      if (!ap.isBoolean()) {
        JsonNode other = side == a ? b : a;
        for (Iterator<String> it = other.path("properties").fieldNames(); it.hasNext(); ) {
          if (!names.contains(it.next())) {
            throw new JsonSchemaException(
                "allOf",
                ptr,
                "additionalProperties as a schema beside properties from another branch");
          }
        }
        continue;
      }
      if (allowed == null) {
        allowed = names;
      } else {
        allowed.retainAll(names);
      }
    }
    if (allowed != null) {
      ObjectNode props =
          out.has("properties")
              ? converter.references.copy((ObjectNode) out.get("properties"))
              : JsonNodeFactory.instance.objectNode();
      props.retain(allowed);
      out.set("properties", props);
      out.put("additionalProperties", false);
    }
  }
}
