package dev.leap.train.data;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Open value generators for the copy curriculum: place names, country names and landmark names
 * built from syllables and parts, millions of values (about 2,000 syllables; names of two or three
 * of them), so a model cannot memorize the answers and must read them from the page (in-context
 * learning needs many rare values, Chan et al. 2022, "Data distributional properties drive emergent
 * in-context learning"). Every value fits {@code city_regex}'s {@code [\w\d\s]{1,16}}: letters and
 * single spaces, at most 16 characters, capitalized words only (so the project's tokenizer splits
 * them alike in a sentence and after a quote).
 */
public final class OpenValues {
  private OpenValues() {}

  private static final String[] ONSETS = {
    "b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "pr", "r",
    "s", "sh", "st", "t", "th", "tr", "v", "w", "z", ""
  };
  private static final String[] VOWELS = {
    "a", "e", "i", "o", "u", "ae", "ai", "ea", "ei", "ou", "y"
  };
  private static final String[] CODAS = {
    "", "", "n", "r", "l", "s", "th", "nd", "rk", "m", "x", "sk", "lt"
  };
  private static final String[] COUNTRY_ENDINGS = {
    "ia", "land", "stan", "ora", "avia", "esia", "mark", "enia", "ovia", "ica"
  };
  private static final String[] ADJECTIVES = {
    "Old", "New", "Upper", "Lower", "Royal", "Grand", "Great", "Little", "North", "South", "East",
    "West", "High", "Red", "White", "Black", "Green", "Golden", "Silver", "Iron", "Stone", "Amber",
    "Salt", "Copper"
  };
  private static final String[] KINDS = {
    "Bridge",
    "Tower",
    "Cathedral",
    "Museum",
    "Gardens",
    "Market",
    "Lighthouse",
    "Palace",
    "Gate",
    "Library",
    "Theatre",
    "Abbey",
    "Fountain",
    "Castle",
    "Observatory",
    "Opera",
    "Arena",
    "Chapel",
    "Park",
    "Citadel",
    "Hall",
    "Square",
    "Harbour",
    "Mill",
    "Temple",
    "Wall",
    "Baths",
    "Arch",
    "Column",
    "Quay",
    "Zoo",
    "Forum"
  };

  /** A syllable: onset, vowel, optional coda. */
  static String syllable(SplittableRandom r) {
    return ONSETS[r.nextInt(ONSETS.length)]
        + VOWELS[r.nextInt(VOWELS.length)]
        + CODAS[r.nextInt(CODAS.length)];
  }

  static String capitalize(String s) {
    return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }

  /** A word of {@code min..max} syllables, capitalized, at most {@code maxLength} letters. */
  static String word(SplittableRandom r, int min, int max, int maxLength) {
    while (true) {
      int n = min + r.nextInt(max - min + 1);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) {
        sb.append(syllable(r));
      }
      if (sb.length() >= 3 && sb.length() <= maxLength) {
        return capitalize(sb.toString());
      }
    }
  }

  /** A place name: two or three syllables, 3 to 12 letters. */
  public static String place(SplittableRandom r) {
    return word(r, 2, 3, 12);
  }

  /** A country name: one or two syllables and a country ending, other than {@code avoid}. */
  public static String country(SplittableRandom r, String avoid) {
    while (true) {
      String c = word(r, 1, 2, 10) + COUNTRY_ENDINGS[r.nextInt(COUNTRY_ENDINGS.length)];
      if (c.length() <= 16 && !c.equals(avoid)) {
        return c;
      }
    }
  }

  /**
   * A landmark: a generated name or an adjective with a kind, or both ({@code Old Tessa Gate}), at
   * most 16 characters.
   */
  public static String landmark(SplittableRandom r) {
    while (true) {
      String kind = KINDS[r.nextInt(KINDS.length)];
      String l =
          switch (r.nextInt(4)) {
            case 0 -> ADJECTIVES[r.nextInt(ADJECTIVES.length)] + " " + kind;
            case 1 ->
                ADJECTIVES[r.nextInt(ADJECTIVES.length)] + " " + word(r, 1, 2, 8) + " " + kind;
            default -> word(r, 2, 3, 10) + " " + kind;
          };
      if (l.length() <= 16) {
        return l;
      }
    }
  }
}
