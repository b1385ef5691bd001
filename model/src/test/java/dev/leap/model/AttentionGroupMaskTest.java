package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link AttentionGroup}'s masks, built on the device from each row's visible length, against the
 * host-filled mask they replaced (the naive twin below), on seeded random batches of decodes, short
 * extensions and long prefills after cached prefixes: the same additive mask (0 / -inf) and the
 * boolean one true exactly where it is 0; none where no row needs one.
 */
class AttentionGroupMaskTest {

  @Test
  void deviceMasksEqualTheHostFilledOnes() {
    SplittableRandom rnd = new SplittableRandom(2613);
    int masked = 0;
    try (NDManager m = NDManager.newBaseManager()) {
      for (int round = 0; round < 200; round++) {
        List<LlamaModel.SequenceInput> batch = new ArrayList<>();
        int n = 0;
        int next = 0;
        int kind = rnd.nextInt(3);
        for (int i = 0, k = 1 + rnd.nextInt(5); i < k; i++) {
          int len =
              kind == 0
                  ? 1
                  : kind == 1 ? 1 + rnd.nextInt(LlamaModel.SHORT_EXTEND) : 1 + rnd.nextInt(40);
          int start = rnd.nextInt(3) == 0 ? 7 : rnd.nextInt(30);
          int[] ctx = new int[start];
          for (int p = 0; p < start; p++) {
            ctx[p] = next++;
          }
          int[] slots = new int[len];
          for (int p = 0; p < len; p++) {
            slots[p] = next++;
          }
          batch.add(new LlamaModel.SequenceInput(new int[len], start, ctx, slots, false));
          n += len;
        }
        int[] offset = new int[batch.size()];
        for (int i = 1; i < batch.size(); i++) {
          offset[i] = offset[i - 1] + batch.get(i - 1).tokens().length;
        }
        try (NDManager step = m.newSubManager()) {
          AttentionGroup.Plan plan = AttentionGroup.plan(batch, offset, n, step);
          for (AttentionGroup g : plan.groups()) {
            float[] want = naiveMask(batch, plan, g);
            String at = "round " + round + " group of " + g.sequences();
            if (want == null) {
              assertNull(g.mask(), at + ": a mask where none is needed");
              assertNull(g.visible(), at);
              continue;
            }
            masked++;
            float[] got = g.mask().toType(DataType.FLOAT32, false).toFloatArray();
            assertArrayEquals(want, got, at);
            boolean[] visible = g.visible().toBooleanArray();
            assertEquals(want.length, visible.length, at);
            for (int i = 0; i < want.length; i++) {
              assertEquals(want[i] == 0f, visible[i], at + " at " + i);
            }
          }
        }
      }
    }
    assertTrue(masked > 100, masked + " masked groups: the draw tests too little");
  }

  /**
   * The host-filled mask of a group (the code the device-built one replaced), or null where every
   * row sees every position: rows of its members in group order, padding rows seeing position 0.
   */
  private static float[] naiveMask(
      List<LlamaModel.SequenceInput> batch, AttentionGroup.Plan plan, AttentionGroup g) {
    int bs = g.sequences();
    int t = g.maxNew();
    int c = g.maxContext();
    long[] ctxSlots = g.contextSlots().toLongArray();
    float[] mask = new float[bs * t * c];
    Arrays.fill(mask, Float.NEGATIVE_INFINITY);
    boolean masked = false;
    for (int j = 0; j < bs; j++) {
      LlamaModel.SequenceInput s = member(batch, ctxSlots, j, c);
      int len = s.tokens().length;
      for (int r = 0; r < t; r++) {
        int base = (j * t + r) * c;
        if (r < len) {
          int visible = s.startPosition() + r + 1;
          for (int p = 0; p < visible; p++) {
            mask[base + p] = 0;
          }
          masked |= visible < c;
        } else {
          mask[base] = 0;
          masked = true;
        }
      }
    }
    return masked ? mask : null;
  }

  /** The batch's sequence whose first context or new slot the group's row j starts with. */
  private static LlamaModel.SequenceInput member(
      List<LlamaModel.SequenceInput> batch, long[] ctxSlots, int j, int c) {
    long first = ctxSlots[j * c];
    for (LlamaModel.SequenceInput s : batch) {
      int f = s.startPosition() > 0 ? s.contextSlots()[0] : s.newSlots()[0];
      if (f == first) {
        return s;
      }
    }
    throw new AssertionError("no sequence starts with slot " + first);
  }
}
