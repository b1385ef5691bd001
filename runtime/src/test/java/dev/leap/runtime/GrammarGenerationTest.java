package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.runtime.testing.TestModels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Grammars inside continuous batching: recursive grammars through the pushdown matcher, with
 * jump-forward and retokenization and the runtime's invariant checks on; a grammar without
 * recursion through exactly a regex's DFA; a grammar past a work limit ends its own request only.
 */
class GrammarGenerationTest {
  static final String ARITHMETIC =
      String.join(
          "\n",
          "root   ::= expr",
          "expr   ::= term ( [+-] term )*",
          "term   ::= factor ( [*/] factor )*",
          "factor ::= [0-9]{1,3} | \"(\" expr \")\"");
  static final String NESTED =
      String.join(
          "\n",
          "root ::= \"{\\\"name\\\": \\\"\" [a-z]{1,6} \"\\\", \\\"children\\\": [\" ( node ( \", \" node )* )? \"]}\"",
          "node ::= \"{\\\"name\\\": \\\"\" [a-z]{1,6} \"\\\", \\\"children\\\": [\" ( node ( \", \" node )* )? \"]}\"");

  private static boolean accepts(Grammar g, GrammarCompiler v, String text) {
    GrammarMatcher m = v.compiled(g).newMatcher();
    int s = m.walk(m.initialState(), text.getBytes(StandardCharsets.UTF_8));
    return s != ByteAutomaton.DEAD && m.isAccepting(s);
  }

  /**
   * Compiles grammars against the test model's tokenizer, to check outputs with a fresh matcher.
   */
  private record GrammarCompiler(LeapRuntime rt) {
    CompiledGrammar compiled(Grammar g) {
      return CompiledGrammar.compile(g, rt.tokenizer());
    }
  }

  @Test
  void recursiveGrammarsGenerateValidTextWithJumpsInsideTheBatch() throws Exception {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(1717);
    List<String> grammars = List.of(ARITHMETIC, NESTED, Grammar.jsonObject().source());
    List<GenerationRequest> reqs = new ArrayList<>();
    for (int i = 0; i < 36; i++) {
      String g = grammars.get(i % grammars.size());
      SamplingParams.Builder p =
          SamplingParams.builder().maxTokens(8 + rnd.nextInt(56)).seed(rnd.nextLong());
      if (rnd.nextBoolean()) {
        p.temperature(0.5 + rnd.nextDouble());
      }
      GenerationRequest r =
          GenerationRequest.of(i % 2 == 0 ? "Answer:" : "x", Constraint.grammar(g), p.build());
      reqs.add(i % 4 == 3 ? r.withJumpForward(false) : r);
    }
    ObjectMapper json = new ObjectMapper();
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      GrammarCompiler v = new GrammarCompiler(rt);
      List<Generation> out = rt.generateAll(reqs);
      long jumped = 0;
      int stopped = 0;
      for (int i = 0; i < out.size(); i++) {
        Generation g = out.get(i);
        assertFalse(g.isError(), g.error());
        Grammar grammar = Grammar.parse(((Constraint.Gbnf) reqs.get(i).constraint()).text());
        GrammarMatcher m = v.compiled(grammar).newMatcher();
        int s = m.walk(m.initialState(), g.text().getBytes(StandardCharsets.UTF_8));
        assertTrue(s != ByteAutomaton.DEAD, "output leaves the grammar: " + g.text());
        if (g.finishReason() == FinishReason.STOP) {
          stopped++;
          assertTrue(
              m.isAccepting(s) && g.isComplete(), "stopped before the grammar's end: " + g.text());
          if (i % 3 == 2) {
            JsonNode node = json.readTree(g.text());
            assertTrue(node.isObject(), g.text());
          }
        }
        jumped += g.stats().tokensJumped();
      }
      assertTrue(
          jumped > 0, "no jump in " + out.size() + " grammar requests: the test checks nothing");
      assertTrue(stopped > 0, "no request reached the grammar's end");
      assertTrue(
          accepts(Grammar.parse(ARITHMETIC), v, "(1+2)*3")
              && !accepts(Grammar.parse(ARITHMETIC), v, "(1+2"));
    }
  }

  @Test
  void theForcedTextAfterARecursiveValueIsJumped() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      Generation g =
          rt.generate(
              "Tree:", Constraint.grammar(NESTED), SamplingParams.builder().maxTokens(120).build());
      assertFalse(g.isError(), g.error());
      assertTrue(g.text().startsWith("{\"name\": \""), g.text());
      // `{"name": "` at the start and `", "children": [` after every name are forced (less what
      // retokenization merged into tokens the model wrote).
      assertTrue(
          g.stats().jumps() >= 2 && g.stats().bytesJumped() >= "\", \"children\": [".length(),
          g.toString());
    }
  }

  @Test
  void aGrammarWithoutRecursionIsExactlyTheRegexsDfa() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    String grammar =
        "root ::= \"Date: \" [0-9]{4} \"-\" [0-9]{2} \", weather: \" ( \"sunny\" | \"rainy\" | \"cloudy\" )";
    String regex = "Date: [0-9]{4}-[0-9]{2}, weather: (sunny|rainy|cloudy)";
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      SplittableRandom rnd = new SplittableRandom(99);
      for (int i = 0; i < 6; i++) {
        SamplingParams p =
            SamplingParams.builder()
                .temperature(i % 2 == 0 ? 0 : 1)
                .seed(rnd.nextLong())
                .maxTokens(30)
                .build();
        Generation a = rt.generate("Answer:", Constraint.grammar(grammar), p);
        Generation b = rt.generate("Answer:", Constraint.regex(regex), p);
        assertArrayEquals(b.tokenIds(), a.tokenIds(), a + " vs " + b);
        assertEquals(b.stats().tokensJumped(), a.stats().tokensJumped());
      }
    }
  }

  @Test
  void aGrammarPastItsWorkLimitEndsOnlyItsOwnRequest() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    // Exponentially many parses of a run of 'a's: the live stacks grow past the matcher's limit.
    String ambiguous = String.join("\n", "root ::= x", "x    ::= \"a\" | \"a\" x x | \"a\" x x x");
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      List<GenerationRequest> reqs = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        reqs.add(
            GenerationRequest.of(
                "x",
                Constraint.grammar(ARITHMETIC),
                SamplingParams.builder().maxTokens(20).build()));
      }
      reqs.add(
          GenerationRequest.of(
              "x", Constraint.grammar("root ::= \"a\" undefined"), SamplingParams.greedy()));
      reqs.add(
          GenerationRequest.of(
              "x",
              Constraint.grammar(ambiguous),
              SamplingParams.builder().maxTokens(200).temperature(1).seed(5).build()));
      List<Generation> out = rt.generateAll(reqs);
      for (int i = 0; i < 4; i++) {
        assertFalse(out.get(i).isError(), out.get(i).error());
      }
      Generation bad = out.get(4);
      assertTrue(
          bad.isError() && bad.error().contains("line 1") && bad.error().contains("undefined"),
          bad.error());
      Generation heavy = out.get(5);
      assertTrue(heavy.isError() && heavy.error().contains("limit"), heavy.toString());
    }
  }
}
