package dev.leap.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.leap.runtime.SamplingParams;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Sampling from the allowed tokens' logits alone ({@link ForwardStep#sampleAllowed}, what a step
 * does when every row allows few tokens) chooses the same ids as {@link Sampler#sample} over the
 * whole vocabulary with each row's mask: seeded random logits, random allowed sets (rows sharing
 * the union and rows allowing less of it), greedy and seeded sampling with top-k and top-p.
 */
class SparseSamplingTest {

  @Test
  void sparseAndFullSamplingChooseTheSameIds() {
    long seed = 2525L;
    SplittableRandom rnd = new SplittableRandom(seed);
    int vocab = 300;
    int sampledRows = 0;
    int maskedRows = 0;
    try (NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu())) {
      for (int trial = 0; trial < 200; trial++) {
        try (NDManager step = m.newSubManager()) {
          int b = 1 + rnd.nextInt(6);
          float[] raw = new float[b * vocab];
          for (int i = 0; i < raw.length; i++) {
            raw[i] = (float) (rnd.nextGaussian() * 3);
          }
          long[] base = randomSet(rnd, vocab, 1 + rnd.nextInt(40));
          long[][] allowed = new long[b][];
          long[] union = new long[(vocab + 63) / 64];
          for (int i = 0; i < b; i++) {
            allowed[i] = rnd.nextInt(3) == 0 ? base : randomSet(rnd, vocab, 1 + rnd.nextInt(40));
            for (int w = 0; w < union.length; w++) {
              union[w] |= allowed[i][w];
            }
          }
          int[] ids =
              java.util.stream.IntStream.range(0, vocab)
                  .filter(id -> (union[id >>> 6] & (1L << id)) != 0)
                  .toArray();
          SamplingParams[] params = new SamplingParams[b];
          long[] seeds = new long[b];
          Sampler.Row[] fullRows = new Sampler.Row[b];
          Sampler.Row[] sparseRows = new Sampler.Row[b];
          for (int i = 0; i < b; i++) {
            SamplingParams.Builder p = SamplingParams.builder().seed(rnd.nextLong());
            if (rnd.nextBoolean()) {
              p.temperature(0.3 + rnd.nextDouble() * 1.5);
              if (rnd.nextBoolean()) {
                p.topK(1 + rnd.nextInt(20));
              }
              if (rnd.nextBoolean()) {
                p.topP(0.2 + 0.8 * rnd.nextDouble());
              }
              sampledRows++;
            }
            params[i] = p.build();
            seeds[i] = rnd.nextLong();
            boolean[] disallowed = new boolean[vocab];
            for (int id = 0; id < vocab; id++) {
              disallowed[id] = (allowed[i][id >>> 6] & (1L << id)) == 0;
            }
            fullRows[i] =
                new Sampler.Row(step.create(disallowed), params[i], new SplittableRandom(seeds[i]));
            sparseRows[i] = new Sampler.Row(null, params[i], new SplittableRandom(seeds[i]));
            maskedRows += ForwardStep.sameSet(allowed[i], union) ? 0 : 1;
          }
          NDArray full = step.create(raw, new Shape(b, vocab));
          long[] longIds = java.util.Arrays.stream(ids).asLongStream().toArray();
          NDArray sparse = full.get(new NDIndex(":, {}", step.create(longIds))).duplicate();
          int[] expected = Sampler.sample(step, full, fullRows);
          int[] got = ForwardStep.sampleAllowed(step, sparse, ids, union, allowed, sparseRows);
          assertArrayEquals(expected, got, "seed " + seed + " trial " + trial);
        }
      }
    }
    assertTrue(
        sampledRows > 100 && maskedRows > 100,
        sampledRows + " sampled rows, " + maskedRows + " masked rows");
  }

  private static long[] randomSet(SplittableRandom rnd, int vocab, int k) {
    long[] w = new long[(vocab + 63) / 64];
    for (int j = 0; j < k; j++) {
      int id = rnd.nextInt(vocab);
      w[id >>> 6] |= 1L << id;
    }
    return w;
  }
}
