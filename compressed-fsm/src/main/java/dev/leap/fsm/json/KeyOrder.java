package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reorders a JSON value's object members the way {@link JsonSchema} generates them, so that data
 * written elsewhere can be checked against a compiled schema: the members {@code properties} lists
 * first, in its order (following local {@code $ref}s, then {@code allOf} branches, then the {@code
 * anyOf}/{@code oneOf} branch that lists most of the value's keys), then the names in {@code
 * required} that {@code properties} does not list, then the remaining members in alphabetical order
 * (the generator writes members that only a presence keyword such as {@code dependentRequired}
 * names in that order; members beyond those may come in any order). Arrays keep their order
 * (elements are reordered by their item schemas). A heuristic for the combinators: the generator
 * may still order a value differently, never validly otherwise.
 */
public final class KeyOrder {
  private KeyOrder() {}

  /** Nesting limit for following references (a recursive schema ends there). */
  private static final int MAX_DEPTH = 64;

  /**
   * Limit on references and combinators followed to collect one object's properties (branches
   * multiply).
   */
  private static final int MAX_COLLECT_DEPTH = 8;

  /**
   * {@code value} with its members in the order {@code schema} (a whole schema document) generates
   * them.
   */
  public static JsonNode schemaOrder(JsonNode value, JsonNode schema) {
    return order(value, schema, new SchemaIndex(schema), 0);
  }

  private static JsonNode order(JsonNode value, JsonNode schema, SchemaIndex root, int depth) {
    if (schema == null || !schema.isObject() || depth > MAX_DEPTH) {
      return value;
    }
    JsonNode target = refTarget(schema, root);
    if (target != null) {
      return order(value, target, root, depth + 1);
    }
    if (value.isObject()) {
      Map<String, JsonNode> props = new LinkedHashMap<>();
      collect(schema, value, root, props, 0);
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, JsonNode> e : props.entrySet()) {
        if (value.has(e.getKey())) {
          out.set(e.getKey(), order(value.get(e.getKey()), e.getValue(), root, depth + 1));
        }
      }
      for (JsonNode r : schema.path("required")) {
        if (value.has(r.asText()) && !out.has(r.asText())) {
          out.set(
              r.asText(),
              order(value.get(r.asText()), schema.path("additionalProperties"), root, depth + 1));
        }
      }
      TreeMap<String, JsonNode> rest = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!out.has(e.getKey())) {
          rest.put(e.getKey(), e.getValue());
        }
      }
      rest.forEach(
          (k, v) -> out.set(k, order(v, schema.path("additionalProperties"), root, depth + 1)));
      return out;
    }
    if (value.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (int i = 0; i < value.size(); i++) {
        JsonNode item =
            schema.has("prefixItems") && i < schema.get("prefixItems").size()
                ? schema.get("prefixItems").get(i)
                : schema.path("items").isArray() && schema.get("items").size() > 0
                    ? schema.get("items").get(Math.min(i, schema.get("items").size() - 1))
                    : schema.get("items");
        out.add(order(value.get(i), item, root, depth + 1));
      }
      return out;
    }
    return value;
  }

  private static JsonNode refTarget(JsonNode schema, SchemaIndex root) {
    if (!schema.path("$ref").isTextual()) {
      return null;
    }
    try {
      SchemaIndex.Target t = root.resolve(schema.get("$ref").asText(), schema);
      return t == null ? null : t.node();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The listed properties of {@code schema} in generation order, with their schemas. */
  private static void collect(
      JsonNode schema, JsonNode value, SchemaIndex root, Map<String, JsonNode> out, int depth) {
    if (schema == null || !schema.isObject() || depth > MAX_COLLECT_DEPTH) {
      return;
    }
    JsonNode target = refTarget(schema, root);
    if (target != null) {
      collect(target, value, root, out, depth + 1);
    }
    schema
        .path("properties")
        .fields()
        .forEachRemaining(e -> out.putIfAbsent(e.getKey(), e.getValue()));
    schema.path("allOf").forEach(b -> collect(b, value, root, out, depth + 1));
    for (String k : new String[] {"anyOf", "oneOf"}) {
      JsonNode best = null;
      int bestHits = 0;
      for (JsonNode b : schema.path(k)) {
        Map<String, JsonNode> props = new LinkedHashMap<>();
        collect(b, value, root, props, depth + 1);
        int hits = 0;
        for (String name : props.keySet()) {
          hits += value.has(name) ? 1 : 0;
        }
        if (hits > bestHits) {
          best = b;
          bestHits = hits;
        }
      }
      if (best != null) {
        collect(best, value, root, out, depth + 1);
      }
    }
  }
}
