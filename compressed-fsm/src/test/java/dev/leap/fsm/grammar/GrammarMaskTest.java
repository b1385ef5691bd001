package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.Shared;
import dev.leap.fsm.TokenizerJsonVocabulary;
import dev.leap.fsm.Vocabulary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Every token mask of the matcher equals walking each token's bytes through the naive twin from the
 * same prefix: the built-in JSON grammars, the four documented examples and random recursive
 * grammars, with the GPT-2, Llama 3 and Qwen3 vocabularies, at a sample of reachable states; and
 * random grammars with the small test vocabulary at many states.
 */
class GrammarMaskTest {

  /** The twin's mask: token i allowed iff its bytes walk from {@code chart}, EOS iff the chart accepts. */
  static long[] twinMask(EarleyTwin twin, EarleyTwin.Chart chart, Vocabulary v) {
    long[] mask = new long[(v.size() + 63) >>> 6];
    EarleyTwin.Chart[] afterFirst = new EarleyTwin.Chart[256];
    boolean[] done = new boolean[256];
    for (int id = 0; id < v.size(); id++) {
      byte[] b = v.tokenBytes(id);
      if (b == null || b.length == 0) {
        continue;
      }
      int first = b[0] & 0xFF;
      if (!done[first]) {
        done[first] = true;
        afterFirst[first] = twin.walk(chart, new byte[] {b[0]});
      }
      if (afterFirst[first] == null) {
        continue;
      }
      if (twin.walk(afterFirst[first], java.util.Arrays.copyOfRange(b, 1, b.length)) != null) {
        mask[id >>> 6] |= 1L << id;
      }
    }
    if (chart.accepts()) {
      for (int e : v.eosIds()) {
        mask[e >>> 6] |= 1L << e;
      }
    }
    return mask;
  }

  static void assertSameMask(long[] expected, long[] actual, Vocabulary v, String where) {
    for (int id = 0; id < v.size(); id++) {
      boolean e = (expected[id >>> 6] & (1L << id)) != 0;
      boolean a = (actual[id >>> 6] & (1L << id)) != 0;
      if (e != a) {
        byte[] b = v.tokenBytes(id);
        fail(where + ": token " + id + " " + (b == null ? "(no bytes)" : "\"" + new String(b, StandardCharsets.UTF_8)
            + "\"") + " twin says " + e + ", matcher says " + a);
      }
    }
  }

  /** Compares masks at the states after {@code prefixes}; each prefix must be viable. Also checks nextState of allowed tokens. */
  static int compareAt(CompiledGrammar cg, EarleyTwin twin, List<byte[]> prefixes, Vocabulary v, String name) {
    GrammarMatcher m = cg.newMatcher();
    int compared = 0;
    for (byte[] p : prefixes) {
      int s = m.walk(m.initialState(), p);
      EarleyTwin.Chart c = twin.walk(twin.begin(), p);
      if (s == ByteAutomaton.DEAD || c == null) {
        assertEquals(c == null, s == ByteAutomaton.DEAD, name);
        continue;
      }
      String where = name + " after \"" + new String(p, StandardCharsets.UTF_8) + "\"";
      long[] actual = m.allowed(s);
      assertSameMask(twinMask(twin, c, v), actual, v, where);
      int count = 0;
      for (long w : actual) {
        count += Long.bitCount(w);
      }
      assertEquals(count, m.allowedCount(s), where);
      compared++;
    }
    return compared;
  }

  /** Prefixes of texts of the grammar: cut at random points. */
  static List<byte[]> prefixes(String gbnf, SplittableRandom rnd, int count, List<byte[]> seeds) {
    List<Gbnf.Rule> rules = GbnfParser.parse(gbnf);
    List<byte[]> out = new ArrayList<>();
    out.add(new byte[0]);
    for (byte[] s : seeds) {
      out.add(java.util.Arrays.copyOf(s, rnd.nextInt(s.length + 1)));
    }
    for (int tries = 0; out.size() < count && tries < 100 * count; tries++) {
      byte[] s = RandomGrammars.sentence(rules, rnd, 300);
      if (s != null) {
        out.add(java.util.Arrays.copyOf(s, rnd.nextInt(s.length + 1)));
      }
    }
    return out;
  }

  private static final String[] SEEDS = {
      "{\"name\":\"Ana\",\"tags\":[1,2.5e3,{\"deep\":[[],{}]}],\"ok\":true,\"x\":null}",
      "12*(3+-4.5) / (7 - (1+2))",
      "SELECT DISTINCT a.x, COUNT(*) AS n FROM t a LEFT JOIN u b ON a.id = b.id WHERE (x > 3 OR y IN (SELECT y FROM v))"
          + " AND z IS NOT NULL GROUP BY a.x ORDER BY n DESC LIMIT 10;",
      "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Zürich\",\"days\":[1,2]}}\n</tool_call>",
  };

  @Test
  void realVocabulariesAgreeWithTheTwin() {
    SplittableRandom rnd = new SplittableRandom(17);
    List<byte[]> seeds = new ArrayList<>();
    for (String s : SEEDS) {
      seeds.add(s.getBytes(StandardCharsets.UTF_8));
    }
    List<String> grammars = new ArrayList<>();
    for (String n : Examples.NAMES) {
      grammars.add(Examples.text(n));
    }
    grammars.add(JsonGrammars.JSON_OBJECT_TEXT);
    int compared = 0;
    for (String vocabName : new String[] {"gpt2", "llama3", "qwen3"}) {
      Vocabulary v = TokenizerJsonVocabulary.load(Shared.require("tokenizers/" + vocabName + "/tokenizer.json"));
      for (String gbnf : grammars) {
        CompiledGrammar cg = CompiledGrammar.compile(Grammar.parse(gbnf), v);
        EarleyTwin twin = EarleyTwin.of(gbnf);
        compared += compareAt(cg, twin, prefixes(gbnf, rnd, 4, seeds), v, vocabName + " " + gbnf.lines().filter(
            l -> !l.startsWith("#")).findFirst().orElse(""));
      }
      // Two random grammars with recursion per vocabulary.
      int found = 0;
      while (found < 2) {
        String gbnf = RandomGrammars.grammar(rnd);
        Grammar g;
        try {
          g = Grammar.parse(gbnf, 2_000);
        } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
          continue;
        }
        if (g.regular().isPresent()) {
          continue;
        }
        found++;
        try {
          compared += compareAt(CompiledGrammar.compile(g, v), EarleyTwin.of(gbnf), prefixes(gbnf, rnd, 3, List.of()), v,
              vocabName + " random grammar\n" + gbnf);
        } catch (GrammarLimitException e) {
          // An ambiguous random grammar: the limit is the answer, checked elsewhere.
        }
      }
    }
    assertTrue(compared >= 40, "states compared: " + compared);
  }

  @Test
  void randomGrammarsSmallVocabularyAgreeWithTheTwin() {
    SplittableRandom rnd = new SplittableRandom(1117);
    Vocabulary v = dev.leap.fsm.SmallVocabulary.create();
    int compared = 0;
    int grammars = 0;
    while (grammars < 60) {
      String gbnf = RandomGrammars.grammar(rnd);
      Grammar g;
      try {
        g = Grammar.parse(gbnf, 2_000);
      } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
        continue;
      }
      grammars++;
      try {
        compared += compareAt(CompiledGrammar.compile(g, v), EarleyTwin.of(gbnf), prefixes(gbnf, rnd, 12, List.of()), v,
            "random grammar\n" + gbnf);
      } catch (GrammarLimitException e) {
        // ambiguous
      }
    }
    assertTrue(compared >= 400, "states compared: " + compared);
  }
}
