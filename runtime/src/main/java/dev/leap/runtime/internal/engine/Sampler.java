package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.leap.runtime.SamplingParams;
import it.unimi.dsi.fastutil.ints.IntArrays;
import java.util.SplittableRandom;

/**
 * Chooses one token per row of a logits matrix, after the rows' constraint masks.
 *
 * <p>Masks are applied on the logits' device: the rows' disallowed-token masks are stacked and the
 * logits filled with -inf in place; a batch where no row has a mask applies none. Greedy rows take
 * one {@code argMax} on the device and only the chosen ids cross to the host. Rows that sample
 * compute {@code softmax(logits / T)} on the device and copy that one row to the host, where top-k,
 * top-p and the request's own seeded generator pick the token, so a request's samples do not depend
 * on what else is in the batch.
 */
final class Sampler {
  private Sampler() {}

  /** One row's sampling inputs. */
  record Row(NDArray mask, SamplingParams params, SplittableRandom rng) {}

  /**
   * @param logits {@code [rows, vocab]} float logits on the device, owned by this step (filled in
   *     place)
   * @param rows per row: a boolean mask {@code [vocab]} of disallowed tokens on the same device, or
   *     {@code null}, and params
   * @return the chosen token id per row
   */
  static int[] sample(NDManager manager, NDArray logits, Row[] rows) {
    int n = rows.length;
    NDArray masked = logits;
    boolean anyMask = false;
    for (Row r : rows) {
      anyMask |= r.mask() != null;
    }
    if (anyMask && n == 1) {
      // One row: the cached mask as a [1, vocab] view, no stacked copy.
      NDArray disallowed = rows[0].mask().expandDims(0);
      disallowed.attach(manager);
      logits.set(disallowed, Float.NEGATIVE_INFINITY);
    } else if (anyMask) {
      NDList masks = new NDList(n);
      NDArray none = null;
      for (Row r : rows) {
        if (r.mask() != null) {
          masks.add(r.mask());
        } else {
          if (none == null) {
            none = manager.zeros(new Shape(logits.getShape().get(1)), DataType.BOOLEAN);
          }
          masks.add(none);
        }
      }
      // Results of ops attach to their first operand's manager: keep the stacked mask in this
      // step's scope, not in the long-lived scope of the cached rows. The fill is in place (the
      // logits belong to this step): no second [rows, vocab] tensor.
      NDArray disallowed = NDArrays.stack(masks);
      disallowed.attach(manager);
      logits.set(disallowed, Float.NEGATIVE_INFINITY);
    }
    int[] out = new int[n];
    boolean anyGreedy = false;
    boolean anySampled = false;
    for (Row r : rows) {
      if (r.params().isGreedy()) {
        anyGreedy = true;
      } else {
        anySampled = true;
      }
    }
    if (anyGreedy) {
      long[] ids = masked.argMax(1).toLongArray();
      for (int i = 0; i < n; i++) {
        out[i] = (int) ids[i];
      }
    }
    if (anySampled) {
      for (int i = 0; i < n; i++) {
        SamplingParams p = rows[i].params();
        if (p.isGreedy()) {
          continue;
        }
        float[] probs = masked.get(i).div(p.temperature()).softmax(0).toFloatArray();
        out[i] = sampleFrom(probs, p.topK(), p.topP(), rows[i].rng());
      }
    }
    return out;
  }

  /**
   * Samples an index from {@code probs} (non-negative, summing to about 1) restricted to the {@code
   * topK} largest ({@code 0} = all) and to the smallest prefix of them, by decreasing probability,
   * whose mass reaches {@code topP}. Ties are broken by lower index first.
   */
  static int sampleFrom(float[] probs, int topK, double topP, SplittableRandom rng) {
    int count = 0;
    for (float p : probs) {
      if (p > 0) {
        count++;
      }
    }
    if (count == 0) {
      throw new IllegalStateException("no token has positive probability");
    }
    int[] idx = new int[count];
    int j = 0;
    for (int i = 0; i < probs.length; i++) {
      if (probs[i] > 0) {
        idx[j++] = i;
      }
    }
    int limit = count;
    if (topK > 0 || topP < 1) {
      IntArrays.quickSort(
          idx,
          (a, b) ->
              probs[a] != probs[b] ? Float.compare(probs[b], probs[a]) : Integer.compare(a, b));
      if (topK > 0) {
        limit = Math.min(limit, topK);
      }
      if (topP < 1) {
        double total = 0;
        for (int i = 0; i < limit; i++) {
          total += probs[idx[i]];
        }
        double acc = 0;
        for (int i = 0; i < limit; i++) {
          acc += probs[idx[i]];
          if (acc >= topP * total) {
            limit = i + 1;
            break;
          }
        }
      }
    }
    double total = 0;
    for (int i = 0; i < limit; i++) {
      total += probs[idx[i]];
    }
    double u = rng.nextDouble() * total;
    double acc = 0;
    for (int i = 0; i < limit; i++) {
      acc += probs[idx[i]];
      if (u < acc) {
        return idx[i];
      }
    }
    return idx[limit - 1];
  }
}
