package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.vocab.TokenizerJsonVocabulary;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad regexes get a clear exception with the index; limits fail fast; empty languages are rejected.
 */
class BadInputTest {

  static RegexSyntaxException syntax(String regex) {
    return assertThrows(RegexSyntaxException.class, () -> CompressedFsm.compile(regex), regex);
  }

  @Test
  void syntaxErrorsCarryPatternAndIndex() {
    RegexSyntaxException e = syntax("ab(cd");
    assertEquals("ab(cd", e.getPattern());
    assertEquals(2, e.getIndex());
    assertTrue(e.getMessage().contains("missing ')'"), e.getMessage());
    assertEquals(4, syntax("abc)").getIndex() + 1);
    assertEquals(3, syntax("abc[de").getIndex());
    assertEquals(0, syntax("*a").getIndex());
    assertEquals(1, syntax("a{2,1}").getIndex());
    assertEquals(1, syntax("a{x}").getIndex());
    assertEquals(2, syntax("[z-a]").getIndex() + 1);
    assertEquals(1, syntax("a\\").getIndex());
    assertEquals(2, syntax("ab\\q").getIndex());
    assertTrue(syntax("a{1001}").getDescription().contains("limit"));
  }

  @Test
  void groupsNestedPastTheLimitAreASyntaxErrorNotAStackOverflow() {
    int limit = dev.leap.fsm.internal.RegexParser.MAX_NESTING;
    String deepest = "(".repeat(limit) + "a" + ")".repeat(limit);
    assertTrue(CompressedFsm.compile(deepest).dfa().stateCount() > 0);
    RegexSyntaxException e = syntax("(".repeat(20_000) + "a" + ")".repeat(20_000));
    assertTrue(e.getDescription().contains("limit of " + limit), e.getDescription());
    assertEquals(limit, e.getIndex());
    // The GBNF parser keeps the same limit on parenthesized groups.
    dev.leap.fsm.grammar.GrammarSyntaxException g =
        assertThrows(
            dev.leap.fsm.grammar.GrammarSyntaxException.class,
            () ->
                dev.leap.fsm.grammar.Grammar.parse(
                    "root ::= " + "(".repeat(20_000) + "\"a\"" + ")".repeat(20_000)));
    assertTrue(g.getMessage().contains("limit of " + limit), g.getMessage());
  }

  @Test
  void unsupportedFeaturesAreNamed() {
    assertTrue(syntax("(a)\\1").getDescription().contains("backreference"));
    assertTrue(syntax("(?P<x>a)(?P=x)").getDescription().contains("backreference"));
    assertTrue(syntax("a(?=b)").getDescription().contains("lookahead"));
    assertTrue(syntax("a(?!b)").getDescription().contains("lookahead"));
    assertTrue(syntax("(?<=a)b").getDescription().contains("lookbehind"));
    assertTrue(syntax("(?<!a)b").getDescription().contains("lookbehind"));
    assertTrue(syntax("a*+").getDescription().contains("possessive"));
    assertTrue(syntax("(?i)a").getDescription().contains("inline flags"));
    assertTrue(syntax("\\bword").getDescription().contains("word boundar"));
    assertTrue(syntax("\\p{L}").getDescription().contains("Unicode property"));
    assertTrue(syntax("[[:alpha:]]").getDescription().contains("POSIX"));
    assertTrue(syntax("a^b").getDescription().contains("'^'"));
    assertTrue(syntax("a$b").getDescription().contains("'$'"));
    assertEquals(3, syntax("abc(?=d)").getIndex());
  }

  @Test
  void stateLimitFailsFastWithTheLimit() {
    long t0 = System.nanoTime();
    AutomatonTooLargeException e =
        assertThrows(
            AutomatonTooLargeException.class, () -> CompressedFsm.compile("(a|b)*a(a|b){24}"));
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(CompressedFsm.DEFAULT_MAX_DFA_STATES, e.limit());
    assertTrue(e.reached() > e.limit());
    assertTrue(
        e.getMessage().contains("state limit of " + CompressedFsm.DEFAULT_MAX_DFA_STATES),
        e.getMessage());
    assertTrue(seconds < 5, "took " + seconds + " s");
  }

  @Test
  void emptyLanguageIsRejected() {
    assertThrows(EmptyLanguageException.class, () -> CompressedFsm.compile("[^\\x00-\\x{10FFFF}]"));
    assertThrows(
        EmptyLanguageException.class,
        () -> CompressedFsm.compile("a[^\\x00-\\x{10FFFF}]b|c[^\\s\\S]"));
    // Not empty: the empty string.
    assertTrue(CompressedFsm.compile("").dfa().matches(new byte[0]));
  }

  @Test
  void vocabularyFileErrorsNameTheFile(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("nope.json");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TokenizerJsonVocabulary.load(missing));
    assertTrue(
        e.getMessage().contains(missing.toString()) && e.getMessage().contains("not found"),
        e.getMessage());
    Path notJson = Files.writeString(dir.resolve("bad.json"), "{ this is not json");
    e = assertThrows(IllegalArgumentException.class, () -> TokenizerJsonVocabulary.load(notJson));
    assertTrue(e.getMessage().contains(notJson.toString()), e.getMessage());
    Path noVocab =
        Files.writeString(dir.resolve("novocab.json"), "{\"model\": {\"type\": \"BPE\"}}");
    e = assertThrows(IllegalArgumentException.class, () -> TokenizerJsonVocabulary.load(noVocab));
    assertTrue(e.getMessage().contains("no model.vocab"), e.getMessage());
    Path wordPiece =
        Files.writeString(
            dir.resolve("wp.json"),
            "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}, \"decoder\": {\"type\": \"WordPiece\"}}");
    e = assertThrows(IllegalArgumentException.class, () -> TokenizerJsonVocabulary.load(wordPiece));
    assertTrue(
        e.getMessage().contains("WordPiece") && e.getMessage().contains(wordPiece.toString()),
        e.getMessage());
  }
}
