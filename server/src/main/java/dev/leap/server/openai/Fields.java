package dev.leap.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed reads of a request body's fields: each either returns the value, the default when the field
 * is absent or {@code null}, or throws a 400 {@link ApiError} naming the field and the type it
 * should have. Paths are dotted ({@code response_format.json_schema.schema}).
 */
final class Fields {
  private Fields() {}

  static boolean present(JsonNode body, String name) {
    JsonNode v = body.get(name);
    return v != null && !v.isNull();
  }

  static String string(JsonNode body, String name, String path, String dflt) {
    JsonNode v = body.get(name);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isTextual()) {
      throw ApiError.badRequest(path, "'" + path + "' must be a string, got " + kind(v));
    }
    return v.asText();
  }

  static boolean bool(JsonNode body, String name, String path, boolean dflt) {
    JsonNode v = body.get(name);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isBoolean()) {
      throw ApiError.badRequest(path, "'" + path + "' must be a boolean, got " + kind(v));
    }
    return v.asBoolean();
  }

  static double number(
      JsonNode body, String name, String path, double dflt, double min, double max) {
    JsonNode v = body.get(name);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isNumber()) {
      throw ApiError.badRequest(path, "'" + path + "' must be a number, got " + kind(v));
    }
    double d = v.asDouble();
    if (!(d >= min && d <= max)) {
      throw ApiError.badRequest(
          path,
          "'" + path + "' must be between " + plain(min) + " and " + plain(max) + ", got " + v);
    }
    return d;
  }

  static long integer(JsonNode body, String name, String path, long dflt, long min, long max) {
    JsonNode v = body.get(name);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
      throw ApiError.badRequest(path, "'" + path + "' must be an integer, got " + kind(v));
    }
    if (!v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
      throw ApiError.badRequest(
          path, "'" + path + "' must be between " + min + " and " + max + ", got " + v);
    }
    return v.asLong();
  }

  /** A string or a list of strings (OpenAI's {@code stop}); empty when absent. */
  static List<String> strings(JsonNode body, String name, String path, int maxItems) {
    JsonNode v = body.get(name);
    List<String> out = new ArrayList<>();
    if (v == null || v.isNull()) {
      return out;
    }
    if (v.isTextual()) {
      out.add(v.asText());
    } else if (v.isArray()) {
      for (JsonNode item : v) {
        if (!item.isTextual()) {
          throw ApiError.badRequest(
              path,
              "'"
                  + path
                  + "' must be a string or a list of strings, got a list with "
                  + kind(item));
        }
        out.add(item.asText());
      }
    } else {
      throw ApiError.badRequest(
          path, "'" + path + "' must be a string or a list of strings, got " + kind(v));
    }
    if (out.size() > maxItems) {
      throw ApiError.badRequest(
          path, "'" + path + "' takes at most " + maxItems + " strings, got " + out.size());
    }
    for (String s : out) {
      if (s.isEmpty()) {
        throw ApiError.badRequest(path, "'" + path + "' must not contain an empty string");
      }
    }
    return out;
  }

  static JsonNode object(JsonNode body, String name, String path) {
    JsonNode v = body.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isObject()) {
      throw ApiError.badRequest(path, "'" + path + "' must be an object, got " + kind(v));
    }
    return v;
  }

  static String kind(JsonNode v) {
    if (v.isTextual()) {
      return "a string";
    }
    if (v.isNumber()) {
      return "a number";
    }
    if (v.isBoolean()) {
      return "a boolean";
    }
    if (v.isArray()) {
      return "a list";
    }
    if (v.isObject()) {
      return "an object";
    }
    return "null";
  }

  private static String plain(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
