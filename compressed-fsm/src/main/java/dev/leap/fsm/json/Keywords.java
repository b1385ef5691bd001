package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Set;

/**
 * The keyword tables: which keywords are annotations (they assert nothing), which Leap converts,
 * which it cannot express as a regular language; a keyword in none of them is unknown and, like an
 * annotation, asserts nothing. Also small helpers on schema JSON that the converters share
 * (membership in a JSON array, JSON pointer tokens).
 */
final class Keywords {
  private Keywords() {}

  static final Set<String> ANNOTATIONS =
      Set.of(
          "title",
          "description",
          "examples",
          "default",
          "$comment",
          "$schema",
          "$id",
          "id",
          "$anchor",
          "$dynamicAnchor",
          "deprecated",
          "readOnly",
          "writeOnly",
          "$defs",
          "definitions",
          "contentMediaType",
          "contentEncoding",
          "contentSchema",
          "$vocabulary",
          "nullable");
  static final Set<String> HANDLED =
      Set.of(
          "type",
          "properties",
          "required",
          "additionalProperties",
          "items",
          "prefixItems",
          "additionalItems",
          "minItems",
          "maxItems",
          "enum",
          "const",
          "minLength",
          "maxLength",
          "pattern",
          "minimum",
          "maximum",
          "exclusiveMinimum",
          "exclusiveMaximum",
          "anyOf",
          "oneOf",
          "allOf",
          "$ref",
          "format",
          "uniqueItems",
          "multipleOf",
          "minProperties",
          "maxProperties",
          "patternProperties",
          "dependencies",
          "dependentRequired",
          "dependentSchemas",
          "not");
  static final Set<String> UNSUPPORTED =
      Set.of(
          "propertyNames",
          "unevaluatedProperties",
          "unevaluatedItems",
          "contains",
          "minContains",
          "maxContains",
          "if",
          "then",
          "else",
          "$dynamicRef",
          "$recursiveRef");

  /**
   * Whether {@code keyword} asserts something (it is handled or unsupported, and no annotation).
   */
  static boolean asserts(String keyword) {
    return !ANNOTATIONS.contains(keyword)
        && (HANDLED.contains(keyword) || UNSUPPORTED.contains(keyword));
  }

  /** Whether the object schema {@code schema} holds a keyword that {@link #asserts} something. */
  static boolean hasAssertions(ObjectNode schema) {
    for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
      if (asserts(it.next())) {
        return true;
      }
    }
    return false;
  }

  /** {@code schema} without its annotations (a copy; a boolean schema as it is). */
  static JsonNode withoutAnnotations(JsonNode schema) {
    if (!schema.isObject()) {
      return schema;
    }
    ObjectNode copy = ((ObjectNode) schema).deepCopy();
    copy.remove(ANNOTATIONS);
    return copy;
  }

  /** Whether the JSON array {@code array} holds a value equal to {@code x}. */
  static boolean containsValue(JsonNode array, JsonNode x) {
    for (JsonNode y : array) {
      if (y.equals(x)) {
        return true;
      }
    }
    return false;
  }

  /** {@code name} as one token of a JSON pointer ({@code ~} and {@code /} escaped). */
  static String escapePointer(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
