package dev.leap.train.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import dev.leap.model.HfModelWriter;
import dev.leap.model.LlamaModel;
import dev.leap.model.ModelConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm start's model surgery: a model whose vocabulary grew (new rows before EOS, EOS's row
 * moved last), loaded through the runtime's {@link LlamaModel}, gives a sequence of old tokens (EOS
 * remapped) the old model's logits at the old tokens' columns, to 1e-5; new rows are their parts'
 * mean (plus the noise asked for); a saved model reads back to its values.
 */
class VocabularySurgeryTest {

  static ModelConfig tiny(int vocab) {
    return ModelConfig.llama(vocab, 64, 160, 2, 4, 2, 16).withMaxPositions(512);
  }

  @Test
  void textOfOldTokensKeepsItsLogitsThroughTheRuntime(@TempDir Path dir) throws Exception {
    int oldVocab = 300;
    int added = 110;
    ModelConfig oldConfig = tiny(oldVocab);
    ModelConfig newConfig = tiny(oldVocab + added);
    SplittableRandom rnd = new SplittableRandom(7);
    List<int[]> parts = new ArrayList<>();
    for (int i = 0; i < added; i++) {
      parts.add(rnd.ints(2 + rnd.nextInt(2), 48, 58).toArray());
    }
    Map<String, float[]> oldValues;
    try (TrainableLlama m = TrainableLlama.initialize(oldConfig, Device.cpu(), 3, 0.05)) {
      m.save(dir.resolve("old"), HfModelWriter.StorageType.F32, oldVocab - 1);
      oldValues = m.values();
    }
    Map<String, float[]> read = TrainableLlama.readValues(dir.resolve("old"), oldConfig);
    assertEquals(oldValues.keySet(), read.keySet());
    for (String k : oldValues.keySet()) {
      assertArrayEquals(oldValues.get(k), read.get(k), k);
    }
    Map<String, float[]> grown = VocabularySurgery.extend(read, 64, oldVocab, parts, 9, 0.5);
    int newEos = oldVocab - 1 + added;
    try (TrainableLlama m = TrainableLlama.fromValues(newConfig, Device.cpu(), grown)) {
      m.save(dir.resolve("new"), HfModelWriter.StorageType.F32, newEos);
    }
    try (LlamaModel before = LlamaModel.load(dir.resolve("old"), Device.cpu(), 1024);
        LlamaModel after = LlamaModel.load(dir.resolve("new"), Device.cpu(), 1024)) {
      for (int trial = 0; trial < 4; trial++) {
        int t = 20 + rnd.nextInt(120);
        int[] seq = rnd.ints(t, 0, oldVocab).toArray();
        seq[rnd.nextInt(t)] = oldVocab - 1;
        int[] remapped = seq.clone();
        for (int i = 0; i < t; i++) {
          if (remapped[i] == oldVocab - 1) {
            remapped[i] = newEos;
          }
        }
        float[] a = logits(before, seq);
        float[] b = logits(after, remapped);
        int nv = oldVocab + added;
        for (int p = 0; p < t; p++) {
          for (int id = 0; id < oldVocab; id++) {
            int nid = id == oldVocab - 1 ? newEos : id;
            assertEquals(
                a[p * oldVocab + id], b[p * nv + nid], 1e-5, "position " + p + " token " + id);
          }
        }
      }
    }
  }

  /** The logits of a prefill of {@code seq} (every position's row). */
  static float[] logits(LlamaModel m, int[] seq) {
    int[] slots = new int[seq.length];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = i;
    }
    try (NDManager s = m.manager().newSubManager()) {
      return m.forward(s, List.of(new LlamaModel.SequenceInput(seq, 0, new int[0], slots, true)))
          .toFloatArray();
    }
  }

  /** The twin: every row written out by hand, the noise checked for its size. */
  @Test
  void rowsAreCopiedMovedAndMeansOfTheirParts() {
    int h = 8;
    int oldVocab = 20;
    SplittableRandom rnd = new SplittableRandom(4);
    float[] embed = new float[oldVocab * h];
    for (int i = 0; i < embed.length; i++) {
      embed[i] = (float) rnd.nextGaussian();
    }
    List<int[]> parts = List.of(new int[] {3, 4}, new int[] {5}, new int[] {1, 1, 2});
    Map<String, float[]> values = Map.of("embed", embed, "final_norm", new float[h]);
    float[] exact = VocabularySurgery.extend(values, h, oldVocab, parts, 1, 0).get("embed");
    float[] noisy = VocabularySurgery.extend(values, h, oldVocab, parts, 1, 0.5).get("embed");
    assertEquals((oldVocab + 3) * h, exact.length);
    for (int j = 0; j < h; j++) {
      for (int r = 0; r < oldVocab - 1; r++) {
        assertEquals(embed[r * h + j], exact[r * h + j]);
        assertEquals(embed[r * h + j], noisy[r * h + j]);
      }
      assertEquals(embed[(oldVocab - 1) * h + j], exact[(oldVocab + 2) * h + j], "EOS moved");
      assertEquals(embed[(oldVocab - 1) * h + j], noisy[(oldVocab + 2) * h + j], "EOS moved");
      int n = oldVocab - 1;
      assertEquals((embed[3 * h + j] + embed[4 * h + j]) / 2, exact[n * h + j], 1e-6);
      assertEquals(embed[5 * h + j], exact[(n + 1) * h + j], 1e-6);
      assertEquals((2 * embed[1 * h + j] + embed[2 * h + j]) / 3, exact[(n + 2) * h + j], 1e-6);
    }
    double sq = 0;
    for (int i = (oldVocab - 1) * h; i < (oldVocab + 2) * h; i++) {
      sq += Math.pow(noisy[i] - exact[i], 2);
    }
    double rms = Math.sqrt(sq / (3 * h));
    assertTrue(rms > 0.2 && rms < 0.9, "noise of half the table's std (about 1): " + rms);
    assertArrayEquals(
        noisy, VocabularySurgery.extend(values, h, oldVocab, parts, 1, 0.5).get("embed"));
    assertTrue(
        !Arrays.equals(
            noisy, VocabularySurgery.extend(values, h, oldVocab, parts, 2, 0.5).get("embed")));
    assertThrows(
        IllegalArgumentException.class,
        () -> VocabularySurgery.extend(values, h, oldVocab + 1, parts, 1, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> VocabularySurgery.extend(values, h, oldVocab, List.of(new int[] {19}), 1, 0));
  }
}
