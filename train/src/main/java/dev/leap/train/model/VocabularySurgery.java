package dev.leap.train.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The model half of a vocabulary extension (issue 25's warm start with digit groups as tokens): the
 * tied embedding table grows by one row per new token, inserted before EOS, whose row moves to the
 * new last id; every other row and every other parameter is copied unchanged. So a text of old
 * tokens (EOS remapped) gets exactly the old logits at the old tokens' columns ({@code
 * VocabularySurgeryTest} checks it through the runtime's {@code LlamaModel}).
 *
 * <p>A new token's row is the mean of the rows of the old tokens it is made of (its digits: a group
 * starts where its digits' meaning is) plus Gaussian noise of {@code noise} times the standard
 * deviation of the old table's entries (permutations of the same digits would otherwise start as
 * one row, and a copy keyed on a token needs distinct keys). The noise comes from {@code seed}.
 * Keep it small: with tied embeddings it is in every logit of every position (noise 0.5 raised the
 * loss of issue 25's small model on articles from 0.82 to 7.5 nats; the copy recipe uses 0.05).
 */
public final class VocabularySurgery {
  private VocabularySurgery() {}

  /**
   * The fused values of a model whose vocabulary of {@code oldVocab} tokens (EOS the last id) grows
   * by {@code parts.size()} tokens, the {@code i}-th new token getting id {@code oldVocab - 1 + i}
   * and a row from the old rows {@code parts.get(i)}; EOS ends at id {@code oldVocab - 1 +
   * parts.size()}.
   *
   * @throws IllegalArgumentException if the embedding is not {@code oldVocab} rows of {@code
   *     hidden} or a part is not an old id
   */
  public static Map<String, float[]> extend(
      Map<String, float[]> values,
      int hidden,
      int oldVocab,
      List<int[]> parts,
      long seed,
      double noise) {
    float[] embed = values.get("embed");
    if (embed == null || embed.length != (long) oldVocab * hidden) {
      throw new IllegalArgumentException(
          "the embedding is not "
              + oldVocab
              + " x "
              + hidden
              + " (it has "
              + (embed == null ? 0 : embed.length)
              + " values)");
    }
    int oldEos = oldVocab - 1;
    int added = parts.size();
    float[] out = new float[(oldVocab + added) * hidden];
    System.arraycopy(embed, 0, out, 0, oldEos * hidden);
    System.arraycopy(embed, oldEos * hidden, out, (oldEos + added) * hidden, hidden);
    double sum = 0;
    double sq = 0;
    for (float v : embed) {
      sum += v;
      sq += (double) v * v;
    }
    double mean = sum / embed.length;
    double std = Math.sqrt(Math.max(0, sq / embed.length - mean * mean));
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < added; i++) {
      int[] from = parts.get(i);
      if (from.length == 0) {
        throw new IllegalArgumentException("new token " + i + " is made of no old token");
      }
      int row = (oldEos + i) * hidden;
      for (int id : from) {
        if (id < 0 || id >= oldEos) {
          throw new IllegalArgumentException(
              "new token " + i + " is made of " + id + ", not an old token below EOS " + oldEos);
        }
        for (int j = 0; j < hidden; j++) {
          out[row + j] += embed[id * hidden + j] / from.length;
        }
      }
      for (int j = 0; j < hidden; j++) {
        out[row + j] += (float) (rnd.nextGaussian() * noise * std);
      }
    }
    Map<String, float[]> result = new LinkedHashMap<>(values);
    result.put("embed", out);
    return result;
  }
}
