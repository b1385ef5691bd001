package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fused decode step ({@link FusedDecode}, one TorchScript call) against its naive twin, the
 * same step as DJL ops ({@link LlamaModel#setFusedDecode} off), on seeded random models (float32
 * and float16, with and without float32 weight copies, q/k/v and o biases, q/k norms) and random
 * decode batches (1-3 sequences, and 8-12, where products widen to float32; equal and unequal
 * contexts, so with and without a mask) and a lone sequence's extensions of 2-12 tokens: the same
 * hidden states and the same K/V in the pool, over several steps in which each path reads what the
 * other wrote.
 */
class FusedDecodeTest {

  @Test
  void fusedDecodeStepsEqualTheDjlOps(@TempDir Path tmp) {
    long seed = 2425L;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 8; round++) {
      int kv = 1 + rnd.nextInt(2);
      int heads = kv * (1 + rnd.nextInt(3));
      int hd = 4 * (2 + rnd.nextInt(3));
      int hidden = 8 * (2 + rnd.nextInt(4));
      boolean half = round % 2 == 1;
      boolean qkvBias = round % 4 == 2;
      boolean qkNorm = round % 4 == 3;
      ModelConfig c =
          new ModelConfig(
              qkNorm ? "qwen3" : "llama",
              97,
              hidden,
              24 + rnd.nextInt(20),
              1 + rnd.nextInt(3),
              heads,
              kv,
              hd,
              128,
              1e-5,
              1e4,
              "default",
              8,
              1,
              4,
              32,
              rnd.nextBoolean(),
              qkvBias,
              qkvBias && rnd.nextBoolean(),
              qkNorm,
              half ? "float16" : "float32");
      Path dir = TestConfigs.writeRandom(tmp.resolve("m" + round), c, seed + round);
      LlamaModel.CpuF32Weights copies =
          round % 3 == 0 ? LlamaModel.CpuF32Weights.OFF : LlamaModel.CpuF32Weights.ON;
      String what = "seed " + seed + " round " + round + " " + c + " " + copies;
      try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 1024, half ? "f16" : "f32", copies)) {
        assertTrue(m.hasFusedDecode(), what + ": the fused step did not load");
        int bs = rnd.nextBoolean() ? 1 + rnd.nextInt(3) : 8 + rnd.nextInt(5);
        boolean equalContexts = rnd.nextInt(3) == 0;
        int next = 0;
        List<List<Integer>> slots = new ArrayList<>();
        List<Integer> lastToken = new ArrayList<>();
        int prompt = 3 + rnd.nextInt(20);
        try (NDManager step = m.manager().newSubManager()) {
          List<LlamaModel.SequenceInput> prefill = new ArrayList<>();
          for (int s = 0; s < bs; s++) {
            int len = equalContexts ? prompt : 1 + rnd.nextInt(30);
            int[] tokens = rnd.ints(len, 0, 97).toArray();
            int[] newSlots = new int[len];
            List<Integer> mine = new ArrayList<>();
            for (int t = 0; t < len; t++) {
              newSlots[t] = next;
              mine.add(next++);
            }
            slots.add(mine);
            lastToken.add(tokens[len - 1]);
            prefill.add(new LlamaModel.SequenceInput(tokens, 0, new int[0], newSlots, false));
          }
          m.forward(step, prefill);
        }
        for (int stepNo = 0; stepNo < 6; stepNo++) {
          List<LlamaModel.SequenceInput> batch = new ArrayList<>();
          if (stepNo % 3 == 2) {
            // a lone sequence's extension (a jump's tokens, a prefill chunk), last or all logits
            List<Integer> mine = slots.get(rnd.nextInt(bs));
            int[] ctx = mine.stream().mapToInt(Integer::intValue).toArray();
            int t = 2 + rnd.nextInt(11);
            int[] newSlots = new int[t];
            for (int i = 0; i < t; i++) {
              newSlots[i] = next++;
              mine.add(newSlots[i]);
            }
            batch.add(
                new LlamaModel.SequenceInput(
                    rnd.ints(t, 0, 97).toArray(), ctx.length, ctx, newSlots, rnd.nextBoolean()));
          }
          boolean decode = batch.isEmpty();
          for (int s = 0; s < bs && decode; s++) {
            List<Integer> mine = slots.get(s);
            int[] ctx = mine.stream().mapToInt(Integer::intValue).toArray();
            int slot = next++;
            int token = rnd.nextInt(97);
            batch.add(
                new LlamaModel.SequenceInput(
                    new int[] {token}, ctx.length, ctx, new int[] {slot}, false));
            mine.add(slot);
          }
          boolean fusedFirst = stepNo % 2 == 0;
          float[][] got = new float[2][];
          float[][] keys = new float[2][];
          for (int pass = 0; pass < 2; pass++) {
            boolean fused = fusedFirst == (pass == 0);
            m.setFusedDecode(fused);
            try (NDManager step = m.manager().newSubManager()) {
              got[fused ? 0 : 1] =
                  m.hidden(step, batch).toType(DataType.FLOAT32, false).toFloatArray();
              keys[fused ? 0 : 1] = poolContents(m, step);
            }
          }
          String at = what + " batch " + bs + " step " + stepNo;
          assertEquals(got[1].length, got[0].length, at);
          double diff = maxDiff(got[0], got[1]);
          assertTrue(diff <= 1e-6, at + ": fused hidden states differ by " + diff);
          assertTrue(
              Arrays.equals(keys[0], keys[1]), at + ": fused K/V in the pool differ from DJL's");
        }
      }
    }
  }

  static float[] poolContents(LlamaModel m, NDManager step) {
    float[] all = new float[0];
    for (int l = 0; l < m.config().numLayers(); l++) {
      NDArray k = m.pool().keys(l).toType(DataType.FLOAT32, true);
      NDArray v = m.pool().values(l).toType(DataType.FLOAT32, true);
      k.attach(step);
      v.attach(step);
      float[] kf = k.toFloatArray();
      float[] vf = v.toFloatArray();
      float[] next = Arrays.copyOf(all, all.length + kf.length + vf.length);
      System.arraycopy(kf, 0, next, all.length, kf.length);
      System.arraycopy(vf, 0, next, all.length + kf.length, vf.length);
      all = next;
    }
    return all;
  }

  static double maxDiff(float[] a, float[] b) {
    double d = 0;
    for (int i = 0; i < a.length; i++) {
      d = Math.max(d, Math.abs(a[i] - b[i]));
    }
    return d;
  }
}
