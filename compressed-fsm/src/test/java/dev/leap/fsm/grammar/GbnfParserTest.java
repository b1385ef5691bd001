package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The GBNF dialect: escapes, classes, comments, rules over several lines, repetition forms. */
class GbnfParserTest {

  private static boolean matches(Grammar g, String text) {
    GrammarMatcher m =
        CompiledGrammar.compile(g, dev.leap.fsm.SmallVocabulary.create()).newMatcher();
    int s = m.walk(m.initialState(), text.getBytes(StandardCharsets.UTF_8));
    return s != ByteAutomaton.DEAD && m.isAccepting(s);
  }

  @Test
  void escapesInLiteralsAndClasses() {
    Grammar g =
        Grammar.parse("root ::= \"\\n\\t\\r\\\\\\\"\\x41\\u00e9\\U0001F600\" [\\]\\[\\-\\^]");
    assertTrue(matches(g, "\n\t\r\\\"Aé😀]"));
    assertTrue(matches(g, "\n\t\r\\\"Aé😀-"));
    assertTrue(matches(g, "\n\t\r\\\"Aé😀^"));
    assertTrue(!matches(g, "\n\t\r\\\"Aé😀a"));
  }

  @Test
  void negatedClassesAndDotCoverAllCodePoints() {
    Grammar g = Grammar.parse("root ::= [^a-c] . [^\\x00-\\x7F]");
    assertTrue(matches(g, "d\n中"));
    assertTrue(matches(g, "😀xé"));
    assertTrue(!matches(g, "axé"));
    assertTrue(!matches(g, "dxe"));
  }

  @Test
  void llamaCppStyleGrammarWithCommentsAndContinuationLines() {
    String gbnf =
        String.join(
            "\n",
            "# a comment line",
            "root   ::= object # trailing comment",
            "object ::=",
            "  \"{\" ws (",
            "    string \":\" ws value",
            "    (\",\" ws string \":\" ws value)*",
            "  )? \"}\" ws",
            "value  ::= object | string | [0-9]+ ws",
            "string ::= \"\\\"\" [a-z]* \"\\\"\" ws",
            "ws ::= [ \\t\\n]{0,2}",
            "");
    Grammar g = Grammar.parse(gbnf);
    assertTrue(matches(g, "{\"a\": 1, \"b\":{}}"));
    assertTrue(matches(g, "{ \"a\":\n\"x\" }\n"));
    assertTrue(!matches(g, "{\"a\":1,}"));
    assertTrue(
        g.describe().contains("object (line 3): ") && g.describe().contains("compiled, recursive"),
        g.describe());
  }

  @Test
  void alternativesMayStartALine() {
    Grammar g = Grammar.parse("root ::= \"a\"\n     | \"b\"\n     | \"c\" root");
    assertTrue(matches(g, "cca"));
    assertTrue(matches(g, "b"));
    assertTrue(!matches(g, "cc"));
  }

  @Test
  void repetitionForms() {
    Grammar g =
        Grammar.parse("root ::= \"a\"{2} \"b\"{1,} \"c\"{0,2} \"d\"? \"e\"* \"f\"+ (\"g\" | )");
    assertTrue(matches(g, "aabf"));
    assertTrue(matches(g, "aabbbccdeeeffg"));
    assertTrue(!matches(g, "abf"));
    assertTrue(!matches(g, "aabcccf"));
    assertEquals(1, g.compiledRules().size());
  }

  @Test
  void emptyLiteralAndEmptyAlternative() {
    Grammar g = Grammar.parse("root ::= \"\" | \"x\" root");
    assertTrue(matches(g, ""));
    assertTrue(matches(g, "xxx"));
  }
}
