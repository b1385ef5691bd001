package dev.leap.fsm.json;

import dev.leap.fsm.internal.RegexParser;

/**
 * How a JSON Schema becomes a constraint.
 *
 * @param indent {@code -1} for compact JSON (the default), else the spaces per nesting level of a
 *     fixed pretty layout
 * @param lenient ignore keywords that cannot be honoured exactly (listed in the result) instead of
 *     failing
 * @param maxRecursion how many times one {@code $ref} may be expanded inside itself
 * @param maxRegexLength limit on the generated regex's length in characters
 * @param maxDfaStates limit on DFA states during compilation
 * @param maxStringLength the longest string generated where the schema allows longer ones ({@code
 *     maxLength} above it): a bounded length costs DFA states per character, so larger bounds are
 *     met by generating at most this many characters; unbounded strings stay unbounded
 */
public record JsonSchemaOptions(
    int indent,
    boolean lenient,
    int maxRecursion,
    int maxRegexLength,
    int maxDfaStates,
    int maxStringLength) {

  public static final int DEFAULT_MAX_RECURSION = 3;

  /** JSON Schemas with many optional members need more states than typical regexes. */
  public static final int DEFAULT_MAX_DFA_STATES = 100_000;

  public static final int DEFAULT_MAX_REGEX_LENGTH = 2_000_000;
  public static final int DEFAULT_MAX_STRING_LENGTH = 256;

  public JsonSchemaOptions {
    if (indent < -1 || indent > 16) {
      throw new IllegalArgumentException("indent must be -1 (compact) or 0..16, got " + indent);
    }
    if (maxRecursion < 0) {
      throw new IllegalArgumentException("maxRecursion must be >= 0, got " + maxRecursion);
    }
    if (maxStringLength < 1 || maxStringLength > RegexParser.MAX_REPEAT) {
      throw new IllegalArgumentException(
          "maxStringLength must be 1.." + RegexParser.MAX_REPEAT + ", got " + maxStringLength);
    }
  }

  /** Compact, strict, default limits. */
  public static JsonSchemaOptions defaults() {
    return new JsonSchemaOptions(
        -1,
        false,
        DEFAULT_MAX_RECURSION,
        DEFAULT_MAX_REGEX_LENGTH,
        DEFAULT_MAX_DFA_STATES,
        DEFAULT_MAX_STRING_LENGTH);
  }

  public JsonSchemaOptions withIndent(int n) {
    return new JsonSchemaOptions(
        n, lenient, maxRecursion, maxRegexLength, maxDfaStates, maxStringLength);
  }

  public JsonSchemaOptions withLenient(boolean on) {
    return new JsonSchemaOptions(
        indent, on, maxRecursion, maxRegexLength, maxDfaStates, maxStringLength);
  }

  public JsonSchemaOptions withMaxStringLength(int n) {
    return new JsonSchemaOptions(indent, lenient, maxRecursion, maxRegexLength, maxDfaStates, n);
  }

  public JsonSchemaOptions withMaxDfaStates(int n) {
    return new JsonSchemaOptions(indent, lenient, maxRecursion, maxRegexLength, n, maxStringLength);
  }
}
