package dev.leap.train.data;

import java.util.SplittableRandom;

/**
 * Fact sentences for {@link StyledDocument}'s layouts that name the city as a reader would after
 * its first mention: by its name, a pronoun ({@code It}) or a description ({@code the town}, {@code
 * this port}); numbers in more wordings ("roughly 381204 people", "a head count of 381204", "381204
 * souls", "43.21 degrees north", "at 43.21 north"); the country as a fact of its own, so it can
 * come late in an article. Distractor towns are always named, so a description can only mean the
 * city. None of these frames is one of the held-out {@link GazetteerDocument}'s (its {@code
 * SIGNATURES} and its other frames: "is home to", "residents were counted", "degrees north of the
 * equator", "sits").
 */
final class ReferringFrames {
  private ReferringFrames() {}

  private static final String[] DESCRIPTIONS = {
    "the town", "the city", "this port", "the old port", "the city on the river", "this town"
  };

  /**
   * The city as a sentence's subject: its name (a third of the time), {@code It} or a description.
   */
  static String subject(SplittableRandom r, City c) {
    int k = r.nextInt(6);
    return k < 2 ? c.name() : k == 2 ? "It" : OpenValues.capitalize(description(r));
  }

  /** The city after a preposition or verb: its name (a third of the time) or a description. */
  static String object(SplittableRandom r, City c) {
    return r.nextInt(3) == 0 ? c.name() : description(r);
  }

  private static String description(SplittableRandom r) {
    return DESCRIPTIONS[r.nextInt(DESCRIPTIONS.length)];
  }

  /** Whether {@code sentence} names the city only by a pronoun or a description. */
  static boolean refersWithoutName(String sentence, City c) {
    return !sentence.contains(c.name());
  }

  static String population(SplittableRandom r, City c) {
    long p = c.population();
    return switch (r.nextInt(8)) {
      case 0 -> subject(r, c) + " has roughly " + p + " people.";
      case 1 ->
          "A head count of " + p + " was recorded for " + object(r, c) + " at the last census.";
      case 2 -> subject(r, c) + " numbers some " + p + " souls.";
      case 3 -> "The head count in " + object(r, c) + " came to " + p + ".";
      case 4 -> "Roughly " + p + " people live in " + object(r, c) + " today.";
      case 5 -> subject(r, c) + " had a population of " + p + " at the turn of the decade.";
      case 6 -> "Census takers found " + p + " inhabitants in " + object(r, c) + ".";
      default ->
          OpenValues.capitalize(object(r, c))
              + ", with "
              + p
              + " souls, is larger than any town near it.";
    };
  }

  static String latitude(SplittableRandom r, City c) {
    String l = c.latitude();
    return switch (r.nextInt(7)) {
      case 0 -> subject(r, c) + " lies at " + l + " north.";
      case 1 -> subject(r, c) + " stands at " + l + " degrees north.";
      case 2 -> "The parallel through " + object(r, c) + " is " + l + ".";
      case 3 -> "On the map, " + object(r, c) + " is found at latitude " + l + ".";
      case 4 -> "A latitude of " + l + " degrees puts " + object(r, c) + " in the temperate belt.";
      case 5 -> subject(r, c) + " is built at " + l + " degrees latitude.";
      default -> "Seen from space, " + object(r, c) + " is at " + l + " north.";
    };
  }

  static String landmarks(SplittableRandom r, City c) {
    String list = c.landmarkList();
    var l = c.landmarks();
    return switch (r.nextInt(6)) {
      case 0 -> "In " + object(r, c) + ", the sights most visited are " + list + ".";
      case 1 -> subject(r, c) + " is best known for " + list + ".";
      case 2 -> "Three sights define " + object(r, c) + ": " + list + ".";
      case 3 -> "Whoever visits " + object(r, c) + " is shown " + list + " first.";
      case 4 ->
          "Its landmarks, in order of fame: " + l.get(0) + ", " + l.get(1) + ", " + l.get(2) + ".";
      default ->
          "Postcards of "
              + object(r, c)
              + " show the "
              + l.get(0)
              + ", the "
              + l.get(1)
              + " or the "
              + l.get(2)
              + ", its three landmarks.";
    };
  }

  /** The city's country, with the neighbouring country as a distractor in some frames. */
  static String country(SplittableRandom r, City c, String neighbour) {
    String k = c.country();
    return switch (r.nextInt(6)) {
      case 0 -> subject(r, c) + " lies in " + k + ", near the border with " + neighbour + ".";
      case 1 -> "Politically, " + object(r, c) + " belongs to " + k + ".";
      case 2 -> subject(r, c) + " has been part of " + k + " for centuries.";
      case 3 -> "Although close to " + neighbour + ", " + object(r, c) + " lies in " + k + ".";
      case 4 -> "The flag over the town hall of " + c.name() + " is that of " + k + ".";
      default -> c.name() + " is governed from the capital of " + k + ".";
    };
  }

  /** A distractor town, always named, with one of its figures in the wordings above. */
  static String distractor(SplittableRandom r, City fake) {
    String o = fake.name();
    return switch (r.nextInt(6)) {
      case 0 -> "Roughly " + fake.population() + " people live in the village of " + o + ".";
      case 1 -> "The head count in nearby " + o + " came to " + fake.population() + ".";
      case 2 -> "The smaller port of " + o + " lies at " + fake.latitude() + " north.";
      case 3 -> o + ", a market town, stands at " + fake.latitude() + " degrees north.";
      case 4 ->
          "In neighbouring "
              + o
              + ", the sights most visited are the "
              + fake.landmarks().get(0)
              + " and the "
              + fake.landmarks().get(1)
              + ".";
      default ->
          o
              + ", across the border in "
              + fake.country()
              + ", numbers some "
              + fake.population()
              + " souls.";
    };
  }
}
