package dev.leap.train.data;

import java.util.List;
import java.util.SplittableRandom;

/**
 * What the copy curriculum's articles and cards add to the benchmark's first generator, in training
 * only (the held-out articles of {@code leap bench longdoc --generator first} stay as {@link
 * CityDocument#text} writes them): openings that name the city in other places of the sentence than
 * its start, distractor towns whose names differ from the city's by a syllable (a near miss), so
 * that copying a name has to be exact token by token, and articles whose filler never names the
 * city (demo-v5 partly took the most frequent name for the city's: on first-generator articles with
 * the name only in its first two mentions, 3 of 24 names right against 10 of 24). Used from {@code
 * --variety-from}'s step on. None of it is the second generator's ({@link GazetteerDocument})
 * wording or layout.
 */
final class TrainingVariety {
  private TrainingVariety() {}

  /** Whether an article names the city only in its opening and facts (odds one half). */
  static boolean rareName(SplittableRandom v) {
    return v != null && v.nextBoolean();
  }

  /**
   * A filler sentence as it goes into the article: with {@code rare}, the city's name replaced by
   * "the city" (the filler's two frames that name it say "of N" and "connects N with").
   */
  static String filler(String sentence, City c, boolean rare) {
    return rare
        ? sentence.replaceAll("\\b" + java.util.regex.Pattern.quote(c.name()) + "\\b", "the city")
        : sentence;
  }

  /** An opening naming the city and its country (the city not always first). */
  static String opening(SplittableRandom r, City c, String neighbour) {
    String n = c.name();
    String k = c.country();
    return switch (r.nextInt(12)) {
      case 0 -> "Of all the cities of " + k + ", " + n + " is the one most visitors remember.";
      case 1 ->
          "Travellers crossing " + k + " from " + neighbour + " often stop first in " + n + ".";
      case 2 -> "The old river city of " + n + " lies in " + k + ", close to " + neighbour + ".";
      case 3 -> "In the hills of " + k + " stands " + n + ", a city of bridges and markets.";
      case 4 -> "Long a rival of the towns of " + neighbour + ", " + n + " belongs to " + k + ".";
      case 5 ->
          "This article is about "
              + n
              + ", a city in "
              + k
              + ". For other places of the same name, see the index.";
      case 6 -> "Built around a deep harbour, " + n + " is among the busiest cities in " + k + ".";
      case 7 -> n + ", " + k + ": a city of canals, workshops and long summer fairs.";
      case 8 -> "Few cities in " + k + " have changed as much as " + n + " in the last century.";
      case 9 -> "The city of " + n + " (in " + k + ") grew around a ford of its river.";
      case 10 ->
          "Between the coast and the border with "
              + neighbour
              + " lies "
              + n
              + ", a city of "
              + k
              + ".";
      default -> "Known for its markets, " + n + " is a city in the south of " + k + ".";
    };
  }

  /**
   * With {@code v} (training's variety stream), each of {@code others} becomes a near miss of
   * {@code name} with odds one half, all of them still distinct.
   */
  static void nearMisses(List<String> others, String name, SplittableRandom v) {
    if (v == null) {
      return;
    }
    for (int i = 0; i < others.size(); i++) {
      if (v.nextBoolean()) {
        String m = nearMiss(name, v);
        if (!others.contains(m)) {
          others.set(i, m);
        }
      }
    }
  }

  /**
   * A place name that shares the start or the end of {@code name} and differs in the rest (a new
   * syllable or two), capitalized, at most 12 letters; never {@code name}, never holding it nor
   * held in it.
   */
  static String nearMiss(String name, SplittableRandom r) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    for (int attempt = 0; attempt < 50; attempt++) {
      String s;
      if (lower.length() >= 5 && r.nextBoolean()) {
        // Keep the start (2 to length - 2 letters), write a new end.
        int keep = 2 + r.nextInt(lower.length() - 3);
        s = lower.substring(0, keep) + OpenValues.syllable(r);
      } else {
        // Keep the end (at least 3 letters), write a new start.
        int keep = 3 + r.nextInt(Math.max(1, lower.length() - 3));
        keep = Math.min(keep, lower.length());
        s = OpenValues.syllable(r) + lower.substring(lower.length() - keep);
      }
      if (s.length() < 3 || s.length() > 12) {
        continue;
      }
      String cand = OpenValues.capitalize(s);
      if (!cand.equals(name) && !cand.contains(name) && !name.contains(cand)) {
        return cand;
      }
    }
    return OpenValues.place(r);
  }
}
