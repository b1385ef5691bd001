package dev.leap.model;

/**
 * Rotary position embedding tables, as Hugging Face transformers computes them: inverse frequencies
 * {@code 1 / theta^(2i / headDim)} (adjusted for {@code llama3} scaling: long wavelengths divided
 * by the factor, a smooth blend in between), angles {@code position * invFreq} in float32, each
 * table row {@code [cos, cos]} / {@code [sin, sin]} over the two halves (the rotate-half layout).
 * For a checkpoint stored in bfloat16 the inverse frequencies are rounded to bfloat16 first, as
 * they are in transformers (a buffer of a bfloat16 model): without it a Qwen2 reference model's
 * logits drift by 0.1 at position 50.
 */
public final class Rope {
  private Rope() {}

  /** {@code {cos, sin}}, each {@code positions * headDim} floats. */
  public static float[][] table(ModelConfig c, int positions) {
    int hd = c.headDim();
    int half = hd / 2;
    float[] inv = new float[half];
    for (int i = 0; i < half; i++) {
      // As transformers does it, in float32: 1 / base^(2i / dim).
      float exponent = (float) (2 * i) / hd;
      float denom = (float) Math.pow((float) c.ropeTheta(), exponent);
      inv[i] = 1.0f / denom;
    }
    if (c.ropeType().equals("llama3")) {
      double factor = c.ropeFactor();
      double lowWavelen = c.ropeOriginalMaxPositions() / c.ropeLowFreqFactor();
      double highWavelen = c.ropeOriginalMaxPositions() / c.ropeHighFreqFactor();
      for (int i = 0; i < half; i++) {
        double f = inv[i];
        double wavelen = 2 * Math.PI / f;
        if (wavelen > lowWavelen) {
          f = f / factor;
        } else if (wavelen >= highWavelen) {
          double smooth =
              (c.ropeOriginalMaxPositions() / wavelen - c.ropeLowFreqFactor())
                  / (c.ropeHighFreqFactor() - c.ropeLowFreqFactor());
          f = (1 - smooth) * f / factor + smooth * f;
        }
        inv[i] = (float) f;
      }
    }
    if (c.torchDtype().equals("bfloat16")) {
      // transformers keeps inv_freq as a buffer, which a bfloat16 model holds in bfloat16.
      for (int i = 0; i < half; i++) {
        inv[i] = toBf16(inv[i]);
      }
    }
    float[] cos = new float[positions * hd];
    float[] sin = new float[positions * hd];
    for (int p = 0; p < positions; p++) {
      for (int i = 0; i < half; i++) {
        float angle = (float) p * inv[i];
        float cs = (float) Math.cos(angle);
        float sn = (float) Math.sin(angle);
        cos[p * hd + i] = cs;
        cos[p * hd + half + i] = cs;
        sin[p * hd + i] = sn;
        sin[p * hd + half + i] = sn;
      }
    }
    return new float[][] {cos, sin};
  }

  /** Rounds to the nearest bfloat16 (ties to even), returned as a float. */
  public static float toBf16(float f) {
    int bits = Float.floatToRawIntBits(f);
    int rounding = 0x7FFF + ((bits >>> 16) & 1);
    return Float.intBitsToFloat((bits + rounding) & 0xFFFF0000);
  }
}
