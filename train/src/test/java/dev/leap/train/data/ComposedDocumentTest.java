package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.SmallTokenizer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ComposedDocument} over 200 seeded articles: every field stated verbatim (as text and as
 * the answer's tokens), the landmarks listed together in the answer's order, the city named in the
 * first block, the target length reached, none of the held-out generator's signatures or frames, no
 * unnamed mention of the city right after a sentence about another town; and what the articles are
 * for: many wordings (distinct fact sentences with the figures taken out) and pages where another
 * town is named more often than the city; all of it with and without {@link NonceFrames}.
 */
class ComposedDocumentTest {
  static final HfTokenizer TOK = SmallTokenizer.get();

  private static final Pattern SENTENCE = Pattern.compile("[^.!?\\n]+(?:\\.\\d+[^.!?\\n]*)*[.!?]");

  @ParameterizedTest(name = "nonce frames {0}")
  @ValueSource(booleans = {false, true})
  void everyFieldVerbatimInManyWordingsWithTheCityRarelyNamed(boolean nonce) {
    SplittableRandom r = new SplittableRandom(27);
    int changedByNonce = 0;
    Set<String> populationWordings = new HashSet<>();
    Set<String> latitudeWordings = new HashSet<>();
    int othersNamedMore = 0;
    int withoutCountryInOpening = 0;
    for (int i = 0; i < 200; i++) {
      long seed = r.nextLong(City.EVAL_SEED_BASE);
      City c = City.open(r.nextLong(City.EVAL_SEED_BASE));
      int target = i % 4 == 0 ? 2000 + r.nextInt(2401) : 300 + r.nextInt(1201);
      String doc = ComposedDocument.text(c, seed, target, TOK, nonce);
      String where = "article " + i + " (seed " + seed + ")";
      assertEquals(
          doc, ComposedDocument.text(c, seed, target, TOK, nonce), where + " deterministic");
      if (nonce && !doc.equals(ComposedDocument.text(c, seed, target, TOK))) {
        changedByNonce++;
      }
      for (String v : c.fields().values()) {
        assertTrue(doc.contains(v), where + " states " + v + ":\n" + doc);
      }
      List<String> l = c.landmarks();
      String a = Pattern.quote(l.get(0));
      String b = Pattern.quote(l.get(1));
      String cc = Pattern.quote(l.get(2));
      assertTrue(
          Pattern.compile(a + "[^.\\n]{1,64}" + b + "[^.\\n]{1,24}" + cc).matcher(doc).find()
              || Pattern.compile("\\n1\\. " + a + "\\n2\\. " + b + "\\n3\\. " + cc + "\\n")
                  .matcher(doc)
                  .find()
              || Pattern.compile("\\n\\* " + a + "\\n\\* " + b + "\\n\\* " + cc + "\\n")
                  .matcher(doc)
                  .find(),
          where + " lists the landmarks together in the answer's order:\n" + doc);
      String first = doc.substring(0, doc.indexOf("\n\n"));
      assertTrue(first.contains(c.name()), where + " names the city in its first block: " + first);
      String[] blocks = doc.split("\n\n", 3);
      if (!(blocks[0] + blocks[1]).contains(c.country())) {
        withoutCountryInOpening++;
      }
      for (String sig : GazetteerDocument.SIGNATURES) {
        assertFalse(doc.contains(sig), where + " holds the second generator's " + sig.strip());
      }
      for (String frame : ArticleLayoutTest.GAZETTEER_FRAMES) {
        assertFalse(doc.contains(frame), where + " holds the second generator's " + frame.strip());
      }
      int[] ids = TOK.encode(doc);
      assertTrue(ids.length >= target, where + ": " + ids.length + " tokens for " + target);
      for (String v : c.fields().values()) {
        assertTrue(
            ArticleLayoutTest.containsRun(ids, TOK.encode(v)),
            where + ": " + v + " not the same tokens");
      }
      String p = Long.toString(c.population());
      for (String paragraph : doc.split("\n\n")) {
        Matcher m = SENTENCE.matcher(paragraph);
        String previous = null;
        while (m.find()) {
          String s = m.group().strip();
          if (s.contains(p)) {
            populationWordings.add(s.replace(p, "P").replaceAll("^[A-Z][a-z]+,", ""));
          }
          if (s.contains(c.latitude())) {
            latitudeWordings.add(s.replace(c.latitude(), "L"));
          }
          boolean aboutCity = s.contains(p) || s.contains(c.latitude());
          if (aboutCity && !s.contains(c.name()) && previous != null) {
            for (String other : townsIn(doc, c)) {
              assertFalse(
                  previous.contains(other),
                  where + ": \"" + s + "\" right after \"" + previous + "\"");
            }
          }
          previous = s;
        }
      }
      int cityMentions = TrainingVarietyTest.mentions(doc, c.name());
      int mostOther =
          townsIn(doc, c).stream()
              .mapToInt(o -> TrainingVarietyTest.mentions(doc, o))
              .max()
              .orElse(0);
      if (mostOther > cityMentions) {
        othersNamedMore++;
      }
    }
    assertTrue(
        populationWordings.size() >= 100, populationWordings.size() + " population wordings");
    assertTrue(latitudeWordings.size() >= 60, latitudeWordings.size() + " latitude wordings");
    assertTrue(othersNamedMore >= 100, "another town named more often in " + othersNamedMore);
    assertTrue(withoutCountryInOpening >= 20, "the country late in " + withoutCountryInOpening);
    if (nonce) {
      assertTrue(changedByNonce >= 150, "nonce frames changed " + changedByNonce + " of 200");
    }
  }

  /** The other towns of an article: the capitalized words the filler's frames name. */
  private static Set<String> townsIn(String doc, City c) {
    Set<String> towns = new HashSet<>();
    Matcher m =
        Pattern.compile("(?:trains to|merchants of|visitors from|nearby|village of) ([A-Z][a-z]+)")
            .matcher(doc);
    while (m.find()) {
      if (!m.group(1).equals(c.name())) {
        towns.add(m.group(1));
      }
    }
    return towns;
  }
}
