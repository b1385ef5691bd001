package dev.leap.train.data;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The facts of one fictional city, drawn from a seed: the values SGLang's {@code city_regex} asks
 * for (name, country, latitude, population, three landmarks), each fitting that regex (names at
 * most 16 letters and spaces, latitude with two decimals, population as plain digits).
 *
 * <p>Seeds below {@link #EVAL_SEED_BASE} are training cities; the benchmarks use seeds from {@code
 * EVAL_SEED_BASE} on, which training never draws.
 */
public record City(
    String name, String country, String latitude, long population, List<String> landmarks) {

  /** First seed of the held-out evaluation cities. */
  public static final long EVAL_SEED_BASE = 1_000_000_000L;

  private static final String[] HEADS = {
    "Vel", "Dun", "Kar", "Mor", "Ash", "Bel", "Cor", "Del", "Esk", "Fal", "Gar", "Hal", "Ist",
        "Jor", "Kel", "Lun",
    "Mar", "Nor", "Ost", "Pel", "Quen", "Ros", "Sel", "Tor", "Ul", "Var", "Wes", "Yar", "Zel",
        "Bran", "Cal", "Drav",
    "Elm", "Fen", "Glen", "Hart", "Ivel", "Kest", "Lor", "Mirn"
  };
  private static final String[] TAILS = {
    "mora", "haven", "ford", "mouth", "gate", "wick", "holm", "stad", "bury", "dale", "mere",
        "port", "ton", "ara",
    "eno", "ica", "is", "ova", "ith", "ander", "vik", "burg", "stead", "combe", "field", "more",
        "ness", "thal"
  };
  private static final String[] COUNTRY_TAILS = {
    "ia", "ria", "land", "onia", "avia", "esia", "istan", "mark", "ora", "enia"
  };
  private static final String[] LANDMARK_HEADS = {
    "Amber", "Iron", "Silver", "Old", "North", "Royal", "Stone", "Glass", "Copper", "Salt", "Red",
    "White", "Grand", "Lantern", "Harbour", "River", "Crown", "Golden", "Ivory", "Green", "High",
    "Star", "Tide", "Winter"
  };
  private static final String[] LANDMARK_TAILS = {
    "Bridge", "Tower", "Cathedral", "Museum", "Gardens", "Market", "Lighthouse", "Palace", "Gate",
        "Library",
    "Theatre", "Abbey", "Fountain", "Castle", "Observatory", "Opera", "Arena", "Chapel", "Park",
        "Citadel"
  };

  /** The three landmarks as prose: {@code the A, the B and the C}. */
  public String landmarkList() {
    return "the " + landmarks.get(0) + ", the " + landmarks.get(1) + " and the " + landmarks.get(2);
  }

  /** The city of a seed (deterministic). */
  public static City of(long seed) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
    String name = placeName(r);
    String country = countryName(r, name);
    String latitude = String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(69), r.nextInt(100));
    long population = population(r);
    List<String> landmarks = new ArrayList<>();
    while (landmarks.size() < 3) {
      String l = landmark(r);
      if (!landmarks.contains(l)) {
        landmarks.add(l);
      }
    }
    return new City(name, country, latitude, population, List.copyOf(landmarks));
  }

  /**
   * The city of a seed with values from the open generators of {@link OpenValues} (millions of
   * names, countries and landmarks), for the copy curriculum; deterministic. Seeds from {@link
   * #EVAL_SEED_BASE} on are held out as for {@link #of}.
   */
  public static City open(long seed) {
    // Seeded through one step of a generator: seeds that differ by a multiple of SplittableRandom's
    // increment would otherwise give shifted copies of one stream (neighbouring cities alike).
    SplittableRandom r = new SplittableRandom(new SplittableRandom(seed ^ 0x5A17C17EL).nextLong());
    String name = OpenValues.place(r);
    String country = OpenValues.country(r, name);
    String latitude = String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(69), r.nextInt(100));
    long population = population(r);
    List<String> landmarks = new ArrayList<>();
    while (landmarks.size() < 3) {
      String l = OpenValues.landmark(r);
      if (!landmarks.contains(l)) {
        landmarks.add(l);
      }
    }
    return new City(name, country, latitude, population, List.copyOf(landmarks));
  }

  static String placeName(SplittableRandom r) {
    return HEADS[r.nextInt(HEADS.length)] + TAILS[r.nextInt(TAILS.length)];
  }

  static String countryName(SplittableRandom r, String avoid) {
    while (true) {
      String c = HEADS[r.nextInt(HEADS.length)] + COUNTRY_TAILS[r.nextInt(COUNTRY_TAILS.length)];
      if (!c.equals(avoid)) {
        return c;
      }
    }
  }

  static String landmark(SplittableRandom r) {
    while (true) {
      String l =
          LANDMARK_HEADS[r.nextInt(LANDMARK_HEADS.length)]
              + " "
              + LANDMARK_TAILS[r.nextInt(LANDMARK_TAILS.length)];
      if (l.length() <= 16) {
        return l;
      }
    }
  }

  /** Log-uniform between 5,000 and 9,999,999. */
  static long population(SplittableRandom r) {
    double lo = Math.log(5_000);
    double hi = Math.log(9_999_999);
    return (long) Math.exp(lo + r.nextDouble() * (hi - lo));
  }

  /**
   * Where the values of {@link #fields} lie in {@code answer} (this city's {@link #answer}, or a
   * text that writes the values as it does: a string value between quotes, a number after {@code ":
   * "}, in field order): per field, its first character's index and the index past its last.
   *
   * @throws IllegalStateException a value is not where the order says
   */
  public int[][] valueSpans(String answer) {
    List<String> values = new ArrayList<>(fields().values());
    int[][] spans = new int[values.size()][];
    int at = 0;
    for (int f = 0; f < values.size(); f++) {
      String v = values.get(f);
      boolean number = f == 2 || f == 3;
      String needle = number ? ": " + v : "\"" + v + "\"";
      int i = answer.indexOf(needle, at);
      if (i < 0) {
        throw new IllegalStateException("value " + v + " not found in the answer " + answer);
      }
      int from = i + (number ? 2 : 1);
      spans[f] = new int[] {from, from + v.length()};
      at = from + v.length();
    }
    return spans;
  }

  /** The answer, exactly in the format of SGLang's {@code city_regex} (2-space indent). */
  public String answer() {
    return "{\n"
        + "  \"name\": \""
        + name
        + "\",\n"
        + "  \"country\": \""
        + country
        + "\",\n"
        + "  \"latitude\": "
        + latitude
        + ",\n"
        + "  \"population\": "
        + population
        + ",\n"
        + "  \"top 3 landmarks\": [\""
        + landmarks.get(0)
        + "\", \""
        + landmarks.get(1)
        + "\", \""
        + landmarks.get(2)
        + "\"]\n"
        + "}";
  }

  /** The answer's fields by name (landmarks as {@code landmark 1..3}), for scoring. */
  public Map<String, String> fields() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("name", name);
    f.put("country", country);
    f.put("latitude", latitude);
    f.put("population", Long.toString(population));
    for (int i = 0; i < 3; i++) {
      f.put("landmark " + (i + 1), landmarks.get(i));
    }
    return f;
  }
}
