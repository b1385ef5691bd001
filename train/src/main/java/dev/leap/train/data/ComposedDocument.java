package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Training articles whose sentences are composed from parts (an optional lead-in, a subject, a
 * predicate from a lexicon of each fact's wordings, an optional tail), so a fact has hundreds of
 * wordings instead of a few frames, and pages whose statistics do not point at the answer: the city
 * is named in the title or opening and rarely after it (a pronoun or a description stands for it),
 * while the other towns are named again and again, in facts of the same wordings and in the filler,
 * with figures of their own and numbers of every shape (years, counts, distances, decimals) around.
 * A model that takes the most frequent name, the first figure or a fixed frame gets these pages
 * wrong; one that reads which place a sentence is about gets them right.
 *
 * <p>demo-v5 read 6% of the fields of the held-out {@link GazetteerDocument}'s articles: most of
 * its errors were the most often named place for the city, and another town's figure. These
 * articles are for training only; none of their wordings or marks is the held-out generator's
 * ({@code CurriculumTest} checks its signatures and frames: no {@code ## } heading, no dashed
 * bullet, no "home to", no "degrees north of").
 *
 * <p>Invariants: the first block (up to the first blank line) names the city; every field's value
 * occurs verbatim, the landmarks once in the answer's order in the sentence that lists them; a
 * sentence that names the city only by pronoun or description never directly follows a sentence
 * about another town in its paragraph. Deterministic for (city, seed, target length).
 */
final class ComposedDocument {
  private ComposedDocument() {}

  private static final String[] KINDS = {
    "city", "town", "port", "market town", "river town", "provincial capital", "hill town"
  };
  private static final String[] ADJECTIVES = {
    "small", "large", "busy", "quiet", "historic", "growing", "walled", "prosperous", "old"
  };
  private static final String[] DESCRIPTIONS = {
    "the city", "the town", "this city", "the municipality", "the settlement", "this town"
  };
  private static final String[] TITLES = {
    "History",
    "Economy",
    "Transport",
    "Culture",
    "Climate",
    "Sights",
    "Population",
    "Geography",
    "Education",
    "Sport",
    "Government",
    "Markets",
    "Festivals",
    "Architecture",
    "Surroundings",
    "Religion",
    "Media",
    "Twin towns",
    "Parks",
    "Trade"
  };
  private static final String[] GOODS = {
    "wool",
    "glassware",
    "copper pots",
    "salted fish",
    "paper",
    "wine",
    "leather",
    "clocks",
    "bricks",
    "lace",
    "barley",
    "machine parts"
  };

  /** How the article refers to one place: as a subject, an object and a possessive. */
  private record Ref(String subject, String object, String possessive) {
    static Ref name(String name) {
      return new Ref(name, name, name + "'s");
    }

    /** The city after its first mention: its name (a quarter), {@code it} or a description. */
    static Ref city(SplittableRandom r, City c, boolean rare) {
      int k = r.nextInt(8);
      if (!rare && k < 2) {
        return name(c.name());
      }
      String d = DESCRIPTIONS[r.nextInt(DESCRIPTIONS.length)];
      return k < 4
          ? new Ref("it", d, "its")
          : new Ref(d, rare || r.nextBoolean() ? d : c.name(), d + "'s");
    }

    /** Another town, always named, sometimes with a word of description before the name. */
    static Ref other(SplittableRandom r, String o) {
      String d =
          switch (r.nextInt(5)) {
            case 0 -> "nearby " + o;
            case 1 -> "the village of " + o;
            case 2 -> "neighbouring " + o;
            default -> o;
          };
      return new Ref(d, d, d + "'s");
    }
  }

  /**
   * A sentence of an article: its text, whether it may be about another town (a distractor's fact,
   * filler) and whether it states one of the city's facts.
   */
  private record Sentence(String text, boolean aboutOther, boolean aboutCity) {}

  static String text(City city, long seed, int targetTokens, Tokenizer tokenizer) {
    return text(city, seed, targetTokens, tokenizer, false);
  }

  /**
   * As {@link #text(City, long, int, Tokenizer)}; with {@code nonce}, a third of the fact sentences
   * (the city's and the other towns' alike) are {@link NonceFrames}' (the same article without it
   * otherwise: no draw is added when it is off).
   */
  static String text(City city, long seed, int targetTokens, Tokenizer tokenizer, boolean nonce) {
    return text(city, seed, targetTokens, tokenizer, nonce ? 1 : 0);
  }

  /**
   * As {@link #text(City, long, int, Tokenizer)} with {@code nonce} (0-3) thirds of the fact
   * sentences {@link NonceFrames}' (0: none and no draw added; 1: the same text as {@code nonce}
   * true).
   */
  static String text(City city, long seed, int targetTokens, Tokenizer tokenizer, int nonce) {
    SplittableRandom r = new SplittableRandom(seed ^ 0xC0_3905EL);
    String n = city.name();
    String k = city.country();
    List<String> others = new ArrayList<>();
    for (int count = 3 + r.nextInt(3); others.size() < count; ) {
      String o = OpenValues.place(r);
      if (!o.equals(n) && !others.contains(o)) {
        others.add(o);
      }
    }
    TrainingVariety.nearMisses(others, n, r);
    String elsewhere = OpenValues.country(r, k);
    List<City> fakes = new ArrayList<>();
    for (String o : others) {
      List<String> sights = new ArrayList<>();
      while (sights.size() < 3) {
        String l = OpenValues.landmark(r);
        if (!sights.contains(l) && !city.landmarks().contains(l)) {
          sights.add(l);
        }
      }
      fakes.add(
          new City(
              o,
              r.nextBoolean() ? k : elsewhere,
              String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(69), r.nextInt(100)),
              City.population(r),
              List.copyOf(sights)));
    }
    boolean rare = r.nextInt(3) > 0;
    boolean countryLate = r.nextInt(4) == 0;

    StringBuilder sb = new StringBuilder();
    sb.append(title(r, city, countryLate)).append(opening(r, city, countryLate, elsewhere));
    sb.append("\n\n");

    List<Sentence> facts = new ArrayList<>();
    facts.add(cityFact(population(r, Ref.city(r, city, rare), city.population(), nonce)));
    facts.add(cityFact(latitude(r, Ref.city(r, city, rare), city.latitude(), nonce)));
    facts.add(cityFact(landmarks(r, Ref.city(r, city, rare), city.landmarks(), nonce)));
    if (countryLate) {
      facts.add(cityFact(country(r, Ref.city(r, city, rare), k, nonce)));
    }
    for (City f : fakes) {
      for (int i = 0, count = 1 + r.nextInt(2); i < count; i++) {
        Ref o = Ref.other(r, f.name());
        String s =
            switch (r.nextInt(4)) {
              case 0 -> population(r, o, f.population(), nonce);
              case 1 -> latitude(r, o, f.latitude(), nonce);
              case 2 -> landmarks(r, o, f.landmarks(), nonce);
              default -> country(r, o, f.country(), nonce);
            };
        facts.add(new Sentence(s, true, false));
      }
    }

    boolean headings = r.nextInt(4) > 0;
    HeadingStyle style = HeadingStyle.pick(r);
    List<String> titles = new ArrayList<>(List.of(TITLES));
    for (int i = titles.size() - 1; i > 0; i--) {
      titles.set(i, titles.set(r.nextInt(i + 1), titles.get(i)));
    }
    int sections = titles.size();
    int factSections = Math.max(2, Math.min(sections, 2 + targetTokens / 500));
    List<List<Sentence>> placed = new ArrayList<>();
    for (int i = 0; i < sections; i++) {
      placed.add(new ArrayList<>());
    }
    for (Sentence f : facts) {
      placed.get(r.nextInt(factSections)).add(f);
    }
    for (int section = 0; section < sections; section++) {
      if (section >= factSections && tokenizer.encode(sb.toString()).length >= targetTokens) {
        break;
      }
      if (headings) {
        sb.append(style.format(titles.get(section))).append("\n\n");
      }
      List<Sentence> sentences = new ArrayList<>();
      for (int s = 0, count = 2 + r.nextInt(4); s < count; s++) {
        sentences.add(filler(r, city, others, elsewhere));
      }
      for (Sentence f : placed.get(section)) {
        sentences.add(r.nextInt(sentences.size() + 1), f);
      }
      sb.append(paragraph(r, sentences, city)).append("\n\n");
      long goal = (long) targetTokens * (section + 1) / sections;
      while (tokenizer.encode(sb.toString()).length < goal) {
        List<Sentence> more = new ArrayList<>();
        for (int s = 0, count = 3 + r.nextInt(3); s < count; s++) {
          more.add(filler(r, city, others, elsewhere));
        }
        sb.append(paragraph(r, more, city)).append("\n\n");
      }
    }
    return sb.toString().strip() + "\n";
  }

  private static Sentence cityFact(String s) {
    return new Sentence(s, false, true);
  }

  /**
   * The sentences as a paragraph: a list (a line of its own in the text) stands apart; a sentence
   * that names the city only by pronoun or description after one about another town gets a filler
   * sentence before it that names no town.
   */
  private static String paragraph(SplittableRandom r, List<Sentence> sentences, City c) {
    StringBuilder p = new StringBuilder();
    Sentence previous = null;
    for (Sentence s : sentences) {
      boolean unnamed = s.aboutCity() && !s.text().contains(c.name());
      if (unnamed && previous != null && previous.aboutOther()) {
        Sentence neutral = neutralFiller(r);
        p.append(p.length() == 0 ? "" : " ").append(neutral.text());
        previous = neutral;
      }
      if (s.text().contains("\n")) {
        p.append(p.length() == 0 ? "" : "\n\n").append(s.text()).append("\n\n");
        previous = null;
      } else {
        boolean lineStart = p.length() == 0 || p.charAt(p.length() - 1) == '\n';
        p.append(lineStart ? "" : " ").append(s.text());
        previous = s;
      }
    }
    return p.toString().strip();
  }

  private static String title(SplittableRandom r, City c, boolean countryLate) {
    String n = c.name();
    return switch (r.nextInt(6)) {
      case 0 -> n + "\n\n";
      case 1 -> countryLate ? n + "\n\n" : n + " (" + c.country() + ")\n\n";
      case 2 -> "About " + n + "\n\n";
      case 3 -> n + ": a short guide\n\n";
      case 4 -> n + "\n" + "=".repeat(n.length()) + "\n\n";
      default -> "";
    };
  }

  /** The opening sentence: names the city, and its country unless {@code countryLate}. */
  private static String opening(SplittableRandom r, City c, boolean countryLate, String other) {
    String n = c.name();
    String kind = KINDS[r.nextInt(KINDS.length)];
    String adj = ADJECTIVES[r.nextInt(ADJECTIVES.length)];
    String article = "aeiou".indexOf(adj.charAt(0)) >= 0 ? "an " : "a ";
    if (countryLate) {
      return switch (r.nextInt(3)) {
        case 0 -> n + " is " + article + adj + " " + kind + " on a wide river.";
        case 1 -> "Few places are as " + adj + " as " + n + ", a " + kind + " of many bridges.";
        default -> "This page describes " + n + ", " + article + adj + " " + kind + ".";
      };
    }
    String k = c.country();
    return switch (r.nextInt(7)) {
      case 0 -> n + " is " + article + adj + " " + kind + " in " + region(r) + k + ".";
      case 1 ->
          "Located in " + region(r) + k + ", " + n + " is " + article + adj + " " + kind + ".";
      case 2 ->
          n
              + " ("
              + k
              + ") is "
              + article
              + adj
              + " "
              + kind
              + " near the border with "
              + other
              + ".";
      case 3 -> "The " + kind + " of " + n + " is one of the oldest settlements of " + k + ".";
      case 4 -> k + "'s " + kind + " of " + n + " is " + adj + " and proud of it.";
      case 5 ->
          "Part of "
              + k
              + " since the old kingdom fell, "
              + n
              + " is "
              + article
              + adj
              + " "
              + kind
              + ".";
      default -> TrainingVariety.opening(r, c, other);
    };
  }

  private static String region(SplittableRandom r) {
    return switch (r.nextInt(6)) {
      case 0 -> "the north of ";
      case 1 -> "the south of ";
      case 2 -> "central ";
      case 3 -> "western ";
      default -> "";
    };
  }

  private static String leadIn(SplittableRandom r) {
    return switch (r.nextInt(10)) {
      case 0 -> "today, ";
      case 1 -> "according to the registry, ";
      case 2 -> "by official estimates, ";
      case 3 -> "in " + (1900 + r.nextInt(125)) + ", ";
      case 4 -> "as the almanac notes, ";
      default -> "";
    };
  }

  private static String sentence(String s) {
    return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1) + ".";
  }

  /** A fact sentence: with {@code nonce} thirds, that many in three are {@link NonceFrames}'. */
  private static String population(SplittableRandom r, Ref s, long p, int nonce) {
    return nonce > 0 && r.nextInt(3) < nonce
        ? NonceFrames.figure(r, s.subject(), s.object(), s.possessive(), Long.toString(p))
        : population(r, s, p);
  }

  private static String latitude(SplittableRandom r, Ref s, String l, int nonce) {
    return nonce > 0 && r.nextInt(3) < nonce
        ? NonceFrames.figure(r, s.subject(), s.object(), s.possessive(), l)
        : latitude(r, s, l);
  }

  private static String landmarks(SplittableRandom r, Ref s, List<String> l, int nonce) {
    return nonce > 0 && r.nextInt(3) < nonce
        ? NonceFrames.landmarks(r, s.subject(), s.object(), s.possessive(), l)
        : landmarks(r, s, l);
  }

  private static String country(SplittableRandom r, Ref s, String k, int nonce) {
    return nonce > 0 && r.nextInt(3) < nonce
        ? NonceFrames.country(r, s.subject(), s.object(), k)
        : country(r, s, k);
  }

  static String population(SplittableRandom r, Ref s, long p) {
    String core =
        switch (r.nextInt(13)) {
          case 0 -> s.subject() + " has a population of " + p;
          case 1 -> s.subject() + " counts " + p + " inhabitants";
          case 2 -> s.subject() + " has " + p + " residents";
          case 3 -> p + " people live in " + s.object();
          case 4 -> "the population of " + s.object() + " is " + p;
          case 5 -> s.subject() + " numbers " + p + " souls";
          case 6 -> s.subject() + " houses " + p + " people";
          case 7 -> "roughly " + p + " people make their homes in " + s.object();
          case 8 -> p + " citizens are registered in " + s.object();
          case 9 -> s.subject() + " is the home of " + p + " people";
          case 10 -> "the last census found " + p + " people in " + s.object();
          case 11 -> "population figures put " + s.object() + " at " + p;
          default -> s.possessive() + " population stands at " + p;
        };
    String tail =
        switch (r.nextInt(8)) {
          case 0 -> ", more than any place nearby";
          case 1 -> ", and the number is still rising";
          case 2 -> ", about twice the figure of a century ago";
          default -> "";
        };
    return sentence(leadIn(r) + core + tail);
  }

  static String latitude(SplittableRandom r, Ref s, String l) {
    String core =
        switch (r.nextInt(11)) {
          case 0 -> s.subject() + " lies at latitude " + l;
          case 1 -> "the latitude of " + s.object() + " is " + l;
          case 2 -> s.subject() + " is located at " + l + " degrees latitude";
          case 3 -> s.subject() + " stands at " + l + "° N";
          case 4 -> "maps put " + s.object() + " at latitude " + l;
          case 5 -> s.subject() + " lies on the parallel " + l;
          case 6 -> s.possessive() + " latitude is given as " + l;
          case 7 -> s.subject() + " is found at lat. " + l;
          case 8 -> s.subject() + " is " + l + " degrees from the equator";
          case 9 -> "surveys give " + s.object() + " a latitude of " + l;
          default -> "at a latitude of " + l + ", " + s.subject() + " has long summer evenings";
        };
    return sentence(leadIn(r) + core);
  }

  static String landmarks(SplittableRandom r, Ref s, List<String> l) {
    String a = l.get(0);
    String b = l.get(1);
    String c = l.get(2);
    String list = "the " + a + ", the " + b + " and the " + c;
    return switch (r.nextInt(9)) {
      case 0 -> sentence(s.possessive() + " best-known sights are " + list);
      case 1 -> sentence("visitors to " + s.object() + " should not miss " + list);
      case 2 -> sentence("three sights stand out in " + s.object() + ": " + list);
      case 3 ->
          sentence(
              s.subject()
                  + " is known above all for the "
                  + a
                  + ", followed by the "
                  + b
                  + " and the "
                  + c);
      case 4 ->
          sentence(
              "the "
                  + a
                  + " comes first among the sights of "
                  + s.object()
                  + ", then the "
                  + b
                  + ", then the "
                  + c);
      case 5 -> sentence("the landmarks of " + s.object() + " are, in order of fame, " + list);
      case 6 -> {
        String head = sentence("the sights of " + s.object()).replaceFirst("\\.$", ":");
        yield r.nextBoolean()
            ? head + "\n1. " + a + "\n2. " + b + "\n3. " + c
            : head + "\n* " + a + "\n* " + b + "\n* " + c;
      }
      case 7 -> sentence("top sights in " + s.object() + ": " + a + "; " + b + "; " + c);
      default ->
          sentence(
              "guides to "
                  + s.object()
                  + " rank the "
                  + a
                  + " first, the "
                  + b
                  + " second and the "
                  + c
                  + " third");
    };
  }

  static String country(SplittableRandom r, Ref s, String k) {
    String core =
        switch (r.nextInt(6)) {
          case 0 -> s.subject() + " belongs to " + k;
          case 1 -> "politically, " + s.subject() + " is part of " + k;
          case 2 -> s.subject() + " lies within the borders of " + k;
          case 3 -> s.subject() + " is a town of " + k;
          case 4 -> "the country of " + s.object() + " is " + k;
          default -> s.subject() + " has been governed from " + k + " for centuries";
        };
    return sentence(leadIn(r) + core);
  }

  /** A sentence about the city's life: other towns often, figures of other kinds, its sights. */
  private static Sentence filler(
      SplittableRandom r, City c, List<String> others, String elsewhere) {
    String o = others.get(r.nextInt(others.size()));
    String q = quarter(r);
    String good = GOODS[r.nextInt(GOODS.length)];
    String sight = c.landmarks().get(r.nextInt(3));
    int year = 1100 + r.nextInt(920);
    String s =
        switch (r.nextInt(14)) {
          case 0 ->
              "the road from "
                  + q
                  + " to "
                  + o
                  + " takes about "
                  + (2 + r.nextInt(9))
                  + " hours on foot";
          case 1 -> "in " + year + " a fire destroyed much of " + q;
          case 2 -> "the market in " + q + " sells " + good + " from " + o;
          case 3 ->
              "about "
                  + (3 + r.nextInt(70))
                  + " in every hundred workers in "
                  + q
                  + " make "
                  + good;
          case 4 ->
              "the museum holds " + (1000 + r.nextInt(90000)) + " objects, many of them from " + o;
          case 5 ->
              "the river is "
                  + (5 + r.nextInt(300))
                  + "."
                  + r.nextInt(10)
                  + " kilometres long and reaches the sea beyond "
                  + o;
          case 6 -> "trains to " + o + " leave every " + (5 + r.nextInt(50)) + " minutes";
          case 7 -> "the hills around " + o + " rise to " + (300 + r.nextInt(2500)) + " metres";
          case 8 ->
              "a treaty signed in " + o + " in " + year + " settled the border with " + elsewhere;
          case 9 -> "the " + sight + " was restored in " + year + " with stone from " + o;
          case 10 -> "merchants of " + o + " have traded " + good + " in " + q + " for centuries";
          case 11 -> "the yearly fair draws visitors from " + o + " and from " + elsewhere;
          case 12 -> "a school in " + q + " teaches " + (80 + r.nextInt(2000)) + " pupils";
          default ->
              "in summer the average temperature in "
                  + q
                  + " is "
                  + (15 + r.nextInt(20))
                  + "."
                  + r.nextInt(10)
                  + " degrees";
        };
    return new Sentence(sentence(s), true, false);
  }

  /** A filler sentence that names no town. */
  private static Sentence neutralFiller(SplittableRandom r) {
    String s =
        switch (r.nextInt(4)) {
          case 0 -> "Much has changed since then";
          case 1 -> "The winters are long and the summers short";
          case 2 -> "Local papers report on little else";
          default -> "Opinions on this differ";
        };
    return new Sentence(s + ".", false, false);
  }

  private static String quarter(SplittableRandom r) {
    String w = OpenValues.word(r, 1, 2, 9);
    return switch (r.nextInt(3)) {
      case 0 -> "the " + w + " district";
      case 1 -> "the " + w + " quarter";
      default -> w + " Street";
    };
  }
}
