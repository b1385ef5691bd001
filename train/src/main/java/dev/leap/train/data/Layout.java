package dev.leap.train.data;

import java.util.SplittableRandom;

/**
 * The layouts of {@link CityDocument}'s open-value articles, one per article, chosen by its seed
 * ({@link #of}): the same facts and distractors in different shapes, so the model learns to find a
 * value rather than one page's shape. None of them is the held-out {@link GazetteerDocument}'s (a
 * title line, {@code ## } headings, dashed bullet lists).
 */
enum Layout {
  /** Paragraphs under {@code == Heading ==} sections: the original layout, kept as it was. */
  PLAIN,
  /** Paragraphs under headings of another {@link HeadingStyle}, facts stated in more ways. */
  SECTIONS,
  /** A block of {@code Key: value} lines before the article, some facts restated in the text. */
  INFOBOX_TOP,
  /** The same block at the end of the article, after its last section. */
  INFOBOX_BOTTOM,
  /** A numbered or starred list of facts (the city's and other towns') inside the article. */
  FACT_LIST,
  /** Question and answer pairs (an interview) among the paragraphs. */
  INTERVIEW;

  /**
   * The layout of the article of {@code seed}: each with equal odds, from a stream of its own so
   * that a {@link #PLAIN} article is the same text as before layouts existed.
   */
  static Layout of(long seed) {
    Layout[] all = values();
    return all[new SplittableRandom(seed ^ 0x1A_7007L).nextInt(all.length)];
  }
}
