package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * An encyclopedia-style article about a fictional {@link City}, written by this project for the
 * long-document extraction task: its facts are stated in varied words and in varied places (the
 * population in one section, the latitude in another, the three landmarks together in a third),
 * among distractors — other towns with their own populations, latitudes and landmarks, a
 * neighbouring country, years and percentages. The first word of the article is the city's name.
 *
 * <p>Open-value articles (the copy curriculum's) come in one of several {@link Layout}s chosen by
 * the seed: this class writes the original one ({@link Layout#PLAIN}, unchanged), {@link
 * StyledDocument} the others (other heading styles, an infobox, a list of facts, an interview;
 * facts in any order, the city also named by pronoun or description). Closed-value articles (the
 * demo recipe's) always have the original layout.
 *
 * <p>Deterministic for (city, seed, target length). Documents are grown paragraph by paragraph
 * until they reach the target number of tokens of the given tokenizer.
 */
public final class CityDocument {
  private CityDocument() {}

  private static final String[] DISTRICTS = {
    "Old Harbour", "Lantern Hill", "the Weaver Quarter", "Saltmarsh", "North Terrace",
        "Copperfield",
    "the Glass Market", "Riverside", "Ashgrove", "the Upper Town", "Millbrook", "Stonegate"
  };
  private static final String[] TRADES = {
    "shipbuilding",
    "glassblowing",
    "salt refining",
    "textile weaving",
    "clockmaking",
    "printing",
    "fishing",
    "copper smelting",
    "brewing",
    "banking"
  };
  private static final String[] SUBJECTS = {
    "Local historians",
    "A survey of the municipal archives",
    "The regional council",
    "Visitors from the capital",
    "The harbour authority",
    "A guidebook published last century",
    "The university's geography department",
    "Residents of the older districts",
    "Travel writers"
  };
  private static final String[] VERBS = {
    "describe", "record", "emphasise", "note", "remember", "document"
  };
  private static final String[] SEASONS = {"spring", "summer", "autumn", "winter"};

  /** Section headings of the articles (also {@link StyledDocument}'s). */
  static final String[] SECTIONS = {
    "History",
    "Geography",
    "Climate",
    "Districts",
    "Economy",
    "Culture",
    "Transport",
    "Education",
    "Architecture",
    "Sport",
    "Festivals",
    "Government",
    "Demographics",
    "Tourism"
  };

  /** SGLang's city prompt around a document, with one question. */
  public static String prompt(String document, String question) {
    return "Please extract the information of a city from the following wikipedia page.\n"
        + "Page begin.\n"
        + document
        + "Page end.\n"
        + question;
  }

  /** The extraction questions (the first is SGLang's own). */
  public static List<String> questions() {
    return List.of(
        "Here is the name, country, and symbol of the city in JSON format.\n",
        "Here are the city's name, country, latitude, population and three landmarks in JSON format.\n",
        "Summarise the city as JSON: its name, its country, its latitude and population, and its top landmarks.\n",
        "Fill in the city's record in JSON format, taking every value from the page.\n",
        "Extract the facts a traveller needs first about this city, in JSON format.\n",
        "Here is the structured data of the city described above, in JSON format.\n",
        "Give the city's key facts as a JSON object for an atlas entry.\n",
        "Here is the census and geography summary of the city in JSON format.\n",
        "Return the city's name, country, latitude, population and landmarks as JSON.\n",
        "Here is a JSON card about the city for a school project.\n");
  }

  /**
   * The article about {@code city}, about {@code targetTokens} tokens long under {@code tokenizer}
   * (at least the opening and the fact paragraphs), ending with a newline.
   */
  public static String text(City city, long seed, int targetTokens, Tokenizer tokenizer) {
    return text(city, seed, targetTokens, tokenizer, false);
  }

  /**
   * The article, with the distractor towns, their landmarks and the neighbouring country drawn from
   * {@link OpenValues} when {@code openValues} (for cities of {@link City#open}: distractors then
   * look like the city's own values; the layout is then {@link Layout#of} the seed), else from
   * {@link City#of}'s closed lists.
   */
  public static String text(
      City city, long seed, int targetTokens, Tokenizer tokenizer, boolean openValues) {
    return text(city, seed, targetTokens, tokenizer, openValues, false);
  }

  /**
   * The open-value article as the copy curriculum trains on it: {@link #text} with, drawn from a
   * stream of its own, half the openings from {@link TrainingVariety#opening}, each distractor
   * town's name a {@link TrainingVariety#nearMiss} of the city's with odds one half, and in half
   * the articles the city named by its name only in the opening and the facts ({@link
   * TrainingVariety#filler}). The held-out benchmark articles are {@link #text}'s.
   */
  public static String trainingText(City city, long seed, int targetTokens, Tokenizer tokenizer) {
    return text(city, seed, targetTokens, tokenizer, true, true);
  }

  private static String text(
      City city,
      long seed,
      int targetTokens,
      Tokenizer tokenizer,
      boolean openValues,
      boolean varied) {
    SplittableRandom v = varied ? new SplittableRandom(seed ^ 0x7A21E7L) : null;
    if (openValues) {
      Layout layout = Layout.of(seed);
      if (layout != Layout.PLAIN) {
        return StyledDocument.text(city, seed, targetTokens, tokenizer, layout, v);
      }
    }
    SplittableRandom r = new SplittableRandom(seed);
    String n = city.name();
    List<String> others = new ArrayList<>();
    while (others.size() < 4) {
      String o = openValues ? OpenValues.place(r) : City.placeName(r);
      if (!o.equals(n) && !others.contains(o)) {
        others.add(o);
      }
    }
    TrainingVariety.nearMisses(others, n, v);
    boolean rare = TrainingVariety.rareName(v);
    String neighbour =
        openValues ? OpenValues.country(r, city.country()) : City.countryName(r, city.country());
    // Open-value articles (the copy curriculum) also draw from more frames; closed ones keep
    // theirs.
    List<String> facts =
        openValues && r.nextInt(3) > 0
            ? new ArrayList<>(
                List.of(
                    MoreFrames.population(r, city),
                    MoreFrames.latitude(r, city),
                    MoreFrames.landmarks(r, city)))
            : new ArrayList<>(
                List.of(
                    populationSentence(r, city),
                    latitudeSentence(r, city),
                    landmarkSentence(r, city)));
    // Distractors: other towns stated the way the city's own facts are.
    List<String> distractors = new ArrayList<>();
    for (String o : others) {
      City fake =
          new City(
              o,
              neighbour,
              String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(69), r.nextInt(100)),
              City.population(r),
              openValues
                  ? List.of(OpenValues.landmark(r), OpenValues.landmark(r), OpenValues.landmark(r))
                  : List.of(City.landmark(r), City.landmark(r), City.landmark(r)));
      if (openValues && r.nextBoolean()) {
        distractors.add(MoreFrames.distractor(r, fake));
        continue;
      }
      switch (r.nextInt(3)) {
        case 0 ->
            distractors.add(
                "The nearby town of " + o + " has a population of " + fake.population() + ".");
        case 1 ->
            distractors.add(o + ", further inland, lies at latitude " + fake.latitude() + ".");
        default ->
            distractors.add(
                "The town of "
                    + o
                    + " is known for the "
                    + fake.landmarks().get(0)
                    + " and the "
                    + fake.landmarks().get(1)
                    + ".");
      }
    }
    StringBuilder sb = new StringBuilder();
    String opening = opening(r, city, neighbour);
    if (v != null && v.nextBoolean()) {
      opening = TrainingVariety.opening(v, city, neighbour);
    }
    sb.append(opening).append("\n\n");
    List<String> sections = new ArrayList<>(List.of(SECTIONS));
    Collections.shuffle(sections, new Random(r.nextLong()));
    // Each fact and distractor goes into one of the first sections, at a random place in it.
    int factSections = Math.max(2, Math.min(sections.size(), 2 + targetTokens / 400));
    List<List<String>> placed = new ArrayList<>();
    for (int i = 0; i < sections.size(); i++) {
      placed.add(new ArrayList<>());
    }
    for (String f : facts) {
      placed.get(r.nextInt(factSections)).add(f);
    }
    for (String d : distractors) {
      placed.get(r.nextInt(factSections)).add(d);
    }
    for (int section = 0; section < sections.size(); section++) {
      if (section >= factSections && tokenizer.encode(sb.toString()).length >= targetTokens) {
        break;
      }
      String title = sections.get(section);
      sb.append("== ").append(title).append(" ==\n");
      List<String> sentences = new ArrayList<>();
      int count = 3 + r.nextInt(4);
      for (int s = 0; s < count; s++) {
        sentences.add(
            TrainingVariety.filler(sentence(r, city, others, neighbour, title), city, rare));
      }
      for (String f : placed.get(section)) {
        sentences.add(r.nextInt(sentences.size() + 1), f);
      }
      sb.append(String.join(" ", sentences)).append("\n\n");
      // Grow evenly: after section i the text has about (i + 1) / sections of the target, so the
      // facts (in the first sections) spread over the article and the last section reaches the
      // length.
      long goal = (long) targetTokens * (section + 1) / sections.size();
      while (tokenizer.encode(sb.toString()).length < goal) {
        List<String> more = new ArrayList<>();
        for (int s = 0; s < 4 + r.nextInt(3); s++) {
          more.add(TrainingVariety.filler(sentence(r, city, others, neighbour, title), city, rare));
        }
        sb.append(String.join(" ", more)).append("\n\n");
      }
    }
    if (r.nextInt(3) == 0) {
      sb.append("In summary, ")
          .append(n)
          .append(" remains a city of ")
          .append(city.population())
          .append(" people in ")
          .append(city.country())
          .append(", famous for the ")
          .append(city.landmarks().get(0))
          .append(".\n");
    }
    return sb.toString();
  }

  static String opening(SplittableRandom r, City c, String neighbour) {
    String n = c.name();
    return switch (r.nextInt(4)) {
      case 0 ->
          n
              + " is a port city in the north of "
              + c.country()
              + ", on the estuary of a broad river. It is one of the "
              + "oldest cities of "
              + c.country()
              + " and lies near the border with "
              + neighbour
              + ".";
      case 1 ->
          n
              + " is a city in "
              + c.country()
              + ". It grew from a market town on the road to "
              + neighbour
              + " into a regional capital.";
      case 2 ->
          n
              + " is the largest city of its province in "
              + c.country()
              + ", known for its harbour, its old "
              + "districts and its long history of trade with "
              + neighbour
              + ".";
      default ->
          n
              + " is a historic city of "
              + c.country()
              + ", founded as a fortress and later a centre of crafts, "
              + "learning and trade.";
    };
  }

  private static String populationSentence(SplittableRandom r, City c) {
    String n = c.name();
    long p = c.population();
    return switch (r.nextInt(4)) {
      case 0 -> n + " has a population of " + p + " according to the last census.";
      case 1 -> "At the last census the population of " + n + " was " + p + ".";
      case 2 -> "With a population of " + p + ", " + n + " is a major centre of the region.";
      default -> "The census counted " + p + " inhabitants in " + n + ".";
    };
  }

  private static String latitudeSentence(SplittableRandom r, City c) {
    String n = c.name();
    return switch (r.nextInt(3)) {
      case 0 -> n + " lies at latitude " + c.latitude() + ".";
      case 1 -> "The latitude of " + n + " is " + c.latitude() + " degrees north.";
      default -> "Located at latitude " + c.latitude() + ", " + n + " has long summer evenings.";
    };
  }

  private static String landmarkSentence(SplittableRandom r, City c) {
    String n = c.name();
    return switch (r.nextInt(3)) {
      case 0 -> "The best known landmarks of " + n + " are " + c.landmarkList() + ".";
      case 1 -> "Visitors to " + n + " come above all for " + c.landmarkList() + ".";
      default -> "The three most famous landmarks of " + n + " are " + c.landmarkList() + ".";
    };
  }

  static String sentence(
      SplittableRandom r, City c, List<String> others, String neighbour, String topic) {
    String district = pick(r, DISTRICTS);
    String landmark = c.landmarks().get(r.nextInt(3));
    String trade = pick(r, TRADES);
    String other = others.get(r.nextInt(others.size()));
    int year = 1200 + r.nextInt(800);
    return switch (r.nextInt(10)) {
      case 0 ->
          pick(r, SUBJECTS)
              + " "
              + pick(r, VERBS)
              + " that "
              + district
              + " grew around "
              + trade
              + " in the years after "
              + year
              + ".";
      case 1 ->
          "In "
              + year
              + ", the "
              + landmark
              + " was restored, and the work drew craftsmen from "
              + district
              + " and from across "
              + c.country()
              + ".";
      case 2 ->
          "The "
              + topic.toLowerCase()
              + " of "
              + c.name()
              + " is shaped by the river, which divides "
              + district
              + " from "
              + pick(r, DISTRICTS)
              + ".";
      case 3 ->
          "Each "
              + pick(r, SEASONS)
              + ", residents of "
              + district
              + " gather near the "
              + landmark
              + " for a festival that dates from "
              + year
              + ".";
      case 4 ->
          "By "
              + year
              + " about "
              + (2 + r.nextInt(40))
              + " percent of the workers in "
              + district
              + " were employed in "
              + trade
              + ".";
      case 5 ->
          "A tram line opened in "
              + year
              + " links "
              + district
              + " with "
              + pick(r, DISTRICTS)
              + ", passing the "
              + landmark
              + ".";
      case 6 ->
          "Trade with "
              + neighbour
              + " brought "
              + trade
              + " to "
              + other
              + " around "
              + year
              + ".";
      case 7 ->
          "A road of "
              + (10 + r.nextInt(190))
              + " kilometres connects "
              + c.name()
              + " with "
              + other
              + ".";
      case 8 ->
          pick(r, SUBJECTS)
              + " "
              + pick(r, VERBS)
              + " the view of the "
              + landmark
              + " from the hills above "
              + district
              + ".";
      default ->
          "Records from "
              + year
              + " mention "
              + trade
              + " workshops in "
              + district
              + ", many of which still "
              + "operate today.";
    };
  }

  private static String pick(SplittableRandom r, String[] options) {
    return options[r.nextInt(options.length)];
  }
}
