package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.AutomatonTooLargeException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every grammar error names its line and column and says what is wrong. */
class GrammarErrorTest {

  static Stream<Arguments> errors() {
    return Stream.of(
        // text, line, column, message part
        Arguments.of("root ::= \"a\" valu\nvalue ::= \"b\"", 1, 14, "undefined rule \"valu\""),
        Arguments.of(
            "root ::= \"a\"\n\n  x ::= \"b\"",
            3,
            3,
            "rule \"x\" is never used (not reachable from root)"),
        Arguments.of("start ::= \"a\"", 1, 1, "no rule named \"root\""),
        Arguments.of(
            "root ::= expr\nexpr ::= term | expr \"+\" term\nterm ::= [0-9]",
            2,
            1,
            "rule expr is left-recursive: expr -> expr"),
        Arguments.of(
            "root ::= x\nx ::= y \"a\"\ny ::= \"b\"? x",
            2,
            1,
            "rule x is left-recursive: x -> y -> x"),
        Arguments.of(
            "root ::= x\nx ::= (\"\" | \"c\")* z \"a\"\nz ::= \"q\"* x",
            2,
            1,
            "rule x is left-recursive: x -> z -> x"),
        Arguments.of("root ::= \"a\" x\nx ::= \"b\" x", 2, 1, "rule \"x\" never finishes"),
        Arguments.of(
            "root ::= \"a\"\nroot ::= \"b\"",
            2,
            1,
            "rule \"root\" is defined twice (first at line 1)"),
        Arguments.of("root ::= \"abc", 1, 10, "unterminated string literal"),
        Arguments.of("root ::= [a-", 1, 10, "unterminated character class"),
        Arguments.of("root ::= [z-a]", 1, 11, "character range z-a is out of order"),
        Arguments.of("root ::= (\"a\" | \"b\"", 1, 10, "unclosed \"(\""),
        Arguments.of("root ::= \"a\" )", 1, 14, "unbalanced \")\""),
        Arguments.of("root ::= \"a\"{3,2}", 1, 13, "maximum below its minimum"),
        Arguments.of("root ::= \"a\"{x}", 1, 13, "repetition must be {m}, {m,} or {m,n}"),
        Arguments.of("root ::= \"\\q\"", 1, 11, "unknown escape \\q"),
        Arguments.of("root ::= \"\\uD800\"", 1, 11, "not a Unicode scalar value"),
        Arguments.of(
            "root ::= [^\\x00-\\U0010FFFF]", 1, 10, "character class matches no character"),
        // A rule goes on over lines until the next "name ::=": "other" is a reference here.
        Arguments.of(
            "root ::= \"a\"\n  # comment\n  other \"b\"", 3, 3, "undefined rule \"other\""),
        Arguments.of("root := \"a\"", 1, 6, "expected \"::=\" after rule name \"root\""),
        Arguments.of("root ::= \"é\" ; ", 1, 14, "unexpected \";\""));
  }

  @ParameterizedTest
  @MethodSource("errors")
  void errorNamesLineAndColumn(String gbnf, int line, int column, String part) {
    GrammarSyntaxException e =
        assertThrows(GrammarSyntaxException.class, () -> Grammar.parse(gbnf));
    assertTrue(e.getMessage().contains(part), e.getMessage());
    assertEquals(line, e.line(), e.getMessage());
    assertEquals(column, e.column(), e.getMessage());
    assertTrue(
        e.getMessage().startsWith("grammar line " + line + ", column " + column + ": "),
        e.getMessage());
  }

  @Test
  void tooManyDfaStatesInARuleNamesTheRule() {
    String gbnf = "root ::= \"<\" big \">\"\nbig ::= [ab]* \"a\" [ab]{16} | \"(\" root \")\"";
    AutomatonTooLargeException e =
        assertThrows(AutomatonTooLargeException.class, () -> Grammar.parse(gbnf, 1_000));
    assertTrue(
        e.getMessage().contains("rule \"root\"") || e.getMessage().contains("rule \"big\""),
        e.getMessage());
    assertTrue(e.getMessage().startsWith("grammar line "), e.getMessage());
    assertTrue(e.getMessage().contains("1000 DFA states"), e.getMessage());
  }

  @Test
  void regularGrammarPastTheStateLimitFailsLikeARegex() {
    assertThrows(
        AutomatonTooLargeException.class,
        () -> Grammar.parse("root ::= [ab]* \"a\" [ab]{16}", 1_000));
  }
}
