package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.SmallTokenizer;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Training's near-miss distractor names and its articles beside the benchmark's. */
class TrainingVarietyTest {
  static final HfTokenizer TOK = SmallTokenizer.get();

  @Test
  void aNearMissSharesAStartOrAnEndAndIsAnotherName() {
    SplittableRandom r = new SplittableRandom(2511);
    for (int i = 0; i < 5000; i++) {
      String name = OpenValues.place(r);
      String m = TrainingVariety.nearMiss(name, r);
      String where = name + " -> " + m;
      assertTrue(m.matches("[A-Z][a-z]{2,11}"), where + ": a capitalized word of 3-12 letters");
      assertNotEquals(name, m);
      assertTrue(!m.contains(name) && !name.contains(m), where);
      String a = name.toLowerCase(java.util.Locale.ROOT);
      String b = m.toLowerCase(java.util.Locale.ROOT);
      boolean start = a.length() >= 2 && b.startsWith(a.substring(0, 2));
      boolean end = a.length() >= 3 && b.endsWith(a.substring(a.length() - 3));
      assertTrue(start || end || a.length() < 5, where + ": shares neither start nor end");
    }
  }

  @Test
  void trainingArticlesHoldNearMissesAndTheBenchmarksKeepTheirText() {
    SplittableRandom r = new SplittableRandom(77);
    int withNearMiss = 0;
    int changedOpenings = 0;
    int rareNames = 0;
    for (int i = 0; i < 60; i++) {
      long seed = r.nextLong(City.EVAL_SEED_BASE);
      City c = City.open(r.nextLong(City.EVAL_SEED_BASE));
      String bench = CityDocument.text(c, seed, 1200, TOK, true);
      assertEquals(bench, CityDocument.text(c, seed, 1200, TOK, true), "deterministic");
      String train = CityDocument.trainingText(c, seed, 1200, TOK);
      assertEquals(train, CityDocument.trainingText(c, seed, 1200, TOK), "deterministic");
      String n = c.name().toLowerCase(java.util.Locale.ROOT);
      Matcher words = Pattern.compile("\\b[A-Z][a-z]+\\b").matcher(train);
      while (words.find()) {
        String w = words.group().toLowerCase(java.util.Locale.ROOT);
        if (!w.equals(n)
            && ((n.length() >= 5 && w.startsWith(n.substring(0, 2)) && w.length() > 3)
                || w.endsWith(n.substring(n.length() - 3)))
            && !bench.contains(words.group())) {
          withNearMiss++;
          break;
        }
      }
      int inBench = mentions(bench, c.name());
      int inTrain = mentions(train, c.name());
      assertTrue(inTrain >= 1, "the training article names the city");
      if (inBench >= 8 && inTrain * 2 <= inBench) {
        rareNames++;
      }
      if (!train
          .substring(0, train.indexOf("\n\n"))
          .equals(bench.substring(0, bench.indexOf("\n\n")))) {
        changedOpenings++;
      }
    }
    assertTrue(withNearMiss >= 30, "near-miss distractors in " + withNearMiss + " of 60");
    assertTrue(rareNames >= 15, "articles naming the city rarely: " + rareNames + " of 60");
    assertTrue(changedOpenings >= 15, "other first blocks in " + changedOpenings + " of 60");
  }

  /** How often {@code name} occurs in {@code text} as a whole word. */
  static int mentions(String text, String name) {
    Matcher m = Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
