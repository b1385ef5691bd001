package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.internal.VocabView;
import dev.leap.testkit.Shared;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.TokenizerJsonVocabulary;
import dev.leap.vocab.Vocabulary;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The loop shortcut of the precomputation (tokens made only of the bytes of a state's loop, or of
 * the loop one step ahead, accepted without a walk, the rest walked over a filtered view) against
 * walking the full sorted vocabulary, for every stack-top state of random grammars and the example
 * grammars.
 */
class RuleTokenWalkTest {

  private static int check(Grammar g, Vocabulary v) {
    RuleAutomaton[] rules = g.automata();
    long[][] follow = FollowBytes.of(rules);
    SortedVocabulary sv = SortedVocabulary.of(v);
    RuleTokenWalk walk = new RuleTokenWalk(rules, follow, sv, v.size());
    VocabView full = VocabView.full(sv);
    int compared = 0;
    for (int r = 0; r < rules.length; r++) {
      for (int s = 0; s < rules[r].stateCount(); s++) {
        if (!rules[r].hasBytes(s)) {
          continue;
        }
        long[] loop = rules[r].loopBytes(s);
        if (Long.bitCount(loop[0])
                + Long.bitCount(loop[1])
                + Long.bitCount(loop[2])
                + Long.bitCount(loop[3])
            == 0) {
          continue;
        }
        RuleTokenWalk.Sets a = walk.computeWalkingAll(r, s, full);
        RuleTokenWalk.Sets b = walk.compute(r, s, VocabView.without(sv, loop, v.size()));
        assertArrayEquals(a.accepted(), b.accepted(), "accepted, rule " + r + " state " + s);
        int[] ua = a.uncertain().clone();
        int[] ub = b.uncertain().clone();
        java.util.Arrays.sort(ua);
        java.util.Arrays.sort(ub);
        assertArrayEquals(ua, ub, "uncertain, rule " + r + " state " + s);
        compared++;
      }
    }
    return compared;
  }

  @Test
  void shortcutEqualsTheFullWalk() {
    Vocabulary gpt2 =
        TokenizerJsonVocabulary.load(Shared.require("tokenizers/gpt2/tokenizer.json"));
    int compared = 0;
    for (String n : List.of("json", "tool-call", "arithmetic")) {
      compared += check(Grammar.parse(Examples.text(n)), gpt2);
    }
    SplittableRandom rnd = new SplittableRandom(77);
    Vocabulary small = dev.leap.fsm.SmallVocabulary.create();
    int grammars = 0;
    while (grammars < 80) {
      try {
        Grammar g = Grammar.parse(RandomGrammars.grammar(rnd), 2_000);
        grammars++;
        compared += check(g, small);
      } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
        // skip
      }
    }
    assertTrue(compared > 100, "states compared: " + compared);
  }

  /**
   * A compiled grammar's sets (through the loop-region path where a state has one: the region's
   * stay set, the tokens holding an exit byte walked; else block by block of the first byte, the
   * tokens that stay in the loop one step after it accepted unwalked) against walking the full
   * vocabulary, for every stack-top state of the example grammars on real vocabularies and of
   * random grammars with strings.
   */
  @Test
  void loopRegionsEqualTheFullWalk() {
    int regions = 0;
    for (String voc : List.of("gpt2", "llama3")) {
      Vocabulary v =
          TokenizerJsonVocabulary.load(Shared.require("tokenizers/" + voc + "/tokenizer.json"));
      for (String n : List.of("json", "tool-call", "arithmetic")) {
        regions += checkSets(Grammar.parse(Examples.text(n)), v);
      }
    }
    // Identifiers followed by a space and another identifier: the blocks of " word" tokens.
    regions +=
        checkSets(
            Grammar.parse(Examples.text("sql-select")),
            TokenizerJsonVocabulary.load(Shared.require("tokenizers/gpt2/tokenizer.json")));
    SplittableRandom rnd = new SplittableRandom(78);
    Vocabulary small = dev.leap.fsm.SmallVocabulary.create();
    int grammars = 0;
    while (grammars < 60) {
      try {
        String text = RandomGrammars.grammar(rnd);
        String withString = text + "\nstr ::= \"\\\"\" ( [^\"\\\\] | \"\\\\\" [\"n] )* \"\\\"\"\n";
        Grammar g = Grammar.parse(withString.replaceFirst("::= ", "::= str "), 2_000);
        grammars++;
        regions += checkSets(g, small);
      } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
        // skip
      }
    }
    assertTrue(regions > 20, "states through a loop region: " + regions);
  }

  /** Compares every stack-top state; returns how many went through a loop region. */
  private static int checkSets(Grammar g, Vocabulary v) {
    CompiledGrammar cg = CompiledGrammar.compileLazily(g, v);
    SortedVocabulary sv = SortedVocabulary.of(v);
    RuleAutomaton[] rules = cg.rules;
    RuleTokenWalk walk = new RuleTokenWalk(rules, FollowBytes.of(rules), sv, v.size());
    int regions = 0;
    for (int r = 0; r < rules.length; r++) {
      for (int s = 0; s < rules[r].stateCount(); s++) {
        if (!rules[r].hasBytes(s)) {
          continue;
        }
        RuleTokenWalk.Sets a = walk.computeWalkingAll(r, s, VocabView.full(sv));
        RuleTokenWalk.Sets b = cg.sets(cg.nodeBase[r] + s);
        String where = rules[r].name + " state " + s;
        assertArrayEquals(a.accepted(), b.accepted(), "accepted, " + where);
        int[] ua = a.uncertain().clone();
        int[] ub = b.uncertain().clone();
        java.util.Arrays.sort(ua);
        java.util.Arrays.sort(ub);
        assertArrayEquals(ua, ub, "uncertain, " + where);
        regions += rules[r].region(s) != null ? 1 : 0;
      }
    }
    return regions;
  }
}
