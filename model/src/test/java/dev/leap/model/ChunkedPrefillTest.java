package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Chunked prefill changes no logits: a prompt fed in chunks, each chunk attending to the K/V the
 * earlier chunks left in the pool, gives the same logits at every position as the one-shot prefill
 * (its naive twin), for seeded random prompt lengths, chunk sizes and scattered slot ids.
 */
class ChunkedPrefillTest {

  @Test
  void chunksGiveTheLogitsOfTheOneShotPrefill() {
    for (String name : new String[] {"llama", "qwen2"}) {
      ModelConfig c = name.equals("llama") ? TestConfigs.llama() : TestConfigs.qwen2();
      SplittableRandom rnd = new SplittableRandom(1414);
      try (LlamaModel m = LlamaModel.load(TestConfigs.dir(name, c), Device.cpu(), 2048)) {
        int v = c.vocabSize();
        for (int trial = 0; trial < 8; trial++) {
          int len = 1 + rnd.nextInt(trial < 2 ? 12 : 300);
          int chunk = 1 + rnd.nextInt(trial % 2 == 0 ? 8 : 100);
          int[] tokens = rnd.ints(len, 0, v).toArray();
          int[] perm = rnd.ints(0, 2048).distinct().limit(2 * len).toArray();
          int[] oneShotSlots = Arrays.copyOf(perm, len);
          int[] chunkSlots = Arrays.copyOfRange(perm, len, 2 * len);
          float[] expected;
          try (NDManager step = m.manager().newSubManager()) {
            expected =
                m.forward(
                        step,
                        List.of(
                            new LlamaModel.SequenceInput(
                                tokens, 0, new int[0], oneShotSlots, true)))
                    .toFloatArray();
          }
          String what =
              name + " trial " + trial + " (seed 1414): " + len + " tokens in chunks of " + chunk;
          for (int from = 0; from < len; from += chunk) {
            int n = Math.min(chunk, len - from);
            float[] got;
            try (NDManager step = m.manager().newSubManager()) {
              got =
                  m.forward(
                          step,
                          List.of(
                              new LlamaModel.SequenceInput(
                                  Arrays.copyOfRange(tokens, from, from + n),
                                  from,
                                  Arrays.copyOf(chunkSlots, from),
                                  Arrays.copyOfRange(chunkSlots, from, from + n),
                                  true)))
                      .toFloatArray();
            }
            for (int t = 0; t < n; t++) {
              // Float tolerance relative to the row's scale: the chunks sum the same terms in other
              // groupings.
              float scale = 0;
              for (int i = 0; i < v; i++) {
                scale = Math.max(scale, Math.abs(expected[(from + t) * v + i]));
              }
              for (int i = 0; i < v; i += 7) {
                float e = expected[(from + t) * v + i];
                assertEquals(
                    e,
                    got[t * v + i],
                    3e-5 * scale,
                    what + ", position " + (from + t) + " (scale " + scale + ")");
              }
            }
          }
        }
      }
    }
  }
}
