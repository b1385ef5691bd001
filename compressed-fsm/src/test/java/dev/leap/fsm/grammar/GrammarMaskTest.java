package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.testkit.Shared;
import dev.leap.vocab.TokenizerJsonVocabulary;
import dev.leap.vocab.Vocabulary;
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

  /**
   * Twin charts after short token prefixes are memoized (the twin's own answers, reused): at most
   * this long.
   */
  private static final int MEMO_DEPTH = 4;

  /**
   * The twin's mask: token i allowed iff its bytes walk from {@code chart}, EOS iff the chart
   * accepts.
   */
  static long[] twinMask(EarleyTwin twin, EarleyTwin.Chart chart, Vocabulary v) {
    long[] mask = new long[(v.size() + 63) >>> 6];
    java.util.Map<String, java.util.Optional<EarleyTwin.Chart>> memo = new java.util.HashMap<>();
    for (int id = 0; id < v.size(); id++) {
      byte[] b = v.tokenBytes(id);
      if (b == null || b.length == 0) {
        continue;
      }
      // The chart after the longest memoized prefix, walking (and memoizing) short prefixes first.
      EarleyTwin.Chart c = chart;
      int done = 0;
      for (int k = 1; k <= Math.min(MEMO_DEPTH, b.length); k++) {
        String key = new String(b, 0, k, StandardCharsets.ISO_8859_1);
        java.util.Optional<EarleyTwin.Chart> at = memo.get(key);
        if (at == null) {
          EarleyTwin.Chart next = c == null ? null : twin.walk(c, new byte[] {b[k - 1]});
          at = java.util.Optional.ofNullable(next);
          memo.put(key, at);
        }
        c = at.orElse(null);
        done = k;
        if (c == null) {
          break;
        }
      }
      if (c == null) {
        continue;
      }
      if (done == b.length
          || twin.walk(c, java.util.Arrays.copyOfRange(b, done, b.length)) != null) {
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
        fail(
            where
                + ": token "
                + id
                + " "
                + (b == null ? "(no bytes)" : "\"" + new String(b, StandardCharsets.UTF_8) + "\"")
                + " twin says "
                + e
                + ", matcher says "
                + a);
      }
    }
  }

  /**
   * Compares masks at the states after {@code prefixes}; each prefix must be viable. Also checks
   * nextState of allowed tokens.
   */
  static int compareAt(
      CompiledGrammar cg, EarleyTwin twin, List<byte[]> prefixes, Vocabulary v, String name) {
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
    List<GbnfParser.Rule> rules = GbnfParser.parse(gbnf);
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

  /** A text of each example grammar, cut at random points for states deep inside it. */
  private static final java.util.Map<String, String> SEEDS =
      java.util.Map.of(
          "json", "{\"name\":\"Ana\",\"tags\":[1,2.5e3,{\"deep\":[[],{}]}],\"ok\":true,\"x\":null}",
          "arithmetic", "12*(3+-4.5) / (7 - (1+2))",
          "sql-select",
              "SELECT DISTINCT a.x, COUNT(*) AS n FROM t a LEFT JOIN u b ON a.id = b.id WHERE (x > 3 OR y IN"
                  + " (SELECT y FROM v)) AND z IS NOT NULL GROUP BY a.x ORDER BY n DESC LIMIT 10;",
          "tool-call",
              "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Zürich\",\"days\":[1,2]}}\n</tool_call>");

  @Test
  void realVocabulariesAgreeWithTheTwin() {
    SplittableRandom rnd = new SplittableRandom(17);
    java.util.Map<String, String> grammars = new java.util.LinkedHashMap<>();
    for (String n : Examples.NAMES) {
      grammars.put(n, Examples.text(n));
    }
    grammars.put("json-object", JsonGrammars.JSON_OBJECT_TEXT);
    int compared = 0;
    for (String vocabName : new String[] {"gpt2", "llama3", "qwen3"}) {
      Vocabulary v =
          TokenizerJsonVocabulary.load(
              Shared.require("tokenizers/" + vocabName + "/tokenizer.json"));
      for (var e : grammars.entrySet()) {
        String gbnf = e.getValue();
        // The SQL example has 1,100 stack-top states: computed as the sampled states need them.
        CompiledGrammar cg =
            e.getKey().equals("sql-select")
                ? CompiledGrammar.compileLazily(Grammar.parse(gbnf), v)
                : CompiledGrammar.compile(Grammar.parse(gbnf), v);
        EarleyTwin twin = EarleyTwin.of(gbnf);
        byte[] seed =
            SEEDS.getOrDefault(e.getKey(), SEEDS.get("json")).getBytes(StandardCharsets.UTF_8);
        List<byte[]> seeds = List.of(seed, seed);
        compared +=
            compareAt(cg, twin, prefixes(gbnf, rnd, 3, seeds), v, vocabName + " " + e.getKey());
      }
      // A random grammar with recursion per vocabulary.
      int found = 0;
      while (found < 1) {
        String gbnf = RandomGrammars.grammar(rnd);
        Grammar g;
        try {
          g = Grammar.parse(gbnf, 2_000);
        } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException ex) {
          continue;
        }
        if (g.regular().isPresent()) {
          continue;
        }
        found++;
        try {
          compared +=
              compareAt(
                  CompiledGrammar.compile(g, v),
                  EarleyTwin.of(gbnf),
                  prefixes(gbnf, rnd, 3, List.of()),
                  v,
                  vocabName + " random grammar\n" + gbnf);
        } catch (GrammarLimitException ex) {
          // An ambiguous random grammar: the limit is the answer, checked elsewhere.
        }
      }
    }
    System.out.println("real vocabularies: states compared " + compared);
    assertTrue(compared >= 40, "states compared: " + compared);
  }

  @Test
  void randomGrammarsSmallVocabularyAgreeWithTheTwin() {
    SplittableRandom rnd = new SplittableRandom(1117);
    Vocabulary v = dev.leap.fsm.SmallVocabulary.create();
    int compared = 0;
    int grammars = 0;
    while (grammars < 40) {
      String gbnf = RandomGrammars.grammar(rnd);
      Grammar g;
      try {
        g = Grammar.parse(gbnf, 2_000);
      } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
        continue;
      }
      grammars++;
      try {
        compared +=
            compareAt(
                CompiledGrammar.compile(g, v),
                EarleyTwin.of(gbnf),
                prefixes(gbnf, rnd, 10, List.of()),
                v,
                "random grammar\n" + gbnf);
      } catch (GrammarLimitException e) {
        // ambiguous
      }
    }
    System.out.println("small vocabulary: states compared " + compared);
    assertTrue(compared >= 300, "states compared: " + compared);
  }

  /**
   * {@link CompiledGrammar#precompute}: with room for all, every stack-top state's sets (as an
   * eager compile has them, equal mask for mask along texts); with none, the root's start alone.
   */
  @Test
  void precomputeFillsTheFirstStatesWithinItsBudget() {
    Vocabulary gpt2 =
        TokenizerJsonVocabulary.load(Shared.require("tokenizers/gpt2/tokenizer.json"));
    for (String n : List.of("json", "tool-call", "arithmetic")) {
      Grammar g = Grammar.parse(Examples.text(n));
      CompiledGrammar some = CompiledGrammar.compileLazily(g, gpt2);
      assertEquals(1, some.precompute(0), n);
      CompiledGrammar all = CompiledGrammar.compileLazily(g, gpt2);
      assertEquals(all.stackTopStates(), all.precompute(Long.MAX_VALUE), n);
      CompiledGrammar eager = CompiledGrammar.compile(g, gpt2);
      SplittableRandom rnd = new SplittableRandom(5);
      for (int walk = 0; walk < 3; walk++) {
        GrammarMatcher a = all.newMatcher();
        GrammarMatcher e = eager.newMatcher();
        int sa = a.initialState();
        int se = e.initialState();
        for (int step = 0; step < 30; step++) {
          long[] expected = e.allowed(se);
          assertSameMask(expected, a.allowed(sa), gpt2, n + ", walk " + walk + " step " + step);
          List<Integer> ids = new ArrayList<>();
          for (int id = 0; id < gpt2.size(); id++) {
            if ((expected[id >>> 6] & (1L << id)) != 0 && gpt2.tokenBytes(id) != null) {
              ids.add(id);
            }
          }
          if (ids.isEmpty()) {
            break;
          }
          int id = ids.get(rnd.nextInt(ids.size()));
          sa = a.nextState(sa, id);
          se = e.nextState(se, id);
          if (se < 0) {
            break;
          }
        }
      }
    }
  }
}
