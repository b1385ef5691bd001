package dev.leap.server.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one object mapper of the server, and JSON trees as plain Java values (for templates). It
 * reads strictly and within limits: at most {@value #MAX_DEPTH} levels of nesting, numbers of at
 * most {@value #MAX_NUMBER_LENGTH} characters, nothing after the value (Jackson's {@code
 * StreamReadConstraints} and {@code FAIL_ON_TRAILING_TOKENS}); {@link RequestBody} adds UTF-8 and
 * surrogate checks for request bodies.
 */
public final class Json {
  private Json() {}

  /**
   * Deepest nesting of arrays and objects in a request body (and in a schema given as a string).
   */
  public static final int MAX_DEPTH = 256;

  /** Longest number literal, in characters. */
  public static final int MAX_NUMBER_LENGTH = 100;

  public static final ObjectMapper MAPPER =
      new ObjectMapper(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_DEPTH)
                          .maxNumberLength(MAX_NUMBER_LENGTH)
                          .build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /**
   * An object node as an insertion-ordered map of maps, lists, strings, numbers, booleans and
   * nulls.
   */
  static Map<String, Object> toJava(JsonNode object) {
    return MAPPER.convertValue(object, new TypeReference<LinkedHashMap<String, Object>>() {});
  }
}
