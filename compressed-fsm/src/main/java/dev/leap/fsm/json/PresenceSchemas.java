package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Schemas that only assert which object members are present ({@code required}, and {@code
 * anyOf}/{@code oneOf}/{@code allOf}/{@code not} of such schemas), read as {@link Presence}
 * formulas. Such a schema holds for every instance that is not an object, so on an object schema it
 * becomes part of the object's formula instead of alternatives of whole values.
 */
final class PresenceSchemas {
  private PresenceSchemas() {}

  /** Keywords a schema may hold and still say nothing but which object members are present. */
  static final Set<String> PRESENCE_KEYWORDS = Set.of("required", "anyOf", "oneOf", "allOf", "not");

  /** Whether {@code schema} only asserts which members are present (besides annotations). */
  static boolean presenceOnly(JsonNode schema) {
    return presenceOnly(schema, null);
  }

  /**
   * {@link #presenceOnly(JsonNode)}, where {@code object} (the object schema the keywords apply to,
   * or null) makes two more keywords say nothing new: {@code properties} whose member schemas are
   * the object's own ones (annotations aside), and {@code "type": "object"} when the object schema
   * is of that type only (a common way of writing {@code oneOf} over groups of required members).
   */
  static boolean presenceOnly(JsonNode schema, ObjectNode object) {
    if (schema.isBoolean()) {
      return true;
    }
    if (!schema.isObject()) {
      return false;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      if (!Keywords.asserts(k)) {
        continue;
      }
      JsonNode v = e.getValue();
      if (object != null
          && k.equals("properties")
          && v.isObject()
          && repeatsProperties(v, object.path("properties"))) {
        continue;
      }
      if (object != null
          && k.equals("type")
          && v.isTextual()
          && v.asText().equals("object")
          && object.path("type").isTextual()
          && object.get("type").asText().equals("object")) {
        continue;
      }
      if (!PRESENCE_KEYWORDS.contains(k)) {
        return false;
      }
      switch (k) {
        case "required" -> {
          if (!v.isArray()) {
            return false;
          }
        }
        case "not" -> {
          if (!presenceOnly(v, object)) {
            return false;
          }
        }
        default -> {
          if (!v.isArray()) {
            return false;
          }
          for (JsonNode b : v) {
            if (!presenceOnly(b, object)) {
              return false;
            }
          }
        }
      }
    }
    return true;
  }

  /** Whether every member schema in {@code props} is the one in {@code own}, annotations aside. */
  private static boolean repeatsProperties(JsonNode props, JsonNode own) {
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode mine = own.get(e.getKey());
      if (mine == null
          || !Keywords.withoutAnnotations(mine).equals(Keywords.withoutAnnotations(e.getValue()))) {
        return false;
      }
    }
    return true;
  }

  /** The formula of a {@link #presenceOnly} schema, for an object instance. */
  static Presence formula(JsonNode schema) {
    if (schema.isBoolean()) {
      return schema.asBoolean() ? Presence.TRUE : Presence.FALSE;
    }
    List<Presence> all = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      switch (e.getKey()) {
        case "required" -> v.forEach(n -> all.add(new Presence.Has(n.asText())));
        case "not" -> all.add(Presence.not(formula(v)));
        case "anyOf", "oneOf", "allOf" -> {
          List<Presence> items = new ArrayList<>();
          v.forEach(b -> items.add(formula(b)));
          all.add(
              e.getKey().equals("anyOf")
                  ? Presence.or(items)
                  : e.getKey().equals("oneOf") ? Presence.exactlyOne(items) : Presence.and(items));
        }
        default -> {}
      }
    }
    return Presence.and(all);
  }
}
