package dev.leap.train.data;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How an article's section headings look. {@link #EQUALS} is the one {@link CityDocument}'s plain
 * layout has always used; the others exist so that a model does not learn one heading form. None of
 * them is the held-out {@link GazetteerDocument}'s Markdown {@code ## } heading, nor starts a line
 * with {@code #} or {@code - }.
 */
enum HeadingStyle {
  /** {@code == History ==}. */
  EQUALS,
  /** {@code === History ===}. */
  TRIPLE_EQUALS,
  /** {@code HISTORY}. */
  CAPITALS,
  /** {@code History.} on its own line. */
  PERIOD,
  /** {@code **History**}. */
  BOLD,
  /** {@code History} underlined with {@code ~}. */
  UNDERLINED,
  /** {@code [History]}. */
  BRACKETS;

  /** The heading line(s) of {@code title}, without the trailing newline. */
  String format(String title) {
    return switch (this) {
      case EQUALS -> "== " + title + " ==";
      case TRIPLE_EQUALS -> "=== " + title + " ===";
      case CAPITALS -> title.toUpperCase(Locale.ROOT);
      case PERIOD -> title + ".";
      case BOLD -> "**" + title + "**";
      case UNDERLINED -> title + "\n" + "~".repeat(title.length());
      case BRACKETS -> "[" + title + "]";
    };
  }

  static HeadingStyle pick(SplittableRandom r) {
    HeadingStyle[] all = values();
    return all[r.nextInt(all.length)];
  }
}
