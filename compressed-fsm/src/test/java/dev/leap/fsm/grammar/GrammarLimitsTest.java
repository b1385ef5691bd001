package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.SmallVocabulary;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The hard work limits: each fails fast with a clear message, never a stall. */
class GrammarLimitsTest {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void deepNestingHitsTheStackDepthLimit() {
    GrammarMatcher m =
        CompiledGrammar.compile(Grammar.json(), SmallVocabulary.create()).newMatcher();
    int ok = m.walk(m.initialState(), bytes("[".repeat(1_000)));
    assertTrue(ok != ByteAutomaton.DEAD, "1,000 levels are within the limit");
    GrammarLimitException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10),
            () ->
                assertThrows(
                    GrammarLimitException.class,
                    () -> m.walk(m.initialState(), bytes("[".repeat(3_000)))));
    assertEquals("stack depth", e.limitName());
    assertEquals(CompiledGrammar.DEFAULT_MAX_STACK_DEPTH, e.limit());
    assertTrue(e.getMessage().contains("stack depth limit of 2000 frames"), e.getMessage());
    assertTrue(e.getMessage().contains("rule \"value\""), e.getMessage());
  }

  @Test
  void aSmallerDepthLimitIsHonoured() {
    GrammarMatcher m =
        CompiledGrammar.compile(Grammar.json(), SmallVocabulary.create()).newMatcher(10, 100);
    assertTrue(m.walk(m.initialState(), bytes("[[[[[[[[")) != ByteAutomaton.DEAD);
    assertThrows(
        GrammarLimitException.class, () -> m.walk(m.initialState(), bytes("[[[[[[[[[[[[")));
  }

  @Test
  void ambiguousRecursionHitsTheLiveStackLimit() {
    // A level opens with one or two "a"s and the stacks remember which: after n "a"s, about 1.6^n
    // stacks.
    Grammar g = Grammar.parse("root ::= s\ns ::= \"a\" s \"b\" | \"a\" \"a\" s \"c\" | \"a\"");
    GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
    GrammarLimitException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10),
            () ->
                assertThrows(
                    GrammarLimitException.class,
                    () -> m.walk(m.initialState(), bytes("a".repeat(5_000)))));
    assertEquals("live stacks", e.limitName());
    assertTrue(e.getMessage().contains("ambiguity limit of 1000 live stacks"), e.getMessage());
  }

  @Test
  void ambiguousRepetitionIsRegularAndNeedsNoLimit() {
    // root ::= a* a* style ambiguity is inlined into one DFA: no stacks at all.
    Grammar g = Grammar.parse("root ::= x* x*\nx ::= \"a\" | \"aa\"");
    assertTrue(g.regular().isPresent());
    GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
    int s =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5), () -> m.walk(m.initialState(), bytes("a".repeat(100_000))));
    assertTrue(m.isAccepting(s));
    assertTrue(m.stateCount() <= 3, "interned states: " + m.stateCount());
  }

  @Test
  void forcedBytesAreCapped() {
    Grammar g =
        Grammar.parse(
            "root ::= \"<\" x \">\"\nx ::= \"" + "ab".repeat(3_000) + "\" | \"(\" x \")\"");
    GrammarMatcher m = CompiledGrammar.compile(g, SmallVocabulary.create()).newMatcher();
    byte[] f = m.forcedBytes(m.walk(m.initialState(), bytes("<")));
    assertEquals(0, f.length, "a choice between \"ab\" and \"(\" forces nothing");
    byte[] g2 = m.forcedBytes(m.walk(m.initialState(), bytes("<a")));
    assertEquals(GrammarMatcher.MAX_FORCED, g2.length);
  }
}
