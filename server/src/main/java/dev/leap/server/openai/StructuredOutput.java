package dev.leap.server.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.runtime.Constraint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The request's constraint, read from exactly one of the fields that the OpenAI API, vLLM and
 * SGLang use for it, never guessed from the text:
 *
 * <ul>
 *   <li>OpenAI: {@code response_format} {@code {"type": "json_schema", "json_schema": {"name",
 *       "schema", "strict"}}}, {@code {"type": "json_object"}} (any JSON object, nested without
 *       bound: the built-in JSON grammar, {@link Constraint#jsonObject()}) or {@code {"type":
 *       "text"}} (none); vLLM's {@code {"type": "structural_tag", "structures": [{"begin",
 *       "schema", "end"}], "triggers": [...]}} (free text with JSON-constrained tags, {@link
 *       Constraint#structuralTag});
 *   <li>vLLM: {@code structured_outputs} with one of {@code json}, {@code regex}, {@code choice},
 *       {@code grammar} (GBNF, {@link Constraint#grammar}), {@code json_object} ({@code true}),
 *       {@code structural_tag} (the structures and triggers above, as an object or a JSON string);
 *   <li>SGLang: top-level {@code regex}, {@code json_schema} (a string holding the schema) and
 *       {@code ebnf} (a grammar).
 * </ul>
 *
 * vLLM's removed {@code guided_*} fields are a 400 that names the replacement (vLLM ignores them
 * silently). Two constraint fields in one request are a 400. {@code strict: false} compiles the
 * schema leniently (keywords Leap cannot honour exactly are ignored, and logged); otherwise such a
 * keyword is a 400 naming its JSON pointer.
 */
public final class StructuredOutput {
  private StructuredOutput() {}

  private static final Map<String, String> REMOVED =
      Map.of(
          "guided_json",
              "structured_outputs.json (or OpenAI's response_format with type json_schema)",
          "guided_regex", "structured_outputs.regex",
          "guided_choice", "structured_outputs.choice",
          "guided_grammar", "structured_outputs.grammar",
          "guided_decoding_backend", "nothing: Leap has one constraint engine",
          "guided_whitespace_pattern", "nothing: Leap generates one whitespace layout");

  /** The constraint of {@code body} ({@link Constraint#none()} when it asks for none). */
  public static Constraint parse(JsonNode body) {
    for (Map.Entry<String, String> r : REMOVED.entrySet()) {
      if (body.has(r.getKey())) {
        throw ApiError.badRequest(
            r.getKey(),
            "'"
                + r.getKey()
                + "' was removed from vLLM's API (which now ignores it and "
                + "returns unconstrained text); use "
                + r.getValue());
      }
    }
    List<String> sources = new ArrayList<>();
    for (String f :
        List.of("response_format", "structured_outputs", "regex", "json_schema", "ebnf")) {
      if (Fields.present(body, f)) {
        sources.add(f);
      }
    }
    if (sources.size() > 1) {
      throw ApiError.badRequest(
          sources.get(1),
          "one constraint per request: got both '"
              + sources.get(0)
              + "' and '"
              + sources.get(1)
              + "'");
    }
    if (sources.isEmpty()) {
      return Constraint.none();
    }
    return switch (sources.get(0)) {
      case "response_format" ->
          responseFormat(Fields.object(body, "response_format", "response_format"));
      case "structured_outputs" ->
          structuredOutputs(Fields.object(body, "structured_outputs", "structured_outputs"));
      case "regex" -> Constraint.regex(Fields.string(body, "regex", "regex", null));
      case "ebnf" -> Constraint.grammar(Fields.string(body, "ebnf", "ebnf", null));
      default ->
          schema(
              parseSchemaString(
                  Fields.string(body, "json_schema", "json_schema", null), "json_schema"),
              true);
    };
  }

  private static Constraint responseFormat(JsonNode rf) {
    String type = Fields.string(rf, "type", "response_format.type", null);
    if (type == null) {
      throw ApiError.badRequest(
          "response_format.type",
          "'response_format.type' is required: text, json_object or json_schema");
    }
    switch (type) {
      case "text":
        return Constraint.none();
      case "structural_tag":
        return structuralTag(rf, "response_format");
      case "json_object":
        return Constraint.jsonObject();
      case "json_schema":
        JsonNode js = Fields.object(rf, "json_schema", "response_format.json_schema");
        if (js == null) {
          throw ApiError.badRequest(
              "response_format.json_schema",
              "'response_format.json_schema' is required with type json_schema: {\"name\": ..., \"schema\": {...}}");
        }
        Fields.string(js, "name", "response_format.json_schema.name", null);
        JsonNode schema = js.get("schema");
        if (schema == null || schema.isNull()) {
          throw ApiError.badRequest(
              "response_format.json_schema.schema",
              "'response_format.json_schema.schema' is required");
        }
        if (!schema.isObject() && !schema.isBoolean()) {
          throw ApiError.badRequest(
              "response_format.json_schema.schema",
              "'response_format.json_schema.schema' must be a JSON Schema (an object), got "
                  + Fields.kind(schema));
        }
        return schema(
            schema, Fields.bool(js, "strict", "response_format.json_schema.strict", true));
      default:
        throw ApiError.badRequest(
            "response_format.type",
            "'response_format.type' must be text, json_object, json_schema or structural_tag, got '"
                + ApiError.quote(type)
                + "'");
    }
  }

  private static Constraint structuredOutputs(JsonNode so) {
    List<String> kinds = new ArrayList<>();
    so.fieldNames()
        .forEachRemaining(
            f -> {
              if (!so.get(f).isNull()) {
                kinds.add(f);
              }
            });
    if (kinds.size() != 1) {
      throw ApiError.badRequest(
          "structured_outputs",
          "'structured_outputs' takes exactly one of json, regex, choice, grammar, json_object, structural_tag; got "
              + (kinds.isEmpty() ? "none" : ApiError.quote(String.join(", ", kinds))));
    }
    String kind = kinds.get(0);
    String path = "structured_outputs." + kind;
    return switch (kind) {
      case "json" -> {
        JsonNode v = so.get("json");
        yield schema(v.isTextual() ? parseSchemaString(v.asText(), path) : v, true);
      }
      case "regex" -> Constraint.regex(Fields.string(so, "regex", path, null));
      case "choice" -> {
        JsonNode v = so.get("choice");
        if (!v.isArray() || v.isEmpty()) {
          throw ApiError.badRequest(path, "'" + path + "' must be a non-empty list of strings");
        }
        List<String> choices = new ArrayList<>();
        for (JsonNode c : v) {
          if (!c.isTextual()) {
            throw ApiError.badRequest(
                path,
                "'" + path + "' must be a list of strings, got a list with " + Fields.kind(c));
          }
          choices.add(c.asText());
        }
        yield Constraint.choice(choices);
      }
      case "grammar" -> Constraint.grammar(Fields.string(so, "grammar", path, null));
      case "json_object" -> {
        if (!Fields.bool(so, "json_object", path, false)) {
          throw ApiError.badRequest(path, "'" + path + "' must be true (or left out)");
        }
        yield Constraint.jsonObject();
      }
      case "structural_tag" -> {
        JsonNode v = so.get("structural_tag");
        if (v.isTextual()) {
          try {
            v = Json.MAPPER.readTree(v.asText());
          } catch (JsonProcessingException e) {
            throw ApiError.badRequest(
                path,
                "'" + path + "' is not valid JSON: " + ApiError.quote(e.getOriginalMessage()));
          }
        }
        if (v == null || !v.isObject()) {
          throw ApiError.badRequest(
              path, "'" + path + "' must be {\"structures\": [...], \"triggers\": [...]}");
        }
        yield structuralTag(v, path);
      }
      default ->
          throw ApiError.badRequest(
              ApiError.quote(path),
              "unknown structured output '"
                  + ApiError.quote(kind)
                  + "': use json, regex, choice, grammar, json_object or structural_tag");
    };
  }

  /**
   * vLLM's legacy structural tag, {@code {"structures": [{"begin", "schema", "end"}], "triggers":
   * [...]}}: free text in which each trigger opens one of the structures, whose content is JSON
   * that fits its schema. (The newer {@code "format"} form is a 400 naming this one.)
   */
  private static Constraint structuralTag(JsonNode node, String path) {
    if (node.has("format")) {
      throw ApiError.badRequest(
          path + ".format",
          "the 'format' form of structural_tag is not supported; use "
              + "{\"structures\": [{\"begin\", \"schema\", \"end\"}], \"triggers\": [...]}");
    }
    JsonNode structures = node.get("structures");
    JsonNode triggers = node.get("triggers");
    if (structures == null || !structures.isArray() || structures.isEmpty()) {
      throw ApiError.badRequest(
          path + ".structures",
          "'"
              + path
              + ".structures' must be a non-empty list of "
              + "{\"begin\", \"schema\", \"end\"}");
    }
    if (triggers == null || !triggers.isArray() || triggers.isEmpty()) {
      throw ApiError.badRequest(
          path + ".triggers", "'" + path + ".triggers' must be a non-empty list of strings");
    }
    List<String> trig = new ArrayList<>();
    for (int i = 0; i < triggers.size(); i++) {
      if (!triggers.get(i).isTextual()) {
        throw ApiError.badRequest(
            path + ".triggers[" + i + "]", "'" + path + ".triggers[" + i + "]' must be a string");
      }
      trig.add(triggers.get(i).asText());
    }
    List<Constraint.Tag> tags = new ArrayList<>();
    for (int i = 0; i < structures.size(); i++) {
      String at = path + ".structures[" + i + "]";
      JsonNode st = structures.get(i);
      if (!st.isObject()) {
        throw ApiError.badRequest(at, "'" + at + "' must be {\"begin\", \"schema\", \"end\"}");
      }
      String begin = Fields.string(st, "begin", at + ".begin", null);
      String end = Fields.string(st, "end", at + ".end", "");
      JsonNode schema = st.get("schema");
      if (begin == null || schema == null || !(schema.isObject() || schema.isBoolean())) {
        throw ApiError.badRequest(
            at, "'" + at + "' needs 'begin' (a string) and 'schema' (a JSON Schema)");
      }
      tags.add(new Constraint.Tag(begin, schema(schema, true), end));
    }
    try {
      return Constraint.structuralTag(trig, tags);
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(path, e.getMessage());
    }
  }

  private static JsonNode parseSchemaString(String text, String path) {
    try {
      JsonNode n = Json.MAPPER.readTree(text);
      if (n == null || !(n.isObject() || n.isBoolean())) {
        throw ApiError.badRequest(path, "'" + path + "' must hold a JSON Schema (an object)");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest(
          path, "'" + path + "' is not valid JSON: " + ApiError.quote(e.getOriginalMessage()));
    }
  }

  private static Constraint schema(JsonNode schema, boolean strict) {
    return Constraint.jsonSchema(schema.toString(), -1, !strict);
  }
}
