package dev.leap.fsm.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.internal.Json;
import java.util.Iterator;
import java.util.Map;

/**
 * Where whitespace goes in generated JSON, in one place: compact ({@code indent < 0}: no whitespace
 * at all) or a fixed indent of {@code indent} spaces per nesting level. In the indented layout
 * every member and element starts on a new line indented one level deeper than its container
 * ({@link #newline(int)} of {@code level + 1}), the closing bracket on a new line at the
 * container's level, and a key is followed by {@code ": "}; an empty container is {@code {}} or
 * {@code []}. Separators are a bare {@code ","} in both layouts.
 *
 * <p>Invariant: the text of a value depends on its nesting level only in the indented layout, so
 * {@link #levelKey} is what memoization by level must use.
 */
final class JsonLayout {
  private final int indent;
  private final ObjectMapper mapper = Json.MAPPER;

  /**
   * @param indent {@code -1} for compact, else the spaces per level
   */
  JsonLayout(int indent) {
    this.indent = indent;
  }

  boolean compact() {
    return indent < 0;
  }

  /** The nesting level as far as the text depends on it: 0 when compact, else {@code level}. */
  int levelKey(int level) {
    return compact() ? 0 : level;
  }

  /**
   * Before a member or element at nesting {@code level}, or a closing bracket of a container at it.
   */
  String newline(int level) {
    return compact() ? "" : "\n" + " ".repeat(indent * level);
  }

  /** Between a key and its value. */
  String colon() {
    return compact() ? ":" : ": ";
  }

  /** The JSON text of a string. */
  String quote(String text) {
    try {
      return mapper.writeValueAsString(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The text of value {@code v} at nesting {@code level}, in this layout (members in their own
   * order).
   */
  String write(JsonNode v, int level) {
    try {
      if (compact() || !(v.isContainerNode()) || v.isEmpty()) {
        return mapper.writeValueAsString(v);
      }
      return writeIndented(v, level);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A non-empty container value in the indented layout. */
  private String writeIndented(JsonNode v, int level) throws JsonProcessingException {
    StringBuilder sb = new StringBuilder();
    String in = newline(level + 1);
    if (v.isObject()) {
      sb.append('{');
      boolean first = true;
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        sb.append(first ? "" : ",")
            .append(in)
            .append(mapper.writeValueAsString(e.getKey()))
            .append(colon())
            .append(write(e.getValue(), level + 1));
        first = false;
      }
      return sb.append(newline(level)).append('}').toString();
    }
    sb.append('[');
    boolean first = true;
    for (JsonNode e : v) {
      sb.append(first ? "" : ",").append(in).append(write(e, level + 1));
      first = false;
    }
    return sb.append(newline(level)).append(']').toString();
  }
}
