package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.SmallTokenizer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The copy curriculum's data: open values are many and fit {@code city_regex}; cards are short and
 * state their facts; value targets are exactly the answer's value tokens; the second article
 * generator states its facts and is never drawn in training; held-out cities are never trained on.
 */
class CurriculumTest {
  static final HfTokenizer TOK = SmallTokenizer.get();
  static final Pattern CITY = Pattern.compile(SglangInputs.cityRegex());

  @Test
  void openValuesAreManyAndFitTheRegex() {
    Set<String> names = new HashSet<>();
    Set<String> landmarks = new HashSet<>();
    for (long s = 0; s < 5_000; s++) {
      City c = City.open(s);
      assertTrue(CITY.matcher(c.answer()).matches(), c.answer());
      names.add(c.name());
      landmarks.add(c.landmarks().get(0));
    }
    assertTrue(names.size() > 4_700, "place names repeat too often: " + names.size() + " of 5000");
    assertTrue(
        landmarks.size() > 3_500, "landmarks repeat too often: " + landmarks.size() + " of 5000");
  }

  @Test
  void cardsAreShortAndValueTargetsAreTheValues() {
    SplittableRandom r = new SplittableRandom(11);
    int withDistractor = 0;
    for (int i = 0; i < 200; i++) {
      City c = City.open(r.nextLong(City.EVAL_SEED_BASE));
      Example e = Curriculum.card(TOK, c, r);
      int page = e.answerStart();
      assertTrue(page >= 40 && page <= 300, "card prompt of " + page + " tokens");
      String prompt = TOK.decode(Arrays.copyOf(e.tokens(), e.answerStart()));
      for (String v : c.fields().values()) {
        assertTrue(prompt.contains(v), "the card states " + v + ":\n" + prompt);
      }
      if (prompt.contains("Nearby")
          || prompt.contains("nearby")
          || prompt.contains("Not far")
          || prompt.contains("neighbouring")
          || prompt.contains("Compare")) {
        withDistractor++;
      }
      // Value targets, grouped by field, decode to the field's value.
      List<String> values = List.copyOf(c.fields().values());
      StringBuilder[] got = new StringBuilder[values.size()];
      for (int f = 0; f < got.length; f++) {
        got[f] = new StringBuilder();
      }
      for (int j = 0; j < e.valueTargets().length; j++) {
        got[e.valueFields()[j]].append(TOK.decode(new int[] {e.tokens()[e.valueTargets()[j]]}));
      }
      for (int f = 0; f < got.length; f++) {
        assertEquals(values.get(f), got[f].toString(), "field " + f);
      }
      assertEquals(TOK.eosIds()[0], e.tokens()[e.tokens().length - 1]);
    }
    assertTrue(
        withDistractor > 60 && withDistractor < 140,
        "about half the cards have a distractor: " + withDistractor);
  }

  @Test
  void secondGeneratorStatesTheFactsInItsOwnLayout() {
    for (long s = 0; s < 20; s++) {
      City c = City.open(City.EVAL_SEED_BASE + s);
      int target = 300 + (int) (s * 150);
      String doc = GazetteerDocument.text(c, s, target, TOK);
      int tokens = TOK.encode(doc).length;
      assertTrue(doc.startsWith(c.name() + "\n"), "the entry opens with the city's name");
      for (String v : c.fields().values()) {
        assertTrue(doc.contains(v), "entry " + s + " states " + v);
      }
      assertTrue(doc.contains("\n## "), "Markdown-style headings");
      assertTrue(
          tokens >= target && tokens <= target + 300,
          "entry " + s + ": " + tokens + " tokens for " + target);
    }
  }

  @Test
  void trainingNeverDrawsTheSecondGeneratorNorAHeldOutCity() {
    Curriculum cur = new Curriculum(TOK, 5, 1500, 1, new int[] {2, 4, 6}, 4608);
    Set<String> heldOut = new HashSet<>();
    for (Example e : Curriculum.heldOutCards(TOK, 16, false)) {
      heldOut.add(answer(e));
    }
    for (Example e : Curriculum.heldOutArticles(TOK, 8, 300, 600, false)) {
      heldOut.add(answer(e));
    }
    for (long s = 0; s < 300; s++) {
      heldOut.add(City.open(City.EVAL_SEED_BASE + s).answer());
    }
    int cities = 0;
    Set<Integer> phases = new HashSet<>();
    for (int step = 0; step < 6; step++) {
      phases.add(cur.phase(step));
      for (Example e : cur.step(step)) {
        String text = TOK.decode(e.tokens());
        for (String sig : GazetteerDocument.SIGNATURES) {
          assertFalse(
              text.contains(sig),
              "step " + step + " holds the second generator's \"" + sig.strip() + "\"");
        }
        for (String frame : ArticleLayoutTest.GAZETTEER_FRAMES) {
          assertFalse(
              text.contains(frame),
              "step " + step + " holds the second generator's frame \"" + frame.strip() + "\"");
        }
        if (e.valueTargets().length > 0) {
          cities++;
          assertFalse(heldOut.contains(answer(e)), "step " + step + " trains on a held-out city");
        }
      }
      assertEquals(cur.step(step).size(), cur.step(step).size());
      assertArrayEquals(
          cur.step(step).get(0).tokens(), cur.step(step).get(0).tokens(), "deterministic");
    }
    assertEquals(Set.of(1, 2, 3), phases);
    assertTrue(cities > 6);
    // The second generator's signatures are its own: a sample of its text has them.
    String doc = GazetteerDocument.text(City.open(1), 1, 400, TOK);
    assertTrue(GazetteerDocument.SIGNATURES.stream().filter(doc::contains).count() >= 2);
  }

  @Test
  void swappedExamplesKeepTheAnswerAndChangeThePage() {
    List<Example> own = Curriculum.heldOutCards(TOK, 4, false);
    List<Example> other = Curriculum.heldOutCards(TOK, 4, true);
    for (int i = 0; i < 4; i++) {
      assertEquals(answer(own.get(i)), answer(other.get(i)));
      String page = TOK.decode(Arrays.copyOf(other.get(i).tokens(), other.get(i).answerStart()));
      Map<String, String> f = City.open(City.EVAL_SEED_BASE + 7_000 + i).fields();
      assertFalse(page.contains(f.get("population")), "the swapped page is another city's");
    }
  }

  static String answer(Example e) {
    return TOK.decode(Arrays.copyOfRange(e.tokens(), e.answerStart(), e.tokens().length - 1));
  }

  /**
   * The default curriculum's data is the data that trained demo-v5 (its chain ran the code of
   * c933f05; the fingerprint was computed there), so {@code ./leap train} still reproduces it;
   * {@link Curriculum#withVarietyFrom} changes the cards and articles from its step on, not the
   * rest. The second fingerprint is r42's run (the code of b2892be and ba93f2c, where variety was
   * always on).
   */
  @Test
  void theDefaultDataIsDemoV5sAndVarietyIsOptIn() {
    Curriculum plain = new Curriculum(TOK, 5, 1200, 1, new int[] {2, 4, 6}, 4608);
    assertEquals(216110836, fingerprint(plain), "the data of demo-v5's run");
    assertEquals(-733382536, fingerprint(plain.withVarietyFrom(0)), "the data of r42's run");
    assertEquals(
        -1780392237,
        fingerprint(plain.withVarietyFrom(0).withComposedFrom(0)),
        "the data of r47's run (ComposedDocument as of its first commit)");
    // From step 3 on: the first three steps as without variety, the last three as with it.
    Curriculum later = plain.withVarietyFrom(3);
    Curriculum always = plain.withVarietyFrom(0);
    for (int step = 0; step < 6; step++) {
      List<Example> got = later.step(step);
      List<Example> want = (step < 3 ? plain : always).step(step);
      assertEquals(want.size(), got.size(), "step " + step);
      for (int i = 0; i < want.size(); i++) {
        assertArrayEquals(want.get(i).tokens(), got.get(i).tokens(), "step " + step);
      }
    }
  }

  /**
   * {@link Curriculum#withComposedFrom} changes phase 3's articles from its step on (half of them
   * {@link ComposedDocument}s, which hold none of the second generator's signatures or frames) and
   * nothing before it.
   */
  @Test
  void composedArticlesOnlyInPhase3FromTheirStep() {
    Curriculum plain = new Curriculum(TOK, 5, 3000, 1, new int[] {1, 2, 8}, 4608);
    Curriculum composed = plain.withComposedFrom(4);
    int changed = 0;
    for (int step = 0; step < 8; step++) {
      List<Example> want = plain.step(step);
      List<Example> got = composed.step(step);
      boolean same = want.size() == got.size();
      for (int i = 0; same && i < want.size(); i++) {
        same = Arrays.equals(want.get(i).tokens(), got.get(i).tokens());
      }
      if (step < 4) {
        assertTrue(same, "step " + step + " is before --composed-from");
      } else if (!same) {
        changed++;
      }
      for (Example e : got) {
        String text = TOK.decode(e.tokens());
        for (String sig : GazetteerDocument.SIGNATURES) {
          assertFalse(text.contains(sig), "step " + step + " holds \"" + sig.strip() + "\"");
        }
        for (String frame : ArticleLayoutTest.GAZETTEER_FRAMES) {
          assertFalse(text.contains(frame), "step " + step + " holds \"" + frame.strip() + "\"");
        }
      }
    }
    assertTrue(changed >= 2, "composed articles in " + changed + " of steps 4-7");
  }

  /**
   * {@link Curriculum#withNonceFrom} changes only the composed articles, from its step on: before
   * it, and without {@link Curriculum#withComposedFrom}, every example is as it was.
   */
  @Test
  void nonceFramesOnlyInComposedArticlesFromTheirStep() {
    Curriculum plain = new Curriculum(TOK, 5, 3000, 1, new int[] {1, 2, 8}, 4608);
    Curriculum composed = plain.withComposedFrom(2);
    Curriculum nonce = composed.withNonceFrom(5);
    int changed = 0;
    for (int step = 0; step < 8; step++) {
      List<Example> want = composed.step(step);
      List<Example> got = nonce.step(step);
      assertEquals(want.size(), got.size(), "step " + step + ": the same examples");
      boolean same = true;
      for (int i = 0; i < want.size(); i++) {
        same &= Arrays.equals(want.get(i).tokens(), got.get(i).tokens());
      }
      if (step < 5) {
        assertTrue(same, "step " + step + " is before --nonce-from");
      } else if (!same) {
        changed++;
      }
    }
    assertTrue(changed >= 2, "nonce frames in " + changed + " of steps 5-7");
    for (int step = 0; step < 8; step++) {
      List<Example> want = plain.step(step);
      List<Example> got = plain.withNonceFrom(0).step(step);
      for (int i = 0; i < want.size(); i++) {
        assertArrayEquals(want.get(i).tokens(), got.get(i).tokens(), "no composed articles");
      }
    }
  }

  /**
   * {@code withNonceFrom(step, thirds)}: one third is the data of {@code withNonceFrom(step)};
   * three thirds change composed articles from that step on and nothing before it; a share outside
   * 1-3 is refused.
   */
  @Test
  void theNonceShareChangesOnlyNonceArticles() {
    Curriculum composed =
        new Curriculum(TOK, 5, 3000, 1, new int[] {1, 2, 8}, 4608).withComposedFrom(2);
    assertEquals(fingerprint(composed.withNonceFrom(3)), fingerprint(composed.withNonceFrom(3, 1)));
    Curriculum third = composed.withNonceFrom(5, 1);
    Curriculum all = composed.withNonceFrom(5, 3);
    int changed = 0;
    for (int step = 0; step < 8; step++) {
      List<Example> a = third.step(step);
      List<Example> b = all.step(step);
      assertEquals(a.size(), b.size(), "step " + step);
      boolean same = true;
      for (int i = 0; i < a.size(); i++) {
        same &= Arrays.equals(a.get(i).tokens(), b.get(i).tokens());
      }
      if (step < 5) {
        assertTrue(same, "step " + step + " is before --nonce-from");
      } else if (!same) {
        changed++;
      }
    }
    assertTrue(changed >= 2, "the share changed " + changed + " of steps 5-7");
    assertThrows(IllegalArgumentException.class, () -> composed.withNonceFrom(5, 4));
  }

  private static int fingerprint(Curriculum c) {
    int h = 1;
    for (int step = 0; step < 6; step++) {
      for (Example e : c.step(step)) {
        h = 31 * h + Arrays.hashCode(e.tokens());
      }
    }
    return h;
  }
}
