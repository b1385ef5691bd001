package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.SmallVocabulary;
import dev.leap.fsm.TokenIndex;
import dev.leap.vocab.Vocabulary;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A grammar without recursion is exactly today's DFA: same states, transitions, accepting states
 * and jump edges as the equivalent regex.
 */
class GrammarRegularTest {

  static Stream<Arguments> pairs() {
    return Stream.of(
        Arguments.of("root ::= \"a\" [b-d]+ \"e\"? | \"x\"", "a[b-d]+e?|x"),
        Arguments.of(
            "root ::= item (\",\" item)*\nitem ::= [0-9]+ | \"\\\"\" [^\"\\n]* \"\\\"\"",
            "([0-9]+|\"[^\"\\n]*\")(,([0-9]+|\"[^\"\\n]*\"))*"),
        Arguments.of(
            "root ::= \"{\\\"name\\\":\" str \",\\\"age\\\":\" num \"}\"\n"
                + "str ::= \"\\\"\" [a-zé]{1,8} \"\\\"\"\nnum ::= \"-\"? [1-9] [0-9]{0,2}",
            "\\{\"name\":\"[a-zé]{1,8}\",\"age\":-?[1-9][0-9]{0,2}\\}"),
        Arguments.of("root ::= x* x*\nx ::= \"ab\" | \"a\"", "(ab|a)*(ab|a)*"),
        Arguments.of("root ::= ( [^a-z] | \"中文\" ){2,4} .", "([^a-z]|中文){2,4}[\\s\\S]"));
  }

  @ParameterizedTest
  @MethodSource("pairs")
  void sameDfaAsTheRegex(String gbnf, String regex) {
    Grammar g = Grammar.parse(gbnf);
    assertTrue(g.regular().isPresent(), "no recursion: one DFA");
    CompressedFsm a = g.regular().get();
    CompressedFsm b = CompressedFsm.compile(regex);
    Dfa x = a.dfa();
    Dfa y = b.dfa();
    assertEquals(y.stateCount(), x.stateCount(), "states");
    for (int s = 0; s < x.stateCount(); s++) {
      assertEquals(y.isAccepting(s), x.isAccepting(s), "accepting " + s);
      for (int c = 0; c < 256; c++) {
        assertEquals(y.step(s, c), x.step(s, c), "state " + s + " byte " + c);
      }
      assertArrayEquals(b.jumpBytes(s), a.jumpBytes(s), "jump of " + s);
      assertEquals(b.jumpTarget(s), a.jumpTarget(s), "jump target of " + s);
    }
    // The matcher of a regular grammar: one stack per state, the regex's masks.
    Vocabulary v = SmallVocabulary.create();
    GrammarMatcher m = CompiledGrammar.compile(g, v).newMatcher();
    TokenIndex index = TokenIndex.of(y, v);
    int s = m.initialState();
    assertArrayEquals(index.allowed(0), m.allowed(s), "masks at the start");
    for (int st = 0; st < y.stateCount(); st++) {
      // Reach each DFA state by a shortest path, compare masks there.
      byte[] path = shortestPath(y, st);
      int ms = m.walk(m.initialState(), path);
      assertArrayEquals(index.allowed(st), m.allowed(ms), "masks at DFA state " + st);
      byte[] jump = a.hasJump(st) ? a.jumpBytes(st) : new byte[0];
      assertArrayEquals(jump, m.forcedBytes(ms), "forced bytes at DFA state " + st);
    }
  }

  static byte[] shortestPath(Dfa d, int target) {
    int n = d.stateCount();
    int[] prev = new int[n];
    int[] via = new int[n];
    java.util.Arrays.fill(prev, -2);
    prev[0] = -1;
    java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>();
    q.add(0);
    while (!q.isEmpty()) {
      int s = q.poll();
      for (int b = 0; b < 256; b++) {
        int t = d.step(s, b);
        if (t >= 0 && prev[t] == -2) {
          prev[t] = s;
          via[t] = b;
          q.add(t);
        }
      }
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.util.List<Integer> bytes = new java.util.ArrayList<>();
    for (int s = target; prev[s] != -1; s = prev[s]) {
      bytes.add(0, via[s]);
    }
    bytes.forEach(out::write);
    return out.toByteArray();
  }
}
