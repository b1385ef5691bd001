package dev.leap.train.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Facts as blocks of lines rather than sentences, for {@link StyledDocument}'s layouts: an infobox
 * of {@code Key: value} lines, a numbered or starred list, a question and its answer. A block holds
 * line breaks but no blank line; its values are written exactly as in the answer (plain digits,
 * landmarks in the answer's order). No block uses the held-out {@link GazetteerDocument}'s dashed
 * bullets ({@code "\n- "}).
 */
final class FactBlocks {
  private FactBlocks() {}

  private static final String[][] KEYS = {
    {"Name", "City", "Official name"},
    {"Country", "State", "Nation"},
    {"Latitude", "Lat.", "Latitude (north)"},
    {"Population", "Inhabitants", "Census population"},
    {"Landmarks", "Main sights", "Top landmarks"}
  };
  private static final String[] SEPARATORS = {": ", " | ", " = ", " :: "};
  private static final String[] INFOBOX_HEADERS = {"", "At a glance", "Quick facts", "Fact box"};

  /**
   * An infobox of {@code city}: the name's line first, the other four in a random order, an
   * optional header line above and, with a {@code nearby} town, a line naming it with its
   * population.
   */
  static String infobox(SplittableRandom r, City city, City nearby) {
    String sep = SEPARATORS[r.nextInt(SEPARATORS.length)];
    List<String> l = city.landmarks();
    String landmarks =
        r.nextBoolean()
            ? l.get(0) + ", " + l.get(1) + ", " + l.get(2)
            : l.get(0) + "; " + l.get(1) + "; " + l.get(2);
    List<String> rows =
        new ArrayList<>(
            List.of(
                key(r, 1) + sep + city.country(),
                key(r, 2) + sep + city.latitude(),
                key(r, 3) + sep + city.population(),
                key(r, 4) + sep + landmarks));
    Collections.shuffle(rows, new Random(r.nextLong()));
    rows.add(0, key(r, 0) + sep + city.name());
    if (nearby != null) {
      rows.add("Nearby town" + sep + nearby.name() + " (population " + nearby.population() + ")");
    }
    String header = INFOBOX_HEADERS[r.nextInt(INFOBOX_HEADERS.length)];
    return (header.isEmpty() ? "" : header + "\n") + String.join("\n", rows);
  }

  private static String key(SplittableRandom r, int field) {
    return KEYS[field][r.nextInt(KEYS[field].length)];
  }

  private static final String[] LIST_HEADERS = {
    "Facts in brief:", "Key figures:", "Worth knowing:", "The essentials:"
  };

  /**
   * {@code items} as a list under a header line, numbered {@code 1.}, {@code 1)}, {@code (1)} or
   * starred.
   */
  static String list(SplittableRandom r, List<String> items) {
    int style = r.nextInt(4);
    StringBuilder sb = new StringBuilder(LIST_HEADERS[r.nextInt(LIST_HEADERS.length)]);
    for (int i = 0; i < items.size(); i++) {
      int k = i + 1;
      sb.append('\n')
          .append(
              switch (style) {
                case 0 -> k + ". ";
                case 1 -> k + ") ";
                case 2 -> "(" + k + ") ";
                default -> "* ";
              })
          .append(items.get(i));
    }
    return sb.toString();
  }

  private static final String[][] SPEAKERS = {
    {"Q: ", "A: "},
    {"Question: ", "Answer: "},
    {"Interviewer: ", "Guide: "},
    {"Reporter: ", "Mayor: "}
  };

  /** The speakers of an interview: who asks, who answers (one pair per article). */
  static String[] speakers(SplittableRandom r) {
    return SPEAKERS[r.nextInt(SPEAKERS.length)];
  }

  /** A question and its answer, each on its own line. */
  static String pair(String[] speakers, String question, String answer) {
    return speakers[0] + question + "\n" + speakers[1] + answer;
  }

  /**
   * A question about one of the city's facts ({@code field} 0 country .. 3 landmarks) and its
   * answer.
   */
  static String[] ask(SplittableRandom r, City c, int field) {
    String n = c.name();
    String it = r.nextBoolean() ? n : "the town";
    List<String> l = c.landmarks();
    return switch (field) {
      case 0 ->
          r.nextBoolean()
              ? new String[] {"Which country is " + it + " in?", "It is in " + c.country() + "."}
              : new String[] {"And the country?", c.country() + ", of course."};
      case 1 ->
          switch (r.nextInt(3)) {
            case 0 ->
                new String[] {
                  "How many people live in " + it + "?",
                  "Roughly " + c.population() + ", by the last count."
                };
            case 1 ->
                new String[] {
                  "What is the population of " + it + "?",
                  "The last census counted " + c.population() + "."
                };
            default ->
                new String[] {
                  "How big is " + it + " today?", "A head count of " + c.population() + " people."
                };
          };
      case 2 ->
          r.nextBoolean()
              ? new String[] {"How far north is " + it + "?", c.latitude() + " degrees north."}
              : new String[] {"And its latitude?", "It lies at latitude " + c.latitude() + "."};
      default ->
          r.nextBoolean()
              ? new String[] {
                "What should a visitor see first?",
                "The " + l.get(0) + ", the " + l.get(1) + " and the " + l.get(2) + "."
              }
              : new String[] {
                "Which are the landmarks of " + it + "?",
                l.get(0) + ", " + l.get(1) + " and " + l.get(2) + "."
              };
    };
  }

  /** A question about a distractor town, always named in the question and the answer. */
  static String[] askAbout(SplittableRandom r, City fake) {
    String o = fake.name();
    return switch (r.nextInt(3)) {
      case 0 ->
          new String[] {
            "And how many people live in " + o + "?", o + " has about " + fake.population() + "."
          };
      case 1 ->
          new String[] {
            "Where does " + o + " lie?", o + " lies at latitude " + fake.latitude() + "."
          };
      default ->
          new String[] {
            "What is " + o + " known for?", o + " is known for the " + fake.landmarks().get(0) + "."
          };
    };
  }
}
