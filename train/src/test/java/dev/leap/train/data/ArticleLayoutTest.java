package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.SmallTokenizer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The training generator's layouts ({@link Layout}, {@link StyledDocument}): over 300 seeded
 * open-value articles every layout and heading style occurs, every field is stated verbatim (as
 * text and as the answer's tokens; the landmarks together in answer order), the first block names
 * the city, distractors with their own figures stay in every layout, the article reaches its target
 * length, and no text holds the held-out {@link GazetteerDocument}'s signatures or other frames.
 */
class ArticleLayoutTest {
  static final HfTokenizer TOK = SmallTokenizer.get();

  /** GazetteerDocument's frames beyond its SIGNATURES: training text must not hold them either. */
  static final List<String> GAZETTEER_FRAMES =
      List.of(
          "\n- ",
          "degrees north of",
          "home to",
          "were counted",
          "Surveyors place",
          "First on any list",
          "after it come the",
          "Across the valley",
          "The hill village of",
          "Day trips lead to",
          "draws crowds",
          "grew up where two trade roads cross",
          "Capital of a small province",
          "quiet squares",
          "within its limits",
          "It sits");

  static final Pattern FIGURE = Pattern.compile("\\b(\\d{1,2}\\.\\d{2}|\\d{4,7})\\b");

  @Test
  void everyLayoutStatesEveryFieldAndNoneIsTheSecondGenerators() {
    SplittableRandom r = new SplittableRandom(25);
    Map<Layout, Integer> seen = new EnumMap<>(Layout.class);
    Map<Layout, Integer> withDistractorFigures = new EnumMap<>(Layout.class);
    Set<HeadingStyle> styles = EnumSet.noneOf(HeadingStyle.class);
    int countryLate = 0;
    int populationLate = 0;
    for (int i = 0; i < 300; i++) {
      long seed = r.nextLong(City.EVAL_SEED_BASE);
      City c = City.open(r.nextLong(City.EVAL_SEED_BASE));
      int target = i % 5 == 0 ? 2000 + r.nextInt(2401) : 300 + r.nextInt(1201);
      // Every other article as training writes it (near-miss distractors, more openings).
      String doc =
          i % 2 == 0
              ? CityDocument.text(c, seed, target, TOK, true)
              : CityDocument.trainingText(c, seed, target, TOK);
      Layout layout = Layout.of(seed);
      seen.merge(layout, 1, Integer::sum);
      String where =
          (i % 2 == 0 ? "article " : "training article ")
              + i
              + " (seed "
              + seed
              + ", "
              + layout
              + ")";
      for (String v : c.fields().values()) {
        assertTrue(doc.contains(v), where + " states " + v + ":\n" + doc);
      }
      List<String> l = c.landmarks();
      assertTrue(
          Pattern.compile(
                  Pattern.quote(l.get(0))
                      + "[^.\\n]{1,16}"
                      + Pattern.quote(l.get(1))
                      + "[^.\\n]{1,16}"
                      + Pattern.quote(l.get(2)))
              .matcher(doc)
              .find(),
          where + " lists the landmarks together in the answer's order");
      String first = doc.substring(0, doc.indexOf("\n\n"));
      assertTrue(first.contains(c.name()), where + " names the city in its first block: " + first);
      for (String sig : GazetteerDocument.SIGNATURES) {
        assertFalse(doc.contains(sig), where + " holds the second generator's " + sig.strip());
      }
      for (String frame : GAZETTEER_FRAMES) {
        assertFalse(doc.contains(frame), where + " holds the second generator's " + frame.strip());
      }
      int[] ids = TOK.encode(doc);
      int tokens = ids.length;
      assertTrue(tokens >= target, where + ": " + tokens + " tokens for a target of " + target);
      // Token for token, as the answer spells them (the copy recipe's tokenizer property).
      for (String v : c.fields().values()) {
        assertTrue(containsRun(ids, TOK.encode(v)), where + ": " + v + " not the same tokens");
      }
      // A distractor's own figure: a population or latitude that is not the city's.
      Matcher m = FIGURE.matcher(doc);
      while (m.find()) {
        String f = m.group(1);
        boolean year = f.matches("\\d{4}") && Integer.parseInt(f) < 2000;
        if (!year && !f.equals(c.latitude()) && !f.equals(Long.toString(c.population()))) {
          withDistractorFigures.merge(layout, 1, Integer::sum);
          break;
        }
      }
      for (HeadingStyle s : HeadingStyle.values()) {
        for (String title : CityDocument.SECTIONS) {
          if (doc.contains("\n" + s.format(title) + "\n")) {
            styles.add(s);
          }
        }
      }
      if (!first.contains(c.country())) {
        countryLate++;
      }
      if (doc.indexOf(Long.toString(c.population())) > doc.length() / 2) {
        populationLate++;
      }
    }
    assertEquals(EnumSet.allOf(Layout.class), seen.keySet(), "every layout occurs: " + seen);
    for (Layout layout : Layout.values()) {
      assertTrue(seen.get(layout) >= 25, layout + " in " + seen.get(layout) + " of 300 articles");
      int d = withDistractorFigures.getOrDefault(layout, 0);
      assertTrue(
          d >= seen.get(layout) * 9 / 10,
          layout + ": other towns' figures in only " + d + " of " + seen.get(layout));
    }
    assertEquals(EnumSet.allOf(HeadingStyle.class), styles, "every heading style occurs");
    assertTrue(countryLate >= 40, "the country after the first block in " + countryLate);
    assertTrue(populationLate >= 30, "the population in the later half in " + populationLate);
  }

  static boolean containsRun(int[] hay, int[] needle) {
    for (int i = 0; i + needle.length <= hay.length; i++) {
      if (java.util.Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void styledArticlesAreDeterministicAndPlainOnesKeepTheOriginalLayout() {
    for (long seed = 0; seed < 40; seed++) {
      City c = City.open(seed);
      String a = CityDocument.text(c, seed, 500, TOK, true);
      assertEquals(a, CityDocument.text(c, seed, 500, TOK, true), "seed " + seed);
      if (Layout.of(seed) == Layout.PLAIN) {
        assertTrue(a.startsWith(c.name() + " is "), a);
        assertTrue(a.contains("\n== "), "the original headings");
      }
    }
    // Closed-value articles (the demo recipe) never change layout.
    for (long seed = 0; seed < 20; seed++) {
      String a = CityDocument.text(City.of(seed), seed, 400, TOK);
      assertTrue(a.contains("\n== ") && a.startsWith(City.of(seed).name() + " is "), a);
    }
  }

  @Test
  void pronounsAndDescriptionsNameTheCityAndNeverFollowADistractor() {
    SplittableRandom r = new SplittableRandom(7);
    int withoutName = 0;
    for (int i = 0; i < 200; i++) {
      City c = City.open(i);
      String p = ReferringFrames.population(r, c);
      String lat = ReferringFrames.latitude(r, c);
      assertTrue(p.contains(Long.toString(c.population())), p);
      assertTrue(lat.contains(c.latitude()), lat);
      if (!p.contains(c.name())) {
        withoutName++;
      }
    }
    assertTrue(withoutName > 80 && withoutName < 190, "by pronoun or description: " + withoutName);
    List<String> s =
        new ArrayList<>(
            List.of("Filler one.", "Dist A.", "Dist B.", "It has roughly 5000 people."));
    StyledDocument.keepReferencesClear(
        s, Set.of("It has roughly 5000 people."), Set.of("Dist A.", "Dist B."));
    assertEquals(
        List.of("Filler one.", "It has roughly 5000 people.", "Dist A.", "Dist B."),
        s,
        "the pronoun's sentence moves above the distractors");
  }

  @Test
  void styledCardsAreShortAndStateEveryField() {
    SplittableRandom r = new SplittableRandom(3);
    Map<FactCard.Kind, Integer> kinds = new EnumMap<>(FactCard.Kind.class);
    for (int i = 0; i < 200; i++) {
      City c = City.open(r.nextLong(City.EVAL_SEED_BASE));
      City other = i % 2 == 0 ? City.open(r.nextLong(City.EVAL_SEED_BASE)) : null;
      FactCard.Kind kind = i % 4 < 2 ? FactCard.Kind.INTERVIEW : FactCard.Kind.REFERRING;
      kinds.merge(kind, 1, Integer::sum);
      String page = FactCard.text(c, other, kind, r);
      for (String v : c.fields().values()) {
        assertTrue(page.contains(v), kind + " card " + i + " states " + v + ":\n" + page);
      }
      assertTrue(page.substring(0, page.indexOf('.')).contains(c.name()), page);
      if (other != null) {
        assertTrue(page.contains(other.name()), "the distractor is named:\n" + page);
      }
      for (String sig : GazetteerDocument.SIGNATURES) {
        assertFalse(page.contains(sig), page);
      }
      int tokens = TOK.encode(page).length;
      assertTrue(tokens >= 40 && tokens <= 300, kind + " card of " + tokens + " tokens");
    }
    // Phases 2 and 3 draw them among their cards; phase 1 never does.
    Curriculum cur = new Curriculum(TOK, 9, 3000, 0, new int[] {3, 6, 9}, 4608);
    Set<Integer> styledPhases = new java.util.HashSet<>();
    for (int step = 0; step < 9; step++) {
      for (Example e : cur.step(step)) {
        String text = TOK.decode(java.util.Arrays.copyOf(e.tokens(), e.answerStart()));
        if (text.length() < 2500
            && (text.contains("\nQ: ")
                || text.contains("\nQuestion: ")
                || text.contains("\nInterviewer: ")
                || text.contains("\nReporter: "))) {
          styledPhases.add(cur.phase(step));
        }
      }
    }
    assertFalse(styledPhases.contains(1), "phase 1 keeps its cards");
    assertTrue(
        styledPhases.contains(2) || styledPhases.contains(3), "later phases have interviews");
  }
}
