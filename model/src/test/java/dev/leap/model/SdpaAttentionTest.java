package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyTorch's fused attention ({@link SdpaAttention}, {@link LlamaModel#setFusedAttention}) against
 * its naive twin, the attention as DJL ops, on seeded random models (float32 and float16, grouped
 * and plain heads) and random passes: prefills from position 0, extensions after a cached prefix (a
 * radix-cache hit, a jump), decode batches with equal and unequal contexts, and mixed batches of
 * all three (padded groups, masks, rows out of batch order). The fused decode step is off, so that
 * decode batches attend here too. Same hidden states up to rounding, and the same K/V in the pool.
 */
class SdpaAttentionTest {

  @Test
  void fusedAttentionEqualsTheDjlOps(@TempDir Path tmp) {
    long seed = 2611L;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 6; round++) {
      int kv = 1 + rnd.nextInt(2);
      int heads = kv * (1 + rnd.nextInt(3));
      int hd = 4 * (2 + rnd.nextInt(3));
      boolean half = round % 2 == 1;
      ModelConfig c =
          new ModelConfig(
              "llama",
              97,
              8 * (2 + rnd.nextInt(4)),
              24 + rnd.nextInt(20),
              1 + rnd.nextInt(3),
              heads,
              kv,
              hd,
              256,
              1e-5,
              1e4,
              "default",
              8,
              1,
              4,
              32,
              rnd.nextBoolean(),
              false,
              false,
              false,
              half ? "float16" : "float32");
      Path dir = TestConfigs.writeRandom(tmp.resolve("m" + round), c, seed + round);
      String what = "seed " + seed + " round " + round + " " + c;
      try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 2048, half ? "f16" : "f32")) {
        assertFalse(m.fusedAttention(), what + ": fused attention is off on the CPU by default");
        assertTrue(m.setFusedAttention(true), what + ": the fused attention did not load");
        m.setFusedDecode(false);
        int[] next = {0};
        List<List<Integer>> seqs = new ArrayList<>();
        for (int pass = 0; pass < 8; pass++) {
          List<LlamaModel.SequenceInput> batch = new ArrayList<>();
          int kind = pass == 0 ? 0 : rnd.nextInt(4);
          // 0: new prefills; 1: extensions of existing sequences; 2: decodes; 3: all three at once
          if (kind == 0 || kind == 3 || seqs.isEmpty()) {
            for (int i = 0, k = 1 + rnd.nextInt(3); i < k; i++) {
              batch.add(extend(rnd, seqs, null, 1 + rnd.nextInt(40), next));
            }
          }
          if ((kind == 1 || kind == 3) && !seqs.isEmpty()) {
            batch.add(
                extend(rnd, seqs, seqs.get(rnd.nextInt(seqs.size())), 2 + rnd.nextInt(12), next));
          }
          if (kind == 2 || kind == 3) {
            for (List<Integer> s : new ArrayList<>(seqs)) {
              if (batch.stream().noneMatch(b -> b.newSlots()[0] == s.get(s.size() - 1))
                  && rnd.nextInt(3) > 0) {
                batch.add(extend(rnd, seqs, s, 1, next));
              }
            }
          }
          if (batch.isEmpty()) {
            batch.add(extend(rnd, seqs, seqs.get(0), 1, next));
          }
          float[][] got = new float[2][];
          float[][] keys = new float[2][];
          boolean fusedFirst = pass % 2 == 0;
          for (int run = 0; run < 2; run++) {
            boolean fused = fusedFirst == (run == 0);
            m.setFusedAttention(fused);
            try (NDManager step = m.manager().newSubManager()) {
              got[fused ? 0 : 1] =
                  m.hidden(step, batch).toType(DataType.FLOAT32, false).toFloatArray();
              keys[fused ? 0 : 1] = FusedDecodeTest.poolContents(m, step);
            }
          }
          String at = what + " pass " + pass + " kind " + kind + " sequences " + batch.size();
          assertEquals(got[1].length, got[0].length, at);
          double tolerance = half ? 2e-2 : 1e-5;
          double diff = FusedDecodeTest.maxDiff(got[0], got[1]);
          assertTrue(diff <= tolerance, at + ": fused attention's hidden states differ by " + diff);
          assertTrue(
              FusedDecodeTest.maxDiff(keys[0], keys[1]) <= tolerance,
              at + ": the K/V in the pool differ");
        }
      }
    }
  }

  /**
   * A new sequence of {@code len} tokens ({@code of} null) or {@code len} more tokens of {@code
   * of}, with fresh slots; the sequence's slots grow by them.
   */
  private static LlamaModel.SequenceInput extend(
      SplittableRandom rnd, List<List<Integer>> seqs, List<Integer> of, int len, int[] next) {
    List<Integer> mine = of;
    if (mine == null) {
      mine = new ArrayList<>();
      seqs.add(mine);
    }
    int[] ctx = mine.stream().mapToInt(Integer::intValue).toArray();
    int[] newSlots = new int[len];
    for (int i = 0; i < len; i++) {
      newSlots[i] = next[0]++;
      mine.add(newSlots[i]);
    }
    return new LlamaModel.SequenceInput(
        rnd.ints(len, 0, 97).toArray(), ctx.length, ctx, newSlots, rnd.nextInt(4) == 0);
  }
}
