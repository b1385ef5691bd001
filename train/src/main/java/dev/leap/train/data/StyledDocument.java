package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@link CityDocument}'s open-value articles in the layouts other than {@link Layout#PLAIN}: the
 * same kind of article (an opening that names the city, sections of filler sentences, the city's
 * facts and four distractor towns placed among them, grown to a target length) in another shape: a
 * {@link HeadingStyle} of its own, an infobox at the top or the bottom, a list of facts, an
 * interview. Facts also name the city by pronoun or description ({@link ReferringFrames}); the
 * country comes late in a third of the articles (the opening then omits it), and a third of the
 * facts go to the later half of the sections.
 *
 * <p>Invariants: the first block (up to the first blank line) names the city; every field's value
 * occurs verbatim (the landmarks once together in the answer's order); a sentence that names the
 * city only by pronoun or description never directly follows a distractor in its paragraph.
 * Deterministic for (city, seed, target length, layout).
 */
final class StyledDocument {
  private StyledDocument() {}

  static String text(City city, long seed, int targetTokens, Tokenizer tokenizer, Layout layout) {
    return text(city, seed, targetTokens, tokenizer, layout, null);
  }

  /**
   * As {@link #text(City, long, int, Tokenizer, Layout)}, with training's variety drawn from {@code
   * v} when it is not null ({@link CityDocument#trainingText}).
   */
  static String text(
      City city,
      long seed,
      int targetTokens,
      Tokenizer tokenizer,
      Layout layout,
      SplittableRandom v) {
    SplittableRandom r = new SplittableRandom(seed ^ 0x57_11EDL);
    String n = city.name();
    List<String> others = new ArrayList<>();
    while (others.size() < 4) {
      String o = OpenValues.place(r);
      if (!o.equals(n) && !others.contains(o)) {
        others.add(o);
      }
    }
    TrainingVariety.nearMisses(others, n, v);
    boolean rare = TrainingVariety.rareName(v);
    String neighbour = OpenValues.country(r, city.country());
    List<City> fakes = new ArrayList<>();
    for (String o : others) {
      fakes.add(
          new City(
              o,
              neighbour,
              String.format(Locale.ROOT, "%d.%02d", 1 + r.nextInt(69), r.nextInt(100)),
              City.population(r),
              List.of(OpenValues.landmark(r), OpenValues.landmark(r), OpenValues.landmark(r))));
    }
    HeadingStyle style = HeadingStyle.pick(r);
    boolean countryLate = r.nextInt(3) == 0;

    // The facts as sentences (fields 0 country, 1 population, 2 latitude, 3 landmarks).
    List<String> facts = new ArrayList<>();
    for (int field = countryLate ? 0 : 1; field < 4; field++) {
      facts.add(factSentence(r, city, neighbour, field));
    }
    Set<String> referring = new HashSet<>();
    for (String f : facts) {
      if (ReferringFrames.refersWithoutName(f, city)) {
        referring.add(f);
      }
    }
    Set<String> distractors = new HashSet<>();
    List<String> loose = new ArrayList<>();
    for (City fake : fakes) {
      String d =
          r.nextBoolean() ? ReferringFrames.distractor(r, fake) : MoreFrames.distractor(r, fake);
      distractors.add(d);
      loose.add(d);
    }
    String infobox = null;
    List<String> units = new ArrayList<>();
    switch (layout) {
      case SECTIONS -> units.addAll(facts);
      case INFOBOX_TOP, INFOBOX_BOTTOM -> {
        infobox = FactBlocks.infobox(r, city, r.nextBoolean() ? fakes.get(0) : null);
        for (String f : facts) {
          if (r.nextBoolean()) {
            units.add(f);
          }
        }
      }
      case FACT_LIST -> {
        List<String> items = new ArrayList<>();
        for (String f : facts) {
          (items.isEmpty() || r.nextInt(3) > 0 ? items : units).add(f);
        }
        for (int i = 0, k = 1 + r.nextInt(2); i < k; i++) {
          items.add(loose.remove(0));
        }
        Collections.shuffle(items, new Random(r.nextLong()));
        keepReferencesClear(items, referring, distractors);
        units.add(FactBlocks.list(r, items));
      }
      case INTERVIEW -> {
        String[] speakers = FactBlocks.speakers(r);
        List<String> pairs = new ArrayList<>();
        for (int field = countryLate ? 0 : 1, i = 0; field < 4; field++, i++) {
          if (r.nextInt(4) > 0) {
            String[] qa = FactBlocks.ask(r, city, field);
            pairs.add(FactBlocks.pair(speakers, qa[0], qa[1]));
          } else {
            units.add(facts.get(i));
          }
        }
        for (String pair : pairs) {
          if (!pair.contains(n)) {
            referring.add(pair);
          }
        }
        for (int i = 0, k = 1 + r.nextInt(2); i < k; i++) {
          String[] qa = FactBlocks.askAbout(r, fakes.get(3 - i));
          String pair = FactBlocks.pair(speakers, qa[0], qa[1]);
          distractors.add(pair);
          pairs.add(r.nextInt(pairs.size() + 1), pair);
        }
        keepReferencesClear(pairs, referring, distractors);
        if (r.nextBoolean()) {
          // One interview: an introducing sentence, then the pairs together.
          units.add(
              "A local guide answered questions about "
                  + n
                  + " for this article.\n\n"
                  + String.join("\n\n", pairs));
        } else {
          units.addAll(pairs);
        }
      }
      case PLAIN -> throw new IllegalArgumentException("the plain layout is CityDocument's own");
    }
    units.addAll(loose);

    StringBuilder sb = new StringBuilder();
    if (layout == Layout.INFOBOX_TOP) {
      sb.append(infobox).append("\n\n");
    }
    String opening = countryLate ? openingWithoutCountry(r, n) : opening(r, city, neighbour);
    if (!countryLate && v != null && v.nextBoolean()) {
      opening = TrainingVariety.opening(v, city, neighbour);
    }
    sb.append(opening).append("\n\n");
    List<String> sections = new ArrayList<>(List.of(CityDocument.SECTIONS));
    Collections.shuffle(sections, new Random(r.nextLong()));
    int factSections = Math.max(2, Math.min(sections.size(), 2 + targetTokens / 400));
    List<List<String>> placed = new ArrayList<>();
    for (int i = 0; i < sections.size(); i++) {
      placed.add(new ArrayList<>());
    }
    for (String u : units) {
      // A third of the units go to the later half of the fact sections.
      int half = factSections / 2;
      int at =
          !distractors.contains(u) && r.nextInt(3) == 0
              ? half + r.nextInt(factSections - half)
              : r.nextInt(factSections);
      placed.get(at).add(u);
    }
    for (int section = 0; section < sections.size(); section++) {
      if (section >= factSections && tokenizer.encode(sb.toString()).length >= targetTokens) {
        break;
      }
      String title = sections.get(section);
      sb.append(style.format(title)).append('\n');
      List<String> sentences = new ArrayList<>();
      for (int s = 0, count = 3 + r.nextInt(4); s < count; s++) {
        sentences.add(
            TrainingVariety.filler(
                CityDocument.sentence(r, city, others, neighbour, title), city, rare));
      }
      for (String u : placed.get(section)) {
        sentences.add(r.nextInt(sentences.size() + 1), u);
      }
      keepReferencesClear(sentences, referring, distractors);
      sb.append(paragraphs(sentences)).append("\n\n");
      long goal = (long) targetTokens * (section + 1) / sections.size();
      while (tokenizer.encode(sb.toString()).length < goal) {
        List<String> more = new ArrayList<>();
        for (int s = 0, count = 4 + r.nextInt(3); s < count; s++) {
          more.add(
              TrainingVariety.filler(
                  CityDocument.sentence(r, city, others, neighbour, title), city, rare));
        }
        sb.append(String.join(" ", more)).append("\n\n");
      }
    }
    if (layout == Layout.INFOBOX_BOTTOM) {
      sb.append(infobox).append('\n');
    }
    return sb.toString();
  }

  private static String factSentence(SplittableRandom r, City c, String neighbour, int field) {
    boolean referring = r.nextBoolean();
    return switch (field) {
      case 0 -> ReferringFrames.country(r, c, neighbour);
      case 1 -> referring ? ReferringFrames.population(r, c) : MoreFrames.population(r, c);
      case 2 -> referring ? ReferringFrames.latitude(r, c) : MoreFrames.latitude(r, c);
      default -> referring ? ReferringFrames.landmarks(r, c) : MoreFrames.landmarks(r, c);
    };
  }

  private static String opening(SplittableRandom r, City c, String neighbour) {
    String n = c.name();
    return switch (r.nextInt(3)) {
      case 0 -> CityDocument.opening(r, c, neighbour);
      case 1 ->
          "Founded as a fortress on the road to "
              + neighbour
              + ", "
              + n
              + " is today a city of "
              + c.country()
              + " with a busy harbour.";
      default ->
          n + " (" + c.country() + ") is a walled city of narrow streets, canals and old quays.";
    };
  }

  private static String openingWithoutCountry(SplittableRandom r, String n) {
    return switch (r.nextInt(4)) {
      case 0 ->
          n
              + " is a port city on the estuary of a broad river, one of the oldest of its"
              + " province.";
      case 1 -> n + " grew from a market town on an old trade road into a regional capital.";
      case 2 ->
          "Founded as a fortress, " + n + " later became a centre of crafts, learning and trade.";
      default -> n + " is a walled city of narrow streets, canals and busy quays.";
    };
  }

  /**
   * Moves each unit of {@code referring} (a sentence, list item or question and answer that names
   * the city only by pronoun or description) before any units of {@code distractors} right above
   * it, so "It" or "the town" never reads as the distractor town just named.
   */
  static void keepReferencesClear(
      List<String> sentences, Set<String> referring, Set<String> distractors) {
    for (int i = 1; i < sentences.size(); i++) {
      String s = sentences.get(i);
      if (!referring.contains(s)) {
        continue;
      }
      int j = i;
      while (j > 0 && distractors.contains(sentences.get(j - 1))) {
        sentences.set(j, sentences.get(j - 1));
        j--;
      }
      sentences.set(j, s);
    }
  }

  /** Sentences run on as a paragraph; a block of lines stands alone between blank lines. */
  private static String paragraphs(List<String> units) {
    StringBuilder out = new StringBuilder();
    boolean inParagraph = false;
    for (String u : units) {
      boolean block = u.indexOf('\n') >= 0;
      if (out.length() > 0) {
        out.append(block || !inParagraph ? "\n\n" : " ");
      }
      out.append(u);
      inParagraph = !block;
    }
    return out.toString();
  }
}
