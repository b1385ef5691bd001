package dev.leap.train.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Short fact cards about a {@link City} (roughly 60 to 300 tokens), the first phase of the copy
 * curriculum: the city's facts stated once, in a listing or in sentences, with other words around
 * them; half of them with one distractor (another place with its own figures, clearly secondary:
 * after the city, in a "nearby" frame); and pure copy drills, where the page holds the record
 * itself. Put inside SGLang's city prompt ({@link CityDocument#prompt}) and answered in {@code
 * city_regex}'s format, a card asks the same as a long article, with the facts a few dozen tokens
 * away. Interview and {@link Kind#REFERRING} cards (the copy curriculum's later phases only) put
 * the facts in the other shapes of {@link StyledDocument}'s articles.
 */
public final class FactCard {
  private FactCard() {}

  /** The kinds of card. */
  public enum Kind {
    LISTING,
    PROSE,
    DRILL,
    /** Questions and answers about the city (and the distractor), in any order. */
    INTERVIEW,
    /**
     * Sentences that name the city by pronoun or description after the opening, the country among
     * the facts, in any order ({@link ReferringFrames}).
     */
    REFERRING
  }

  /** A card for {@code city}; {@code distractor} (or null) is another place the card mentions. */
  public static String text(City city, City distractor, Kind kind, SplittableRandom r) {
    String n = city.name();
    List<String> l = city.landmarks();
    StringBuilder sb = new StringBuilder();
    switch (kind) {
      case DRILL -> {
        if (r.nextBoolean()) {
          sb.append(city.answer()).append('\n');
        } else {
          sb.append("Record of ")
              .append(n)
              .append(": country ")
              .append(city.country())
              .append("; latitude ")
              .append(city.latitude())
              .append("; population ")
              .append(city.population())
              .append("; landmarks ")
              .append(l.get(0))
              .append(", ")
              .append(l.get(1))
              .append(", ")
              .append(l.get(2))
              .append(".\n");
        }
        if (distractor != null) {
          sb.append("Compare ")
              .append(distractor.name())
              .append(", population ")
              .append(distractor.population())
              .append(".\n");
        }
      }
      case LISTING -> {
        String sep =
            switch (r.nextInt(3)) {
              case 0 -> ": ";
              case 1 -> " - ";
              default -> " = ";
            };
        sb.append(n).append('\n');
        List<String> rows =
            new ArrayList<>(
                List.of(
                    "Country" + sep + city.country(),
                    "Latitude" + sep + city.latitude(),
                    "Population" + sep + city.population(),
                    "Landmarks" + sep + l.get(0) + ", " + l.get(1) + ", " + l.get(2)));
        Collections.shuffle(rows, new Random(r.nextLong()));
        for (String row : rows) {
          sb.append(row).append('\n');
        }
        if (distractor != null) {
          sb.append("Nearby")
              .append(sep)
              .append(distractor.name())
              .append(" (")
              .append(distractor.country())
              .append(", population ")
              .append(distractor.population())
              .append(", known for the ")
              .append(distractor.landmarks().get(0))
              .append(")\n");
        }
        addFiller(sb, city, r);
      }
      case PROSE -> {
        sb.append(
            switch (r.nextInt(3)) {
              case 0 -> n + " is a city in " + city.country() + ".";
              case 1 -> n + " is a town of " + city.country() + " with a long history.";
              default -> n + ", a city of " + city.country() + ", lies near the coast.";
            });
        List<String> s = new ArrayList<>();
        s.add(
            switch (r.nextInt(3)) {
              case 0 -> "It has a population of " + city.population() + ".";
              case 1 -> "The census counted " + city.population() + " people in " + n + ".";
              default -> "About " + city.population() + " people live there.";
            });
        s.add(
            switch (r.nextInt(3)) {
              case 0 -> "It lies at latitude " + city.latitude() + ".";
              case 1 -> "The latitude of " + n + " is " + city.latitude() + ".";
              default -> "Its latitude is " + city.latitude() + ".";
            });
        s.add(
            switch (r.nextInt(3)) {
              case 0 -> "Its landmarks are " + city.landmarkList() + ".";
              case 1 -> "Visitors come for " + city.landmarkList() + ".";
              default -> "The best known sights of " + n + " are " + city.landmarkList() + ".";
            });
        if (distractor != null) {
          s.add(
              r.nextInt(s.size() + 1),
              switch (r.nextInt(3)) {
                case 0 ->
                    "The nearby town of "
                        + distractor.name()
                        + " has a population of "
                        + distractor.population()
                        + ".";
                case 1 ->
                    "Not far away lies "
                        + distractor.name()
                        + ", at latitude "
                        + distractor.latitude()
                        + ".";
                default ->
                    "The neighbouring town of "
                        + distractor.name()
                        + " is known for the "
                        + distractor.landmarks().get(0)
                        + ".";
              });
        }
        sb.append(' ').append(String.join(" ", s)).append('\n');
        addFiller(sb, city, r);
      }
      case INTERVIEW -> {
        sb.append(
                r.nextBoolean()
                    ? n + " is a town with a long history."
                    : "Our reporter spoke with a guide from " + n + ".")
            .append("\n\n");
        String[] speakers = FactBlocks.speakers(r);
        List<String> pairs = new ArrayList<>();
        Set<String> referring = new HashSet<>();
        for (int field = 0; field < 4; field++) {
          String[] qa = FactBlocks.ask(r, city, field);
          String pair = FactBlocks.pair(speakers, qa[0], qa[1]);
          pairs.add(pair);
          if (!pair.contains(n)) {
            referring.add(pair);
          }
        }
        Collections.shuffle(pairs, new Random(r.nextLong()));
        Set<String> distractors = new HashSet<>();
        if (distractor != null) {
          String[] qa = FactBlocks.askAbout(r, distractor);
          String pair = FactBlocks.pair(speakers, qa[0], qa[1]);
          distractors.add(pair);
          pairs.add(r.nextInt(pairs.size() + 1), pair);
        }
        StyledDocument.keepReferencesClear(pairs, referring, distractors);
        sb.append(String.join("\n\n", pairs)).append('\n');
      }
      case REFERRING -> {
        sb.append(
            switch (r.nextInt(3)) {
              case 0 -> n + " is a town with a long history.";
              case 1 -> n + " grew from a market town on an old trade road.";
              default -> "This card is about " + n + ", a port on a broad river.";
            });
        String neighbour =
            distractor != null && !distractor.country().equals(city.country())
                ? distractor.country()
                : OpenValues.country(r, city.country());
        List<String> s =
            new ArrayList<>(
                List.of(
                    ReferringFrames.country(r, city, neighbour),
                    ReferringFrames.population(r, city),
                    ReferringFrames.latitude(r, city),
                    ReferringFrames.landmarks(r, city)));
        Collections.shuffle(s, new Random(r.nextLong()));
        Set<String> referring = new HashSet<>();
        for (String f : s) {
          if (ReferringFrames.refersWithoutName(f, city)) {
            referring.add(f);
          }
        }
        Set<String> distractors = new HashSet<>();
        if (distractor != null) {
          String d = ReferringFrames.distractor(r, distractor);
          distractors.add(d);
          s.add(r.nextInt(s.size() + 1), d);
        }
        StyledDocument.keepReferencesClear(s, referring, distractors);
        sb.append(' ').append(String.join(" ", s)).append('\n');
        addFiller(sb, city, r);
      }
    }
    return sb.toString();
  }

  private static final String[] FILLER = {
    "The town hall keeps records from several centuries.",
    "Markets are held twice a week in the main square.",
    "Winters are cold and the summers are short.",
    "A railway line reached the town in the last century.",
    "Fishing and trade were the first sources of income.",
    "The old quarter has narrow streets and small gardens.",
    "Several festivals take place in the autumn.",
    "A university was founded there after the war."
  };

  private static void addFiller(StringBuilder sb, City city, SplittableRandom r) {
    int k = r.nextInt(5);
    for (int i = 0; i < k; i++) {
      sb.append(FILLER[r.nextInt(FILLER.length)]);
      sb.append(i + 1 < k ? " " : "\n");
    }
  }
}
