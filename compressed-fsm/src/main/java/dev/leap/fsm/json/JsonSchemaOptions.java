package dev.leap.fsm.json;

/**
 * How a JSON Schema becomes a constraint.
 *
 * @param indent {@code -1} for compact JSON (the default), else the spaces per nesting level of a
 *     fixed pretty layout
 * @param lenient ignore keywords that cannot be honoured exactly (listed in the result) instead of failing
 * @param maxRecursion how many times one {@code $ref} may be expanded inside itself
 * @param maxRegexLength limit on the generated regex's length in characters
 * @param maxDfaStates limit on DFA states during compilation
 */
public record JsonSchemaOptions(int indent, boolean lenient, int maxRecursion, int maxRegexLength, int maxDfaStates) {

  public static final int DEFAULT_MAX_RECURSION = 3;
  /** JSON Schemas with many optional members need more states than typical regexes. */
  public static final int DEFAULT_MAX_DFA_STATES = 100_000;
  public static final int DEFAULT_MAX_REGEX_LENGTH = 2_000_000;

  public JsonSchemaOptions {
    if (indent < -1 || indent > 16) {
      throw new IllegalArgumentException("indent must be -1 (compact) or 0..16, got " + indent);
    }
    if (maxRecursion < 0) {
      throw new IllegalArgumentException("maxRecursion must be >= 0, got " + maxRecursion);
    }
  }

  /** Compact, strict, default limits. */
  public static JsonSchemaOptions defaults() {
    return new JsonSchemaOptions(-1, false, DEFAULT_MAX_RECURSION, DEFAULT_MAX_REGEX_LENGTH, DEFAULT_MAX_DFA_STATES);
  }

  public JsonSchemaOptions withIndent(int n) {
    return new JsonSchemaOptions(n, lenient, maxRecursion, maxRegexLength, maxDfaStates);
  }

  public JsonSchemaOptions withLenient(boolean on) {
    return new JsonSchemaOptions(indent, on, maxRecursion, maxRegexLength, maxDfaStates);
  }

  public JsonSchemaOptions withMaxDfaStates(int n) {
    return new JsonSchemaOptions(indent, lenient, maxRecursion, maxRegexLength, n);
  }
}
