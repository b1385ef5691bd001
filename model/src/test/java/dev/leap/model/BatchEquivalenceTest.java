package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batching and the KV pool change no logits: sequences of different lengths decoded in one pass
 * equal each alone; a mixed batch (single-token decodes beside multi-token extensions, one long)
 * equals separate runs; a prompt whose prefix K/V is already in the pool equals computing it fresh;
 * slots need not be contiguous or ordered.
 */
class BatchEquivalenceTest {

  static float[] run(LlamaModel m, List<LlamaModel.SequenceInput> batch) {
    try (NDManager step = m.manager().newSubManager()) {
      return m.forward(step, batch).toFloatArray();
    }
  }

  /** Prefills {@code tokens} at {@code slots} alone and returns its last logits. */
  static float[] alone(LlamaModel m, int[] tokens, int[] slots) {
    return run(m, List.of(new LlamaModel.SequenceInput(tokens, 0, new int[0], slots, false)));
  }

  static void close(float[] a, int aFrom, float[] b, int bFrom, int n, String what) {
    for (int i = 0; i < n; i++) {
      assertEquals(b[bFrom + i], a[aFrom + i], 1e-4, what + " logit " + i);
    }
  }

  @Test
  void batchesAndCachedPrefixesGiveTheSameLogits() {
    for (String name : new String[] {"llama", "qwen2", "qwen3"}) {
      ModelConfig c =
          name.equals("llama")
              ? TestConfigs.llama()
              : name.equals("qwen2") ? TestConfigs.qwen2() : TestConfigs.qwen3();
      Path dir = TestConfigs.dir(name, c);
      SplittableRandom rnd = new SplittableRandom(9);
      try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 4096)) {
        int v = c.vocabSize();
        // Shuffled slot ids: a sequence's slots are neither contiguous nor ordered.
        int[] perm = rnd.ints(0, 4096).distinct().limit(4096).toArray();
        int next = 0;
        int[] lens = {1, 3, 7, 70, 2, 12};
        int[][] toks = new int[lens.length][];
        int[][] slots = new int[lens.length][];
        float[][] expected = new float[lens.length][];
        for (int i = 0; i < lens.length; i++) {
          toks[i] = rnd.ints(lens[i] + 1, 0, v).toArray();
          slots[i] = java.util.Arrays.copyOfRange(perm, next, next + lens[i] + 1);
          next += lens[i] + 1;
          // Reference: the whole sequence alone, fresh.
          expected[i] = alone(m, toks[i], slots[i]);
        }
        // Prefill all but the last token of every sequence in one batch (extends of mixed lengths).
        List<LlamaModel.SequenceInput> prefill = new ArrayList<>();
        for (int i = 0; i < lens.length; i++) {
          prefill.add(
              new LlamaModel.SequenceInput(
                  java.util.Arrays.copyOf(toks[i], lens[i]),
                  0,
                  new int[0],
                  java.util.Arrays.copyOf(slots[i], lens[i]),
                  false));
        }
        run(m, prefill);
        // Then decode the last token of every sequence in one batch, reusing the pool (cached
        // prefix).
        List<LlamaModel.SequenceInput> decode = new ArrayList<>();
        for (int i = 0; i < lens.length; i++) {
          decode.add(
              new LlamaModel.SequenceInput(
                  new int[] {toks[i][lens[i]]},
                  lens[i],
                  java.util.Arrays.copyOf(slots[i], lens[i]),
                  new int[] {slots[i][lens[i]]},
                  false));
        }
        float[] got = run(m, decode);
        for (int i = 0; i < lens.length; i++) {
          close(
              got,
              i * v,
              expected[i],
              0,
              v,
              name + " batched decode of sequence " + i + " (length " + (lens[i] + 1) + ")");
        }
        // A mixed batch: one decode, one 4-token extension over a cached prefix, one long fresh
        // prompt.
        int[] longPrompt = rnd.ints(80, 0, v).toArray();
        int[] longSlots = java.util.Arrays.copyOfRange(perm, next, next + 80);
        next += 80;
        float[] longAlone = alone(m, longPrompt, longSlots);
        int[] ext = rnd.ints(4, 0, v).toArray();
        int[] extSlots = java.util.Arrays.copyOfRange(perm, next, next + 4);
        next += 4;
        int[] seq3 = concat(java.util.Arrays.copyOf(toks[3], lens[3]), ext);
        float[] extAlone =
            alone(m, seq3, concat(java.util.Arrays.copyOf(slots[3], lens[3]), extSlots));
        float[] mixed =
            run(
                m,
                List.of(
                    new LlamaModel.SequenceInput(
                        new int[] {toks[1][lens[1]]},
                        lens[1],
                        java.util.Arrays.copyOf(slots[1], lens[1]),
                        new int[] {slots[1][lens[1]]},
                        false),
                    new LlamaModel.SequenceInput(
                        ext, lens[3], java.util.Arrays.copyOf(slots[3], lens[3]), extSlots, false),
                    new LlamaModel.SequenceInput(longPrompt, 0, new int[0], longSlots, false)));
        close(mixed, 0, expected[1], 0, v, name + " mixed batch: decode");
        close(mixed, v, extAlone, 0, v, name + " mixed batch: extension over a cached prefix");
        close(mixed, 2 * v, longAlone, 0, v, name + " mixed batch: long prompt");
      }
    }
  }

  static int[] concat(int[] a, int[] b) {
    int[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Test
  void badModelDirectoriesNameTheFileAndKey(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("m");
    HfModelWriter.write(
        dir, ModelConfig.llama(100, 16, 32, 1, 2, 1, 8), 1, 0.1, HfModelWriter.StorageType.BF16, 2);
    try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 16)) {
      assertEquals(100, m.config().vocabSize());
    }
    String cfg = Files.readString(dir.resolve("config.json"));
    Files.writeString(dir.resolve("config.json"), cfg.replace("\"llama\"", "\"gpt_neox\""));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LlamaModel.load(dir, Device.cpu(), 16));
    assertTrue(
        e.getMessage().contains("model_type") && e.getMessage().contains("gpt_neox"),
        e.getMessage());
    Files.writeString(
        dir.resolve("config.json"),
        cfg.replace("\"num_key_value_heads\" : 1", "\"num_key_value_heads\" : 3"));
    e = assertThrows(IllegalArgumentException.class, () -> LlamaModel.load(dir, Device.cpu(), 16));
    assertTrue(
        e.getMessage().contains("num_key_value_heads") && e.getMessage().contains("config.json"),
        e.getMessage());
    Files.writeString(
        dir.resolve("config.json"),
        cfg.replace(
            "\"rope_scaling\" : null",
            "\"rope_scaling\" : {\"rope_type\": \"yarn\", \"factor\": 4}"));
    e = assertThrows(IllegalArgumentException.class, () -> LlamaModel.load(dir, Device.cpu(), 16));
    assertTrue(e.getMessage().contains("yarn"), e.getMessage());
    Files.writeString(
        dir.resolve("config.json"), cfg.replace("\"hidden_size\" : 16", "\"hidden_size\" : 24"));
    e = assertThrows(IllegalArgumentException.class, () -> LlamaModel.load(dir, Device.cpu(), 16));
    assertTrue(
        e.getMessage().contains("model.embed_tokens.weight") && e.getMessage().contains("shape"),
        e.getMessage());
    Files.writeString(dir.resolve("config.json"), cfg);
    Files.delete(dir.resolve("model.safetensors"));
    e = assertThrows(IllegalArgumentException.class, () -> LlamaModel.load(dir, Device.cpu(), 16));
    assertTrue(e.getMessage().contains("model.safetensors"), e.getMessage());
    Files.delete(dir.resolve("config.json"));
    e = assertThrows(IllegalArgumentException.class, () -> LlamaModel.load(dir, Device.cpu(), 16));
    assertTrue(e.getMessage().contains("config.json"), e.getMessage());
  }
}
