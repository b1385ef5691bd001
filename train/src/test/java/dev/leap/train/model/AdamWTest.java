package dev.leap.train.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** AdamW drops a step whose gradient is not finite and recovers at the next one. */
class AdamWTest {

  private static void backward(NDArray w, float factor) {
    try (NDManager scope = w.getManager().newSubManager();
        GradientCollector gc = Engine.getInstance().newGradientCollector()) {
      NDArray f = scope.create(factor);
      gc.backward(w.mul(f).sum());
    }
  }

  @Test
  void nonFiniteGradientIsDroppedAndDoesNotStay() {
    try (NDManager manager = NDManager.newBaseManager()) {
      NDArray w =
          manager.create(new float[] {1f, 2f, 3f, 4f}, new ai.djl.ndarray.types.Shape(2, 2));
      w.setRequiresGradient(true);
      try (AdamW opt = new AdamW(Map.of("w", w), 0.9f, 0.95f, 1e-8f, 0f)) {
        backward(w, Float.NaN);
        double dropped = opt.step(1e-2f, 1f);
        assertTrue(Double.isNaN(dropped), "the NaN gradient is reported");
        assertArrayEquals(
            new float[] {1f, 2f, 3f, 4f}, w.toFloatArray(), "weights unchanged by a dropped step");
        assertEquals(0, opt.steps());
        for (float g : w.getGradient().toFloatArray()) {
          assertEquals(0f, g, "the accumulator is zero again, not NaN");
        }
        backward(w, 1f);
        double norm = opt.step(1e-2f, 10f);
        assertFalse(Double.isNaN(norm));
        assertEquals(2.0, norm, 1e-6, "the next step sees only its own gradient");
        assertNotEquals(1f, w.toFloatArray()[0]);
        assertEquals(1, opt.steps());
      }
    }
  }
}
