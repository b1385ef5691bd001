package dev.leap.train.data;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Fact sentences whose predicate is made of nonce words (pronounceable strings that mean nothing:
 * {@code "It drelsk 4023231 vaimors."}), for {@link ComposedDocument}'s training articles from
 * {@code --nonce-from}'s step on. Only the place the sentence is about (its subject, named or not)
 * and the shape of the figure (a count of six or seven digits, a latitude of two decimals, a
 * country's name, three capitalized sights in a row) tell what the sentence states: a model that
 * reads an article by its frames' words ("population", "latitude") cannot use them, one that reads
 * which place a sentence is about and what kind of value it holds can.
 *
 * <p>Why: on the held-out second generator's pages ({@link GazetteerDocument}, frames never seen in
 * training) r47 wrote figures that are not on the page; given each value's first token (the {@code
 * --force-first-token} diagnostic) it copied the population right in 94% of the articles against
 * 21%. It copies; it does not find the fact without a frame it knows.
 *
 * <p>Invariants: the value appears verbatim, once, with the landmarks in the answer's order; a
 * nonce word is 4 to 9 lowercase letters and never one of {@link #REAL}, so no sentence holds a
 * word of the held-out generator's frames. Deterministic for the random stream.
 */
final class NonceFrames {
  private NonceFrames() {}

  /** Real words a nonce word must not be (the held-out generator's and the prompt's words). */
  static final Set<String> REAL =
      Set.of(
          "home",
          "north",
          "degrees",
          "equator",
          "were",
          "counted",
          "residents",
          "people",
          "sits",
          "some",
          "list",
          "first",
          "come",
          "walk",
          "away",
          "place",
          "centre",
          "surveyors",
          "city",
          "town",
          "name",
          "country",
          "latitude",
          "population",
          "landmarks",
          "from",
          "here",
          "there",
          "more",
          "most",
          "many",
          "with",
          "then",
          "their",
          "this",
          "that",
          "these",
          "those",
          "what",
          "where",
          "when",
          "near",
          "after");

  private static final String[] PREPOSITIONS = {"in", "at", "for", "by", "near", "across", "over"};

  /** A nonce word: one or two syllables, 4 to 9 lowercase letters, not a word of {@link #REAL}. */
  static String word(SplittableRandom r) {
    while (true) {
      String w = OpenValues.syllable(r);
      if (r.nextBoolean()) {
        w += OpenValues.syllable(r);
      }
      if (w.length() >= 4 && w.length() <= 9 && !REAL.contains(w)) {
        return w;
      }
    }
  }

  private static String prep(SplittableRandom r) {
    return PREPOSITIONS[r.nextInt(PREPOSITIONS.length)];
  }

  private static String sentence(String s) {
    return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1) + ".";
  }

  /**
   * A figure ({@code value}, a population or a latitude) stated of the place referred to as {@code
   * subject}, {@code object} or {@code possessive}.
   */
  static String figure(
      SplittableRandom r, String subject, String object, String possessive, String value) {
    String v = word(r);
    String n = word(r);
    return sentence(
        switch (r.nextInt(6)) {
          case 0 -> subject + " " + v + " " + value + " " + n;
          case 1 -> value + " " + n + " " + v + " " + prep(r) + " " + object;
          case 2 -> possessive + " " + n + " " + v + " " + value;
          case 3 -> subject + " " + v + " " + prep(r) + " " + value;
          case 4 -> "the " + n + " " + prep(r) + " " + object + " " + v + " " + value;
          default -> prep(r) + " " + value + " " + n + ", " + subject + " " + v;
        });
  }

  /** The three sights {@code l}, in order, of the place referred to as given. */
  static String landmarks(
      SplittableRandom r, String subject, String object, String possessive, List<String> l) {
    String v = word(r);
    String n = word(r);
    String a = l.get(0);
    String b = l.get(1);
    String c = l.get(2);
    return sentence(
        switch (r.nextInt(4)) {
          case 0 -> possessive + " " + n + " " + v + " the " + a + ", the " + b + " and the " + c;
          case 1 -> subject + " " + v + " the " + a + ", then the " + b + ", then the " + c;
          case 2 ->
              "the " + a + ", the " + b + " and the " + c + " " + v + " " + prep(r) + " " + object;
          default ->
              "the " + n + " " + prep(r) + " " + object + " " + v + ": " + a + "; " + b + "; " + c;
        });
  }

  /** The country {@code k} of the place referred to as given. */
  static String country(SplittableRandom r, String subject, String object, String k) {
    String v = word(r);
    return sentence(
        switch (r.nextInt(3)) {
          case 0 -> subject + " " + v + " " + prep(r) + " " + k;
          case 1 -> k + " " + v + " " + object;
          default -> prep(r) + " " + k + ", " + subject + " " + v + " " + word(r);
        });
  }
}
