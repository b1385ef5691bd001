package dev.leap.server.openai;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/** The one object mapper of the server, and JSON trees as plain Java values (for templates). */
public final class Json {
  private Json() {}

  public static final ObjectMapper MAPPER = new ObjectMapper();

  /** An object node as an insertion-ordered map of maps, lists, strings, numbers, booleans and nulls. */
  static Map<String, Object> toJava(JsonNode object) {
    return MAPPER.convertValue(object, new TypeReference<java.util.LinkedHashMap<String, Object>>() {});
  }
}
