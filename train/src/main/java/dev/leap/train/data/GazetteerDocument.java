package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The second article generator, <b>never used in training</b> ({@code CurriculumTest} checks that
 * no training example holds its layout or frames): a gazetteer-style entry about a {@link City},
 * written as someone else would, so the long-document benchmark also measures articles in an unseen
 * style. It differs from {@link CityDocument} in layout (a title line and Markdown-style {@code ##}
 * headings, bullet lists), in order (the landmarks can come first, the population last, the country
 * in a later section) and in every sentence frame: the city is named by pronouns and epithets as
 * often as by name, the population and latitude are stated in other words ("home to 381204
 * residents", "43.21 degrees north of the equator"), the landmarks one per bullet or in a sentence
 * with other words around them. Distractors: other places with their own figures and sights in the
 * same frames.
 *
 * <p>Deterministic for (city, seed, target length); grows by paragraphs until the text reaches
 * {@code targetTokens} tokens of the given tokenizer.
 */
public final class GazetteerDocument {
  private GazetteerDocument() {}

  /**
   * Strings that only this generator writes (layout marks and frames); training texts never contain
   * them.
   */
  static final List<String> SIGNATURES =
      List.of(
          "\n## ",
          "Gazetteer entry",
          "degrees north of the equator",
          "residents were counted",
          "Points of interest",
          "is home to");

  private static final String[] HEADINGS = {
    "Overview", "Points of interest", "People", "Setting", "Past", "Work and industry",
        "Getting around",
    "Schools", "Food", "Weather", "Neighbourhoods", "Notable buildings", "Sports clubs", "Events"
  };
  private static final String[] THINGS = {
    "ceramics",
    "rope making",
    "olive oil",
    "software",
    "tanning",
    "silk",
    "timber",
    "marble",
    "cheese",
    "insurance",
    "tea",
    "railway works"
  };
  private static final String[] PEOPLE = {
    "Old residents",
    "A travel column",
    "Council minutes",
    "Tour operators",
    "Diaries of merchants",
    "Archive photographs",
    "A walking guide",
    "Schoolbooks"
  };
  private static final String[] QUARTERS = {
    "the Lower Bank",
    "Fig Street",
    "the Tannery Yards",
    "Bell Square",
    "the Orchard District",
    "Kiln Row",
    "the East Docks",
    "Chalk Hill",
    "the Canal Ward",
    "Pilgrim Lane"
  };

  /**
   * The entry about {@code city}, about {@code targetTokens} tokens long, ending with a newline.
   */
  public static String text(City city, long seed, int targetTokens, Tokenizer tokenizer) {
    SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
    String n = city.name();
    List<String> others = new ArrayList<>();
    while (others.size() < 3) {
      String o = OpenValues.place(r);
      if (!o.equals(n) && !others.contains(o)) {
        others.add(o);
      }
    }
    String elsewhere = OpenValues.country(r, city.country());
    List<String> l = city.landmarks();
    List<String> facts = new ArrayList<>();
    facts.add(
        switch (r.nextInt(3)) {
          case 0 -> "Today the city is home to " + city.population() + " people.";
          case 1 ->
              "In the most recent count, "
                  + city.population()
                  + " residents were counted within its limits.";
          default ->
              "Some "
                  + city.population()
                  + " residents were counted here, more than in any nearby place.";
        });
    facts.add(
        switch (r.nextInt(3)) {
          case 0 -> "It sits " + city.latitude() + " degrees north of the equator.";
          case 1 ->
              "Its position, "
                  + city.latitude()
                  + " degrees north of the equator, gives it mild winters.";
          default ->
              "Surveyors place its centre at " + city.latitude() + " degrees north of the equator.";
        });
    String landmarkBlock =
        switch (r.nextInt(2)) {
          case 0 ->
              "Points of interest in "
                  + n
                  + ":\n- "
                  + l.get(0)
                  + "\n- "
                  + l.get(1)
                  + "\n- "
                  + l.get(2);
          default ->
              "First on any list of its sights is the "
                  + l.get(0)
                  + "; after it come the "
                  + l.get(1)
                  + " and, a short walk away, the "
                  + l.get(2)
                  + ".";
        };
    facts.add(landmarkBlock);
    List<String> distractors = new ArrayList<>();
    for (String o : others) {
      switch (r.nextInt(3)) {
        case 0 ->
            distractors.add(
                "Across the valley, " + o + " is home to " + City.population(r) + " people.");
        case 1 ->
            distractors.add(
                "The hill village of "
                    + o
                    + " sits "
                    + String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(69), r.nextInt(100))
                    + " degrees north of the equator.");
        default ->
            distractors.add(
                "Day trips lead to "
                    + o
                    + " in "
                    + elsewhere
                    + ", where the "
                    + OpenValues.landmark(r)
                    + " draws crowds.");
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append(n).append("\nGazetteer entry\n\n");
    sb.append(
            switch (r.nextInt(3)) {
              case 0 ->
                  "A city in "
                      + city.country()
                      + ", "
                      + n
                      + " grew up where two trade roads cross.";
              case 1 ->
                  "Capital of a small province of "
                      + city.country()
                      + ", "
                      + n
                      + " looks towards "
                      + elsewhere
                      + ".";
              default ->
                  n
                      + ", in "
                      + city.country()
                      + ", is known to travellers for its quiet squares and busy markets.";
            })
        .append("\n\n");
    List<String> headings = new ArrayList<>(List.of(HEADINGS));
    Collections.shuffle(headings, new Random(r.nextLong()));
    int factSections = Math.max(2, Math.min(headings.size(), 2 + targetTokens / 500));
    List<List<String>> placed = new ArrayList<>();
    for (int i = 0; i < headings.size(); i++) {
      placed.add(new ArrayList<>());
    }
    for (String f : facts) {
      placed.get(r.nextInt(factSections)).add(f);
    }
    for (String d : distractors) {
      placed.get(r.nextInt(factSections)).add(d);
    }
    for (int section = 0; section < headings.size(); section++) {
      if (section >= factSections && tokenizer.encode(sb.toString()).length >= targetTokens) {
        break;
      }
      sb.append("## ").append(headings.get(section)).append("\n\n");
      List<String> sentences = new ArrayList<>();
      for (int s = 0, count = 2 + r.nextInt(4); s < count; s++) {
        sentences.add(filler(r, city, others));
      }
      for (String f : placed.get(section)) {
        sentences.add(r.nextInt(sentences.size() + 1), f);
      }
      // A bullet list stands on its own lines; sentences run on as a paragraph.
      StringBuilder para = new StringBuilder();
      for (String s : sentences) {
        if (s.contains("\n- ")) {
          para.append(para.length() == 0 ? "" : "\n\n").append(s).append("\n\n");
        } else {
          para.append(para.length() == 0 || para.charAt(para.length() - 1) == '\n' ? "" : " ")
              .append(s);
        }
      }
      sb.append(para.toString().strip()).append("\n\n");
      long goal = (long) targetTokens * (section + 1) / headings.size();
      while (tokenizer.encode(sb.toString()).length < goal) {
        List<String> more = new ArrayList<>();
        for (int s = 0, count = 3 + r.nextInt(3); s < count; s++) {
          more.add(filler(r, city, others));
        }
        sb.append(String.join(" ", more)).append("\n\n");
      }
    }
    return sb.toString();
  }

  private static String filler(SplittableRandom r, City c, List<String> others) {
    String quarter = QUARTERS[r.nextInt(QUARTERS.length)];
    String thing = THINGS[r.nextInt(THINGS.length)];
    String sight = c.landmarks().get(r.nextInt(3));
    String other = others.get(r.nextInt(others.size()));
    int year = 1150 + r.nextInt(870);
    return switch (r.nextInt(10)) {
      case 0 ->
          PEOPLE[r.nextInt(PEOPLE.length)]
              + " recall that "
              + quarter
              + " lived from "
              + thing
              + " until about "
              + year
              + ".";
      case 1 ->
          "Since "
              + year
              + " the streets of "
              + quarter
              + " have led visitors up to the "
              + sight
              + ".";
      case 2 ->
          "Its workshops in "
              + quarter
              + " still turn out "
              + thing
              + ", much of it sold in "
              + other
              + ".";
      case 3 ->
          "Buses leave "
              + quarter
              + " every "
              + (5 + r.nextInt(40))
              + " minutes, some of them bound for "
              + other
              + ".";
      case 4 -> "The town council met in " + quarter + " for the first time in " + year + ".";
      case 5 ->
          "Roughly "
              + (3 + r.nextInt(60))
              + " in every hundred households in "
              + quarter
              + " earn a living from "
              + thing
              + ".";
      case 6 -> "On clear evenings the " + sight + " can be seen from as far as " + other + ".";
      case 7 ->
          PEOPLE[r.nextInt(PEOPLE.length)]
              + " praise the markets of "
              + quarter
              + " and their stalls of "
              + thing
              + ".";
      case 8 ->
          "A flood in "
              + year
              + " reached the doors of the "
              + sight
              + " but spared "
              + quarter
              + ".";
      default ->
          "Walkers following the old wall from "
              + quarter
              + " reach "
              + other
              + " in about "
              + (2 + r.nextInt(9))
              + " hours.";
    };
  }
}
