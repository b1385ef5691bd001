package dev.leap.server.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * A request body read strictly: valid UTF-8 (no overlong forms, no encoded surrogates: the JDK's
 * decoder in REPORT mode), one JSON object and nothing after it, nesting and number length within
 * {@link Json}'s limits, no lone surrogate in any string or name (a {@code \uD800} escape would
 * otherwise reach the tokenizer as {@code ?}). Every failure is a 400 whose message names the JSON
 * path or byte offset and quotes at most {@value ApiError#MAX_QUOTE} characters of the input.
 */
public final class RequestBody {
  private RequestBody() {}

  /** The body as a JSON object, or a 400 {@link ApiError}. */
  public static JsonNode parse(byte[] bytes) {
    String text = utf8(bytes);
    JsonNode n;
    JsonParser p = null;
    try {
      p = Json.MAPPER.createParser(text);
      n = Json.MAPPER.readTree(p);
      if (n != null && p.nextToken() != null) {
        throw ApiError.badRequest(
            null,
            "the request body has content after its JSON value (at line "
                + p.currentLocation().getLineNr()
                + ", column "
                + p.currentLocation().getColumnNr()
                + ")");
      }
    } catch (StreamConstraintsException e) {
      throw ApiError.badRequest(path(p), limitMessage(e, p));
    } catch (JsonProcessingException e) {
      if (String.valueOf(e.getOriginalMessage()).startsWith("Trailing token")) {
        throw ApiError.badRequest(
            null,
            "the request body has content after its JSON value"
                + (e.getLocation() == null
                    ? ""
                    : " (line "
                        + e.getLocation().getLineNr()
                        + ", column "
                        + e.getLocation().getColumnNr()
                        + ")"));
      }
      String where =
          e.getLocation() == null
              ? ""
              : " (line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr()
                  + ")";
      throw ApiError.badRequest(
          path(p),
          "the request body is not valid JSON: "
              + ApiError.quote(String.valueOf(e.getOriginalMessage()))
              + where);
    } catch (IOException e) {
      throw ApiError.badRequest(null, "could not read the request body");
    } finally {
      if (p != null) {
        try {
          p.close();
        } catch (IOException ignored) {
          // a string source
        }
      }
    }
    if (n == null || !n.isObject()) {
      throw ApiError.badRequest(null, "the request body must be a JSON object");
    }
    checkSurrogates(n);
    return n;
  }

  private static String limitMessage(StreamConstraintsException e, JsonParser p) {
    String m = String.valueOf(e.getOriginalMessage());
    String at = path(p);
    String where = at == null ? "" : " at '" + at + "'";
    if (m.contains("nesting depth")) {
      return "the request body nests arrays and objects deeper than the limit of "
          + Json.MAX_DEPTH
          + " levels"
          + where;
    }
    if (m.contains("Number value length") || m.contains("number length")) {
      return "a number in the request body is longer than the limit of "
          + Json.MAX_NUMBER_LENGTH
          + " characters"
          + where;
    }
    return "the request body is over a parser limit" + where + ": " + ApiError.quote(m);
  }

  /** Strict UTF-8: a 400 naming the byte offset of the first malformed sequence. */
  private static String utf8(byte[] bytes) {
    CharsetDecoder d =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult r = d.decode(in, out, true);
    if (r.isError()) {
      throw ApiError.badRequest(
          null, "the request body is not valid UTF-8 (byte offset " + in.position() + ")");
    }
    r = d.flush(out);
    if (r.isError()) {
      throw ApiError.badRequest(null, "the request body is not valid UTF-8 (at its end)");
    }
    out.flip();
    return out.toString();
  }

  /**
   * A 400 for the first lone surrogate in a string or a name (an iterative walk: the depth is
   * bounded, the width is not).
   */
  private static void checkSurrogates(JsonNode root) {
    Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
    todo.push(Map.entry("", root));
    while (!todo.isEmpty()) {
      Map.Entry<String, JsonNode> e = todo.pop();
      JsonNode n = e.getValue();
      if (n.isTextual()) {
        check(n.textValue(), e.getKey());
      } else if (n.isArray()) {
        for (int i = 0; i < n.size(); i++) {
          todo.push(Map.entry(e.getKey() + "[" + i + "]", n.get(i)));
        }
      } else if (n.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> f = it.next();
          String path = e.getKey().isEmpty() ? f.getKey() : e.getKey() + "." + f.getKey();
          check(f.getKey(), e.getKey().isEmpty() ? "(a name)" : e.getKey());
          todo.push(Map.entry(path, f.getValue()));
        }
      }
    }
  }

  private static void check(String s, String path) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        String at = ApiError.quote(path);
        throw ApiError.badRequest(
            path.isEmpty() ? null : at,
            "'"
                + at
                + "' has a lone surrogate (\\u"
                + Integer.toHexString(c).toUpperCase()
                + " at character "
                + i
                + "): text must be valid Unicode");
      }
    }
  }

  /**
   * The parser's current JSON path, dotted ({@code messages[0].content}), quoted within the limit;
   * null at the root.
   */
  private static String path(JsonParser p) {
    if (p == null) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    Deque<String> parts = new ArrayDeque<>();
    for (JsonStreamContext c = p.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
      if (c.inArray()) {
        parts.push("[" + Math.max(0, c.getCurrentIndex()) + "]");
      } else if (c.getCurrentName() != null) {
        parts.push("." + c.getCurrentName());
      }
      if (parts.size() > Json.MAX_DEPTH + 2) {
        break;
      }
    }
    for (String s : parts) {
      sb.append(s);
    }
    String path = sb.length() > 0 && sb.charAt(0) == '.' ? sb.substring(1) : sb.toString();
    return path.isEmpty() ? null : ApiError.quote(path);
  }
}
