package dev.leap.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SamplerTest {

  /**
   * Naive twin of {@link Sampler#sampleFrom}: sort everything, cut, then walk the cumulative mass.
   */
  static int naive(float[] probs, int topK, double topP, double u01) {
    List<Integer> idx = new ArrayList<>();
    for (int i = 0; i < probs.length; i++) {
      if (probs[i] > 0) {
        idx.add(i);
      }
    }
    idx.sort(Comparator.<Integer>comparingDouble(i -> -probs[i]).thenComparingInt(i -> i));
    List<Integer> kept = idx;
    if (topK > 0 && kept.size() > topK) {
      kept = kept.subList(0, topK);
    }
    if (topP < 1) {
      double total = 0;
      for (int i : kept) {
        total += probs[i];
      }
      double acc = 0;
      for (int j = 0; j < kept.size(); j++) {
        acc += probs[kept.get(j)];
        if (acc >= topP * total) {
          kept = kept.subList(0, j + 1);
          break;
        }
      }
    }
    if (topK == 0 && topP >= 1) {
      kept = new ArrayList<>();
      for (int i = 0; i < probs.length; i++) {
        if (probs[i] > 0) {
          kept.add(i);
        }
      }
    }
    double total = 0;
    for (int i : kept) {
      total += probs[i];
    }
    double u = u01 * total;
    double acc = 0;
    for (int i : kept) {
      acc += probs[i];
      if (u < acc) {
        return i;
      }
    }
    return kept.get(kept.size() - 1);
  }

  @Test
  void sampleFromEqualsNaiveTwin() {
    long seed = 20261122L;
    SplittableRandom gen = new SplittableRandom(seed);
    for (int round = 0; round < 5000; round++) {
      int v = 1 + gen.nextInt(60);
      float[] probs = new float[v];
      float sum = 0;
      for (int i = 0; i < v; i++) {
        // Many zeros (masked tokens) and some ties.
        probs[i] =
            gen.nextInt(3) == 0 ? 0 : (gen.nextInt(4) == 0 ? 0.25f : (float) gen.nextDouble());
        sum += probs[i];
      }
      if (sum == 0) {
        probs[gen.nextInt(v)] = 1;
        sum = 1;
      }
      for (int i = 0; i < v; i++) {
        probs[i] /= sum;
      }
      int topK = gen.nextInt(3) == 0 ? 0 : 1 + gen.nextInt(v);
      double topP = gen.nextInt(3) == 0 ? 1 : 0.05 + 0.95 * gen.nextDouble();
      long rngSeed = gen.nextLong();
      double u = new SplittableRandom(rngSeed).nextDouble();
      int fast = Sampler.sampleFrom(probs, topK, topP, new SplittableRandom(rngSeed));
      int slow = naive(probs, topK, topP, u);
      assertEquals(slow, fast, "seed " + seed + " round " + round);
      assertTrue(
          probs[fast] > 0, "sampled a zero-probability token, seed " + seed + " round " + round);
    }
  }

  @Test
  void topKOneIsGreedy() {
    float[] probs = {0.1f, 0.5f, 0.4f};
    for (int i = 0; i < 100; i++) {
      assertEquals(1, Sampler.sampleFrom(probs, 1, 1, new SplittableRandom(i)));
    }
  }

  @Test
  void allZeroIsAnError() {
    assertThrows(
        IllegalStateException.class,
        () -> Sampler.sampleFrom(new float[3], 0, 1, new SplittableRandom(1)));
  }
}
