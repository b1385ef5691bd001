package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link NonceFrames} over 600 seeded sentences: the value once and verbatim (the landmarks in the
 * answer's order), the sentence about the place it was given, no word of {@link NonceFrames#REAL}
 * and none of the held-out generator's frames, and many distinct predicates (the point of them).
 */
class NonceFramesTest {
  private static final Pattern WORD = Pattern.compile("\\b[a-z]+\\b");

  /** The words the frames write themselves; every other lowercase word is a nonce word. */
  private static final Set<String> FRAME_WORDS =
      Set.of("the", "and", "then", "it", "its", "in", "at", "for", "by", "near", "across", "over");

  @Test
  void valuesVerbatimAboutTheirPlaceInWordsThatMeanNothing() {
    SplittableRandom r = new SplittableRandom(61);
    Set<String> shapes = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      City c = City.open(r.nextLong(City.EVAL_SEED_BASE));
      String n = c.name();
      String pop = Long.toString(c.population());
      String[] sentences = {
        NonceFrames.figure(r, n, n, n + "'s", pop),
        NonceFrames.figure(r, "it", "the town", "its", c.latitude()),
        NonceFrames.landmarks(r, n, n, n + "'s", c.landmarks()),
        NonceFrames.country(r, n, n, c.country())
      };
      String[] values = {pop, c.latitude(), null, c.country()};
      for (int k = 0; k < sentences.length; k++) {
        String s = sentences[k];
        String where = "sentence " + i + "/" + k + ": " + s;
        assertTrue(s.endsWith("."), where);
        assertTrue(
            java.lang.Character.isUpperCase(s.charAt(0))
                || java.lang.Character.isDigit(s.charAt(0)),
            where);
        if (values[k] != null) {
          assertEquals(1, count(s, values[k]), where + " states " + values[k] + " once");
        } else {
          List<String> l = c.landmarks();
          int a = s.indexOf(l.get(0));
          int b = s.indexOf(l.get(1), a + l.get(0).length());
          int d = s.indexOf(l.get(2), b + l.get(1).length());
          assertTrue(a >= 0 && b > a && d > b, where + " lists " + l + " in order");
        }
        assertTrue(
            s.contains(n) || s.matches("(?i).*\\bits?\\b.*") || s.contains("the town"),
            where + " is about its place");
        String lower = s.toLowerCase(Locale.ROOT);
        Matcher m =
            WORD.matcher(
                s.replace(n + "'s", "")
                    .replace(n, "")
                    .replace(c.country(), "")
                    .replace("the town", ""));
        while (m.find()) {
          String w = m.group();
          if (!FRAME_WORDS.contains(w)) {
            assertTrue(w.matches("[a-z]{4,9}"), where + ": " + w + " is not a nonce word");
            assertFalse(NonceFrames.REAL.contains(w), where + " holds " + w);
          }
        }
        for (String frame : ArticleLayoutTest.GAZETTEER_FRAMES) {
          assertFalse(lower.contains(frame.toLowerCase(Locale.ROOT)), where + " holds " + frame);
        }
        shapes.add(s.replaceAll("[a-z]{4,9}", "w").replace(n, "N"));
      }
    }
    assertTrue(shapes.size() >= 20, shapes.size() + " sentence shapes");
  }

  @Test
  void nonceWordsAreShortLowercaseAndNotReal() {
    SplittableRandom r = new SplittableRandom(62);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 2000; i++) {
      String w = NonceFrames.word(r);
      assertTrue(w.matches("[a-z]{4,9}"), w);
      assertFalse(NonceFrames.REAL.contains(w), w);
      seen.add(w);
    }
    assertTrue(seen.size() >= 1500, seen.size() + " distinct of 2000");
  }

  private static int count(String s, String v) {
    int n = 0;
    for (int at = s.indexOf(v); at >= 0; at = s.indexOf(v, at + 1)) {
      n++;
    }
    return n;
  }
}
