package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Forms of Python's regex dialect that peers' regexes use (issue 18): {@code ^} and {@code $} at
 * the ends of top-level alternatives ({@code ^$|^https://x\.com/}, from an XGrammar bug report),
 * and an unescaped {@code [} inside a class (XGrammar's e-mail regex), each against Python's {@code
 * re.fullmatch} read through {@code java.util.regex} ({@link PythonRegex}) on seeded random regexes
 * and texts. Anchors elsewhere stay errors that name their index.
 */
class PythonDialectTest {
  private static final String[] ATOMS = {
    "a", "b", "ab", "[ab]", "[[a]", "[a[]", "[^[]", "[[]", "x?", "(?:a|b)", "\\[", "[!-[]"
  };
  private static final String TEXT_ALPHABET = "ab[x";

  @Test
  void anchorsAtTheEndsOfTopLevelAlternativesAndBracketsInClassesMatchAsInPython() {
    SplittableRandom r = new SplittableRandom(1804L);
    PythonRegex python = new PythonRegex();
    int matches = 0;
    for (int i = 0; i < 600; i++) {
      StringBuilder regex = new StringBuilder();
      for (int alt = 0, n = 1 + r.nextInt(3); alt < n; alt++) {
        if (alt > 0) {
          regex.append('|');
        }
        if (r.nextBoolean()) {
          regex.append('^');
        }
        for (int k = 0, m = r.nextInt(3); k < m; k++) {
          regex.append(ATOMS[r.nextInt(ATOMS.length)]);
        }
        if (r.nextBoolean()) {
          regex.append('$');
        }
      }
      String re = regex.toString();
      Pattern oracle = python.compile(re);
      Dfa dfa;
      try {
        dfa = CompressedFsm.compile(re).dfa();
      } catch (EmptyLanguageException e) {
        dfa = null;
      }
      for (int t = 0; t < 30; t++) {
        StringBuilder text = new StringBuilder();
        for (int k = 0, m = r.nextInt(5); k < m; k++) {
          text.append(TEXT_ALPHABET.charAt(r.nextInt(TEXT_ALPHABET.length())));
        }
        boolean truth = oracle.matcher(text).matches();
        matches += truth ? 1 : 0;
        boolean leap = dfa != null && dfa.matches(text.toString().getBytes(StandardCharsets.UTF_8));
        assertEquals(truth, leap, "/" + re + "/ on \"" + text + "\"");
      }
    }
    assertTrue(matches > 1000, "too few matching texts drawn: " + matches);
  }

  @Test
  void thePeersRegexesCompile() {
    Dfa url = CompressedFsm.compile("^$|^https://x\\.com/").dfa();
    assertTrue(
        url.matches(new byte[0]) && url.matches("https://x.com/".getBytes(StandardCharsets.UTF_8)));
    assertTrue(
        !url.matches("https://x.com/a".getBytes(StandardCharsets.UTF_8)),
        "Leap's regexes match whole texts");
    String email =
        "^([\\w!#$%&'*+/=?^_`{|}~-]+(\\.[\\w!#$%&'*+/=?^_`{|}~-]+)*|\"([\\w!#$%&'*+/=?^_`{|}~\\-(),:;<>@[\\].]|\\\\\")+\")"
            + "@(([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?)$";
    Dfa mail = CompressedFsm.compile(email).dfa();
    assertTrue(
        mail.matches("\"a[b\"@x.org".getBytes(StandardCharsets.UTF_8)),
        "'[' inside the class is a literal");
    assertTrue(mail.matches("joe@x.org".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void anchorsElsewhereAreStillErrorsWithTheirIndex() {
    assertEquals(1, syntax("a^b").getIndex());
    assertEquals(1, syntax("a$b").getIndex());
    assertEquals(1, syntax("(^a)").getIndex());
    assertEquals(2, syntax("(a$)").getIndex());
    assertEquals(3, syntax("a|b^c").getIndex());
    assertEquals(1, syntax("a$$").getIndex());
    assertTrue(syntax("a^b").getDescription().contains("top-level alternatives"));
    assertTrue(syntax("[[:alpha:]]").getDescription().contains("POSIX"));
  }

  private static RegexSyntaxException syntax(String regex) {
    return assertThrows(RegexSyntaxException.class, () -> CompressedFsm.compile(regex), regex);
  }
}
