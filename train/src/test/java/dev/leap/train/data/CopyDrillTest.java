package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.SmallTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The warm start's drills: every value the answer asks for is on the page, token for token; value
 * targets are exactly the values' tokens; the swapped drill's page does not hold them; the warm
 * start and the drill share change the curriculum only where they are asked for.
 */
class CopyDrillTest {
  static final HfTokenizer TOK = SmallTokenizer.get();

  /**
   * The value targets' tokens, one string per value span, in order (a new string where the field
   * changes or a gap opens).
   */
  static List<String> values(Example e) {
    List<String> out = new ArrayList<>();
    int prev = -2;
    for (int j = 0; j < e.valueTargets().length; j++) {
      int t = e.valueTargets()[j];
      String piece = TOK.decode(new int[] {e.tokens()[t]});
      if (t == prev + 1 && (j == 0 || e.valueFields()[j] == e.valueFields()[j - 1])) {
        out.set(out.size() - 1, out.get(out.size() - 1) + piece);
      } else {
        out.add(piece);
      }
      prev = t;
    }
    return out;
  }

  static boolean containsRun(int[] hay, int end, int[] needle, int from, int to) {
    outer:
    for (int i = 0; i + (to - from) <= end; i++) {
      for (int j = from; j < to; j++) {
        if (hay[i + j - from] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  @Test
  void valuesAreOnThePageTokenForToken() {
    SplittableRandom r = new SplittableRandom(21);
    for (CopyDrill.Kind kind : List.of(CopyDrill.Kind.LIST, CopyDrill.Kind.RECALL)) {
      for (int i = 0; i < 100; i++) {
        CopyDrill.Text t =
            kind == CopyDrill.Kind.LIST ? CopyDrill.list(r, 0) : CopyDrill.recall(r, 0);
        Example e = t.example(TOK);
        List<String> expected = new ArrayList<>();
        for (int[] s : t.spans()) {
          expected.add(t.answer().substring(s[0], s[1]));
        }
        assertEquals(
            expected, values(e), kind + " " + i + ": value targets are the values\n" + t.answer());
        // Each value's run of tokens occurs verbatim in the prompt: the drill can be solved by
        // copying.
        int[] tok = e.tokens();
        int j = 0;
        while (j < e.valueTargets().length) {
          int k = j;
          while (k + 1 < e.valueTargets().length
              && e.valueTargets()[k + 1] == e.valueTargets()[k] + 1
              && e.valueFields()[k + 1] == e.valueFields()[j]) {
            k++;
          }
          assertTrue(
              containsRun(tok, e.answerStart(), tok, e.valueTargets()[j], e.valueTargets()[k] + 1),
              kind
                  + " "
                  + i
                  + ": "
                  + TOK.decode(
                      Arrays.copyOfRange(tok, e.valueTargets()[j], e.valueTargets()[k] + 1))
                  + " is on the page token for token");
          j = k + 1;
        }
        assertEquals(TOK.eosIds()[0], tok[tok.length - 1]);
      }
    }
  }

  @Test
  void tokenDrillsRepeatRandomTokens() {
    SplittableRandom r = new SplittableRandom(4);
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int i = 0; i < 200; i++) {
      Example e = CopyDrill.tokens(900, TOK.eosIds(), r);
      int n = e.answerStart();
      assertEquals(2 * n, e.tokens().length);
      assertTrue(n >= 16 && n <= 48);
      assertArrayEquals(
          Arrays.copyOfRange(e.tokens(), 0, n),
          Arrays.copyOfRange(e.tokens(), n, 2 * n),
          "the repeat");
      assertEquals(n - 1, e.valueTargets().length);
      assertEquals(n + 1, e.valueTargets()[0]);
      assertEquals(2 * n - 1, e.valueTargets()[n - 2]);
      for (int t : e.tokens()) {
        assertTrue(t >= 0 && t < 900 && t != TOK.eosIds()[0]);
        seen.add(t);
      }
    }
    assertTrue(seen.size() > 800, "tokens from the whole vocabulary: " + seen.size());
  }

  @Test
  void heldOutDrillsAreSwappedWithAnotherPage() {
    List<Example> own = CopyDrill.heldOut(TOK, 8, false);
    List<Example> other = CopyDrill.heldOut(TOK, 8, true);
    int missing = 0;
    int total = 0;
    for (int i = 0; i < 8; i++) {
      Example a = own.get(i);
      Example b = other.get(i);
      assertArrayEquals(
          Arrays.copyOfRange(a.tokens(), a.answerStart(), a.tokens().length),
          Arrays.copyOfRange(b.tokens(), b.answerStart(), b.tokens().length),
          "the same answer");
      assertEquals(a.valueTargets().length, b.valueTargets().length);
      String page = TOK.decode(Arrays.copyOf(b.tokens(), b.answerStart()));
      String ownPage = TOK.decode(Arrays.copyOf(a.tokens(), a.answerStart()));
      for (String v : values(a)) {
        assertTrue(ownPage.contains(v.strip()), "own page holds " + v);
        total++;
        missing += page.contains(v.strip()) ? 0 : 1;
      }
    }
    assertTrue(
        missing > total * 9 / 10, "the swapped pages lack the values: " + missing + " of " + total);
    assertArrayEquals(
        own.get(3).tokens(), CopyDrill.heldOut(TOK, 8, false).get(3).tokens(), "deterministic");
  }

  @Test
  void warmStartAndDrillShareChangeOnlyWhatTheyAskFor() {
    int[] phases = {6, 8, 10};
    Curriculum plain = new Curriculum(TOK, 5, 1200, 1, phases, 4608);
    Curriculum same = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 0, 0);
    Curriculum warm = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 3, 0);
    Curriculum drills = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 0, 0.5);
    int drillLike = 0;
    int cityLike = 0;
    for (int step = 0; step < 10; step++) {
      List<Example> a = plain.step(step);
      List<Example> b = same.step(step);
      assertEquals(a.size(), b.size());
      for (int i = 0; i < a.size(); i++) {
        assertArrayEquals(
            a.get(i).tokens(),
            b.get(i).tokens(),
            "no warm start, no drill share: the old curriculum");
      }
      assertEquals(step < 3 ? 0 : plain.phase(step), warm.phase(step));
      if (step >= 3) {
        List<Example> w = warm.step(step);
        for (int i = 0; i < a.size(); i++) {
          assertArrayEquals(
              a.get(i).tokens(), w.get(i).tokens(), "after the warm start, the same steps");
        }
      } else {
        for (Example e : warm.step(step).subList(1, warm.step(step).size())) {
          String prompt = TOK.decode(Arrays.copyOf(e.tokens(), e.answerStart()));
          assertTrue(
              prompt.startsWith("List: ")
                  || prompt.startsWith("Copy this list.")
                  || prompt.startsWith("Records.")
                  || prompt.contains("Record of ")
                  || prompt.contains("\"name\""),
              "a drill in the warm start:\n" + prompt);
        }
      }
      if (step < 6) {
        for (Example e : drills.step(step).subList(1, drills.step(step).size())) {
          String prompt = TOK.decode(Arrays.copyOf(e.tokens(), e.answerStart()));
          if (prompt.startsWith("List: ")
              || prompt.startsWith("Copy this list.")
              || prompt.startsWith("Records.")) {
            drillLike++;
          } else {
            cityLike++;
          }
        }
      }
    }
    // Half of phase 1's examples are drills, two thirds of those lists and recall tables.
    double share = drillLike / (double) (drillLike + cityLike);
    assertTrue(
        share > 0.2 && share < 0.5,
        "list and recall drills: " + drillLike + " of " + (drillLike + cityLike));
    assertFalse(new Curriculum(TOK, 5, 1200, 1, phases, 4608, 3, 0).step(0).isEmpty());
    // Token drills: only in the warm start, about the asked share; none asked, the same steps.
    Curriculum tokens = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 3, 0, 0.5);
    Curriculum noTokens = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 3, 0, 0);
    int repeats = 0;
    int others = 0;
    for (int step = 0; step < 10; step++) {
      List<Example> w = warm.step(step);
      List<Example> z = noTokens.step(step);
      assertEquals(w.size(), z.size());
      for (int i = 0; i < w.size(); i++) {
        assertArrayEquals(
            w.get(i).tokens(), z.get(i).tokens(), "a token share of 0: the warm start as before");
      }
      for (Example e : tokens.step(step).subList(1, tokens.step(step).size())) {
        int n = e.answerStart();
        boolean repeat =
            e.tokens().length == 2 * n
                && Arrays.equals(
                    Arrays.copyOfRange(e.tokens(), 0, n), Arrays.copyOfRange(e.tokens(), n, 2 * n));
        assertTrue(step < 3 || !repeat, "token drills only in the warm start");
        if (step < 3) {
          repeats += repeat ? 1 : 0;
          others += repeat ? 0 : 1;
        }
      }
    }
    assertTrue(
        repeats > 0 && others > 0 && repeats > others / 3,
        "token drills " + repeats + ", text drills " + others);
    // A warm start of token drills only holds nothing else, not even the character sheet.
    Curriculum onlyTokens = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 3, 0, 1.0);
    for (int step = 0; step < 3; step++) {
      for (Example e : onlyTokens.step(step)) {
        int n = e.answerStart();
        assertTrue(
            e.tokens().length == 2 * n
                && Arrays.equals(
                    Arrays.copyOfRange(e.tokens(), 0, n), Arrays.copyOfRange(e.tokens(), n, 2 * n)),
            "only token drills");
      }
    }
    assertTrue(onlyTokens.step(3).size() > 1, "the character sheet again from phase 1");
    // With a drill share, phase 1's drills are token drills in the token share.
    Curriculum phase1 = new Curriculum(TOK, 5, 1200, 1, phases, 4608, 3, 0.5, 1.0);
    int phase1Repeats = 0;
    for (int step = 3; step < 6; step++) {
      for (Example e : phase1.step(step)) {
        int n = e.answerStart();
        phase1Repeats +=
            e.tokens().length == 2 * n
                    && Arrays.equals(
                        Arrays.copyOfRange(e.tokens(), 0, n),
                        Arrays.copyOfRange(e.tokens(), n, 2 * n))
                ? 1
                : 0;
      }
    }
    assertTrue(phase1Repeats > 0, "token drills in phase 1");
  }
}
