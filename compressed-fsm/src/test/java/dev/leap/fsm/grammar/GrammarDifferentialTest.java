package dev.leap.fsm.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The engine against its naive twin ({@link EarleyTwin}) on random grammars and texts. */
class GrammarDifferentialTest {
  private static final int[] ACCEPTED = new int[1];

  /**
   * Walks {@code text} byte by byte through both; compares prefix viability and acceptance at every
   * position.
   */
  static void compare(GrammarMatcher m, EarleyTwin twin, byte[] text, String where) {
    int s = m.initialState();
    EarleyTwin.Chart c = twin.begin();
    assertEquals(c.accepts(), m.isAccepting(s), where + " at 0");
    for (int i = 0; i < text.length; i++) {
      s = m.walk(s, text, i, i + 1);
      c.feed(text[i] & 0xFF);
      assertEquals(
          c.alive(), s != ByteAutomaton.DEAD, where + ": viability after " + (i + 1) + " bytes");
      if (s == ByteAutomaton.DEAD) {
        break;
      }
      assertEquals(
          c.accepts(), m.isAccepting(s), where + ": acceptance after " + (i + 1) + " bytes");
      assertEquals(true, m.hasTransitions(s) || m.isAccepting(s), where);
    }
    if (s != ByteAutomaton.DEAD && m.isAccepting(s)) {
      ACCEPTED[0]++;
    }
    int whole = m.walk(m.initialState(), text);
    assertEquals(
        s, whole, where + ": the whole walk reaches the same interned state as byte by byte");
  }

  @Test
  void randomGrammarsAgreeWithEarley() {
    SplittableRandom rnd = new SplittableRandom(20261123);
    int grammars = 0;
    int texts = 0;
    int limits = 0;
    int recursive = 0;
    for (int attempt = 0; grammars < 150 && attempt < 5000; attempt++) {
      String text = RandomGrammars.grammar(rnd);
      Grammar g;
      try {
        g = Grammar.parse(text, 2_000);
      } catch (GrammarSyntaxException | dev.leap.fsm.AutomatonTooLargeException e) {
        continue;
      }
      grammars++;
      if (g.regular().isEmpty()) {
        recursive++;
      }
      List<GbnfParser.Rule> rules = GbnfParser.parse(text);
      EarleyTwin twin = new EarleyTwin(rules);
      CompiledGrammar cg = CompiledGrammar.compile(g, dev.leap.fsm.SmallVocabulary.create());
      for (int k = 0; k < 30; k++) {
        byte[] sentence = RandomGrammars.sentence(rules, rnd, 200);
        if (sentence == null) {
          continue;
        }
        if (k % 2 == 1) {
          sentence = RandomGrammars.mutate(sentence, rnd);
        }
        GrammarMatcher m = cg.newMatcher();
        try {
          compare(
              m,
              twin,
              sentence,
              "grammar\n"
                  + text
                  + "text "
                  + new String(sentence, java.nio.charset.StandardCharsets.UTF_8));
          texts++;
        } catch (GrammarLimitException e) {
          limits++;
        }
      }
    }
    System.out.printf(
        "random grammars %d (%d with recursion), texts %d, accepted %d, limits %d%n",
        grammars, recursive, texts, ACCEPTED[0], limits);
    assertTrue(grammars >= 150, "random grammars that passed the checks: " + grammars);
    assertTrue(recursive >= 50, "grammars with recursion: " + recursive);
    assertTrue(texts > 3000, "texts compared: " + texts);
    assertTrue(limits < texts / 50, "texts that hit a work limit: " + limits);
  }
}
