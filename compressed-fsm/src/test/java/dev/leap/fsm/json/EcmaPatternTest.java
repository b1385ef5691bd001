package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.Dfa;
import dev.leap.fsm.RegexSyntaxException;
import dev.leap.fsm.internal.Automata;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * JSON Schema patterns against {@link java.util.regex} as the naive twin: seeded random ECMA
 * patterns (anchors at the ends of alternatives and inside groups, ECMA's {@code \s \S .}, ASCII
 * {@code \d \w}, classes, repetition), each written a second time for Java with the classes spelled
 * out from ECMA-262's definitions and {@code $} as {@code \z}; a string is in Leap's language
 * exactly when Java's {@code find()} matches. Patterns Leap rejects (an anchor inside a repetition,
 * say) are counted, not compared.
 */
class EcmaPatternTest {

  /** ECMA-262 WhiteSpace and LineTerminator code points, as a Java class body. */
  static final String WS =
      "\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF";

  record Pair(String ecma, String java) {}

  static Pair atom(SplittableRandom r, int depth) {
    switch (r.nextInt(depth < 2 ? 13 : 11)) {
      case 0:
        return new Pair("a", "a");
      case 1:
        return new Pair("b", "b");
      case 2:
        return new Pair("0", "0");
      case 3:
        return new Pair(" ", " ");
      case 4:
        return new Pair(".", "[^\\n\\r\\u2028\\u2029]");
      case 5:
        return new Pair("\\s", "[" + WS + "]");
      case 6:
        return new Pair("\\S", "[^" + WS + "]");
      case 7:
        return r.nextBoolean() ? new Pair("\\d", "[0-9]") : new Pair("\\D", "[^0-9]");
      case 8:
        return r.nextBoolean() ? new Pair("\\w", "[A-Za-z0-9_]") : new Pair("\\W", "[^A-Za-z0-9_]");
      case 9:
        return new Pair("[a\\s]", "[a" + WS + "]");
      case 10:
        return new Pair("[^b\\d]", "[^b0-9]");
      default:
        {
          Pair inner = alternation(r, depth + 1, r.nextInt(4) == 0);
          return new Pair("(" + inner.ecma() + ")", "(" + inner.java() + ")");
        }
    }
  }

  static Pair sequence(SplittableRandom r, int depth) {
    StringBuilder e = new StringBuilder();
    StringBuilder j = new StringBuilder();
    int n = r.nextInt(4);
    for (int i = 0; i < n; i++) {
      Pair a = atom(r, depth);
      String q =
          switch (r.nextInt(8)) {
            case 0 -> "*";
            case 1 -> "+";
            case 2 -> "?";
            case 3 -> "{0,2}";
            default -> "";
          };
      e.append(a.ecma()).append(q);
      j.append(a.java()).append(q);
    }
    return new Pair(e.toString(), j.toString());
  }

  /**
   * Alternatives, each with optional anchors at its ends ({@code anchors}), sometimes one
   * misplaced.
   */
  static Pair alternation(SplittableRandom r, int depth, boolean anchors) {
    StringBuilder e = new StringBuilder();
    StringBuilder j = new StringBuilder();
    int n = 1 + r.nextInt(3);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        e.append('|');
        j.append('|');
      }
      boolean start = anchors && r.nextInt(3) == 0;
      boolean end = anchors && r.nextInt(3) == 0;
      Pair s = sequence(r, depth);
      String ecma = (start ? "^" : "") + s.ecma() + (end ? "$" : "");
      String java = (start ? "^" : "") + s.java() + (end ? "\\z" : "");
      if (r.nextInt(25) == 0) { // misplaced: Leap must reject, not guess
        ecma = "a^" + ecma;
        java = "a^" + java;
      }
      e.append(ecma);
      j.append(java);
    }
    return new Pair(e.toString(), j.toString());
  }

  static final String[] ALPHABET = {
    "a", "b", "0", "_", " ", "\n", "\r", "\t", "\u00A0", "\u2028", "\u3000", "é", "."
  };

  @Test
  void searchLanguagesMatchJavaFindOnEcmaClasses() {
    SplittableRandom r = new SplittableRandom(8080L);
    int compared = 0;
    int rejected = 0;
    int checks = 0;
    int matches = 0;
    for (int round = 0; round < 1500; round++) {
      Pair p = alternation(r, 0, true);
      Dfa dfa;
      try {
        dfa = Automata.compile(EcmaPattern.searchLanguage(p.ecma()), "test", 100_000);
      } catch (RegexSyntaxException e) {
        rejected++;
        continue;
      }
      Pattern java = Pattern.compile(p.java());
      compared++;
      for (int k = 0; k < 30; k++) {
        StringBuilder s = new StringBuilder();
        int len = r.nextInt(6);
        for (int i = 0; i < len; i++) {
          s.append(ALPHABET[r.nextInt(ALPHABET.length)]);
        }
        boolean want = java.matcher(s).find();
        boolean got = dfa != null && dfa.matches(s.toString().getBytes(StandardCharsets.UTF_8));
        assertEquals(want, got, "/" + p.ecma() + "/ (Java /" + p.java() + "/) on \"" + s + "\"");
        checks++;
        matches += want ? 1 : 0;
      }
    }
    System.out.printf(
        "ECMA patterns: %d compared (%d checks, %d matches), %d rejected%n",
        compared, checks, matches, rejected);
    assertTrue(
        compared > 1000 && matches > 5000 && checks - matches > 5000 && rejected > 10,
        compared
            + " compared, "
            + matches
            + " of "
            + checks
            + " matched, "
            + rejected
            + " rejected");
  }

  @Test
  void schemasWithAnchoredAlternativesAndEcmaClassesCompile() {
    Dfa d =
        JsonSchema.compile(
                "{\"type\":\"string\",\"pattern\":\"^$|(^\\\\S+\\\\s+\\\\S+$)\"}",
                JsonSchemaOptions.defaults())
            .dfa();
    assertTrue(matches(d, "\"\""));
    assertTrue(matches(d, "\"a b\""));
    assertTrue(matches(d, "\"a\u00A0b\""), "ECMA's \\s matches U+00A0");
    assertTrue(!matches(d, "\"ab\""));
    assertTrue(!matches(d, "\"a b c\""));
    Dfa dot =
        JsonSchema.compile(
                "{\"type\":\"string\",\"pattern\":\"^.$\"}", JsonSchemaOptions.defaults())
            .dfa();
    assertTrue(matches(dot, "\"x\""));
    assertTrue(!matches(dot, "\"\\r\""), "ECMA's . does not match a carriage return");
    JsonSchemaException e =
        assertThrows(
            JsonSchemaException.class,
            () ->
                JsonSchema.compile(
                    "{\"type\":\"string\",\"pattern\":\"(^a)*b\"}", JsonSchemaOptions.defaults()));
    assertTrue(
        e.getMessage().contains("'pattern' at #") && e.getMessage().contains("index 1"),
        e.getMessage());
  }

  static boolean matches(Dfa d, String text) {
    return d.matches(text.getBytes(StandardCharsets.UTF_8));
  }
}
