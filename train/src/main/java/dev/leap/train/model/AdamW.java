package dev.leap.train.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * AdamW (Loshchilov and Hutter: Adam with decoupled weight decay), with gradient clipping by the
 * global norm (a step whose gradient norm is not finite changes nothing), over a fixed ordered set
 * of parameters. Its state (first and second moments, step count) is plain arrays so that a
 * checkpoint can hold it and a resumed run continues exactly.
 *
 * <p>Invariant: after {@link #step}, every parameter's gradient is zero again (gradients accumulate
 * over the backward passes of one step, as in PyTorch). Weight decay applies to matrices only, not
 * to norm weights.
 */
public final class AdamW implements AutoCloseable {
  private final Map<String, NDArray> params;
  private final NDManager manager;
  private final Map<String, NDArray> mean = new LinkedHashMap<>();
  private final Map<String, NDArray> variance = new LinkedHashMap<>();
  private final float beta1;
  private final float beta2;
  private final float eps;
  private final float weightDecay;
  private int steps;

  public AdamW(
      Map<String, NDArray> params, float beta1, float beta2, float eps, float weightDecay) {
    this.params = params;
    NDArray first = params.values().iterator().next();
    this.manager = first.getManager().newSubManager();
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.eps = eps;
    this.weightDecay = weightDecay;
    for (Map.Entry<String, NDArray> e : params.entrySet()) {
      mean.put(e.getKey(), manager.zeros(e.getValue().getShape()));
      variance.put(e.getKey(), manager.zeros(e.getValue().getShape()));
    }
  }

  /** Steps taken so far. */
  public int steps() {
    return steps;
  }

  /**
   * Clips the accumulated gradients to global norm {@code maxNorm} (when above it), updates every
   * parameter with learning rate {@code lr}, zeroes the gradients, and returns the global norm
   * before clipping.
   */
  public double step(float lr, float maxNorm) {
    try (NDManager scope = manager.newSubManager()) {
      // Every array made here is attached to scope: results of an op belong to its first operand's
      // manager, so the gradients are moved here first and the moments only enter in-place ops.
      double sq = 0;
      Map<String, NDArray> grads = new LinkedHashMap<>();
      for (Map.Entry<String, NDArray> e : params.entrySet()) {
        NDArray g = e.getValue().getGradient();
        g.attach(scope);
        grads.put(e.getKey(), g);
        float part = g.square().sum().getFloat();
        if (!Float.isFinite(part) && System.getenv("LEAP_DEBUG_GRAD") != null) {
          System.err.println(
              "non-finite gradient in "
                  + e.getKey()
                  + " nan="
                  + g.isNaN().sum().getLong()
                  + " inf="
                  + g.isInfinite().sum().getLong()
                  + " of "
                  + g.size());
        }
        sq += part;
      }
      double norm = Math.sqrt(sq);
      if (!Double.isFinite(norm)) {
        // A non-finite gradient would poison the moments: drop this step's gradients, keep the
        // weights.
        for (NDArray g : grads.values()) {
          zero(g);
        }
        return norm;
      }
      float clip = norm > maxNorm ? (float) (maxNorm / norm) : 1f;
      steps++;
      float bc1 = 1f - (float) Math.pow(beta1, steps);
      float bc2 = 1f - (float) Math.pow(beta2, steps);
      for (Map.Entry<String, NDArray> e : params.entrySet()) {
        String name = e.getKey();
        NDArray w = e.getValue();
        NDArray g = grads.get(name);
        NDArray gs = g.mul(clip);
        NDArray m = mean.get(name);
        NDArray v = variance.get(name);
        m.muli(beta1).addi(gs.mul(1f - beta1));
        v.muli(beta2).addi(gs.square().mul(1f - beta2));
        NDArray mHat = gs.zerosLike().addi(m).divi(bc1);
        NDArray vHat = gs.zerosLike().addi(v).divi(bc2);
        NDArray update = mHat.divi(vHat.sqrt().addi(eps)).muli(lr);
        if (weightDecay > 0 && w.getShape().dimension() > 1) {
          w.muli(1f - lr * weightDecay);
        }
        w.subi(update);
        zero(g);
      }
      return norm;
    }
  }

  /**
   * Sets every element to zero in place. Not {@code g.subi(g)}: NaN minus NaN is NaN, so one
   * non-finite gradient would stay in the accumulator and poison every later step.
   */
  private static void zero(NDArray g) {
    g.set(new NDIndex("..."), 0f);
  }

  /** The moments by {@code "m:" + name} and {@code "v:" + name}, for a checkpoint. */
  public Map<String, float[]> state() {
    Map<String, float[]> out = new LinkedHashMap<>();
    for (String name : params.keySet()) {
      out.put("m:" + name, mean.get(name).toFloatArray());
      out.put("v:" + name, variance.get(name).toFloatArray());
    }
    return out;
  }

  /** Restores the moments and the step count of a checkpoint written from {@link #state}. */
  public void restore(Map<String, float[]> state, int steps) {
    for (String name : params.keySet()) {
      float[] m = state.get("m:" + name);
      float[] v = state.get("v:" + name);
      if (m == null || v == null) {
        throw new IllegalArgumentException("checkpoint has no optimizer state for " + name);
      }
      NDArray mNew = manager.create(m, params.get(name).getShape());
      NDArray vNew = manager.create(v, params.get(name).getShape());
      mean.put(name, mNew).close();
      variance.put(name, vNew).close();
    }
    this.steps = steps;
  }

  @Override
  public void close() {
    manager.close();
  }
}
