package dev.leap.model;

import java.nio.FloatBuffer;
import java.nio.file.Path;

/**
 * The naive twin of {@link LlamaModel}: a plain-Java, double-precision Llama-family forward pass,
 * written straight from the architecture (no fusion, no batching, no KV pool, no DJL), sharing only
 * the weight reader. Slow and obvious on purpose.
 */
final class NaiveLlama {
  final ModelConfig c;
  final float[][] embed;
  final float[][] lmHead;
  final float[] finalNorm;
  final Layer[] layers;

  static final class Layer {
    float[] inNorm;
    float[] postNorm;
    float[][] q;
    float[][] k;
    float[][] v;
    float[][] o;
    float[] qb;
    float[] kb;
    float[] vb;
    float[] ob;
    float[] qNorm;
    float[] kNorm;
    float[][] gate;
    float[][] up;
    float[][] down;
  }

  NaiveLlama(Path dir) {
    c = ModelConfig.load(dir);
    try (SafeTensors st = SafeTensors.open(dir)) {
      embed = matrix(st, "model.embed_tokens.weight");
      lmHead = c.tieWordEmbeddings() ? embed : matrix(st, "lm_head.weight");
      finalNorm = vector(st, "model.norm.weight");
      layers = new Layer[c.numLayers()];
      for (int i = 0; i < layers.length; i++) {
        String p = "model.layers." + i + ".";
        Layer l = new Layer();
        l.inNorm = vector(st, p + "input_layernorm.weight");
        l.postNorm = vector(st, p + "post_attention_layernorm.weight");
        l.q = matrix(st, p + "self_attn.q_proj.weight");
        l.k = matrix(st, p + "self_attn.k_proj.weight");
        l.v = matrix(st, p + "self_attn.v_proj.weight");
        l.o = matrix(st, p + "self_attn.o_proj.weight");
        if (st.has(p + "self_attn.q_proj.bias")) {
          l.qb = vector(st, p + "self_attn.q_proj.bias");
          l.kb = vector(st, p + "self_attn.k_proj.bias");
          l.vb = vector(st, p + "self_attn.v_proj.bias");
        }
        if (st.has(p + "self_attn.o_proj.bias")) {
          l.ob = vector(st, p + "self_attn.o_proj.bias");
        }
        if (st.has(p + "self_attn.q_norm.weight")) {
          l.qNorm = vector(st, p + "self_attn.q_norm.weight");
          l.kNorm = vector(st, p + "self_attn.k_norm.weight");
        }
        l.gate = matrix(st, p + "mlp.gate_proj.weight");
        l.up = matrix(st, p + "mlp.up_proj.weight");
        l.down = matrix(st, p + "mlp.down_proj.weight");
        layers[i] = l;
      }
    }
  }

  static float[] vector(SafeTensors st, String name) {
    FloatBuffer b = st.floats(name);
    float[] v = new float[b.remaining()];
    b.get(v);
    return v;
  }

  static float[][] matrix(SafeTensors st, String name) {
    long[] shape = st.shape(name);
    float[] flat = vector(st, name);
    float[][] m = new float[(int) shape[0]][(int) shape[1]];
    for (int r = 0; r < m.length; r++) {
      System.arraycopy(flat, r * m[0].length, m[r], 0, m[0].length);
    }
    return m;
  }

  /** Logits after every position of {@code tokens}. */
  double[][] logits(int[] tokens) {
    int n = tokens.length;
    int hd = c.headDim();
    int heads = c.numHeads();
    int kvHeads = c.numKvHeads();
    double[][] x = new double[n][];
    for (int t = 0; t < n; t++) {
      x[t] = toDouble(embed[tokens[t]]);
    }
    double[] inv = invFreq();
    for (Layer l : layers) {
      double[][][] q = new double[n][][];
      double[][][] k = new double[n][][];
      double[][][] v = new double[n][][];
      for (int t = 0; t < n; t++) {
        double[] h = rmsNorm(x[t], l.inNorm);
        q[t] = heads(add(matVec(l.q, h), l.qb), heads, hd);
        k[t] = heads(add(matVec(l.k, h), l.kb), kvHeads, hd);
        v[t] = heads(add(matVec(l.v, h), l.vb), kvHeads, hd);
        for (int a = 0; a < heads; a++) {
          if (l.qNorm != null) {
            q[t][a] = rmsNorm(q[t][a], l.qNorm);
          }
          q[t][a] = rope(q[t][a], t, inv);
        }
        for (int a = 0; a < kvHeads; a++) {
          if (l.kNorm != null) {
            k[t][a] = rmsNorm(k[t][a], l.kNorm);
          }
          k[t][a] = rope(k[t][a], t, inv);
        }
      }
      for (int t = 0; t < n; t++) {
        double[] attn = new double[heads * hd];
        for (int a = 0; a < heads; a++) {
          int kv = a / (heads / kvHeads);
          double[] scores = new double[t + 1];
          double max = Double.NEGATIVE_INFINITY;
          for (int s = 0; s <= t; s++) {
            scores[s] = dot(q[t][a], k[s][kv]) / Math.sqrt(hd);
            max = Math.max(max, scores[s]);
          }
          double sum = 0;
          for (int s = 0; s <= t; s++) {
            scores[s] = Math.exp(scores[s] - max);
            sum += scores[s];
          }
          for (int s = 0; s <= t; s++) {
            for (int d = 0; d < hd; d++) {
              attn[a * hd + d] += scores[s] / sum * v[s][kv][d];
            }
          }
        }
        double[] o = add(matVec(l.o, attn), l.ob);
        for (int i = 0; i < o.length; i++) {
          x[t][i] += o[i];
        }
        double[] h2 = rmsNorm(x[t], l.postNorm);
        double[] g = matVec(l.gate, h2);
        double[] u = matVec(l.up, h2);
        double[] act = new double[g.length];
        for (int i = 0; i < g.length; i++) {
          act[i] = g[i] / (1 + Math.exp(-g[i])) * u[i];
        }
        double[] d = matVec(l.down, act);
        for (int i = 0; i < d.length; i++) {
          x[t][i] += d[i];
        }
      }
    }
    double[][] out = new double[n][];
    for (int t = 0; t < n; t++) {
      out[t] = matVec(lmHead, rmsNorm(x[t], finalNorm));
    }
    return out;
  }

  double[] invFreq() {
    int half = c.headDim() / 2;
    double[] inv = new double[half];
    for (int i = 0; i < half; i++) {
      inv[i] = 1.0 / Math.pow(c.ropeTheta(), 2.0 * i / c.headDim());
      if (c.ropeType().equals("llama3")) {
        double wavelen = 2 * Math.PI / inv[i];
        double low = c.ropeOriginalMaxPositions() / c.ropeLowFreqFactor();
        double high = c.ropeOriginalMaxPositions() / c.ropeHighFreqFactor();
        if (wavelen > low) {
          inv[i] /= c.ropeFactor();
        } else if (wavelen >= high) {
          double s =
              (c.ropeOriginalMaxPositions() / wavelen - c.ropeLowFreqFactor())
                  / (c.ropeHighFreqFactor() - c.ropeLowFreqFactor());
          inv[i] = (1 - s) * inv[i] / c.ropeFactor() + s * inv[i];
        }
      }
    }
    return inv;
  }

  static double[] rope(double[] x, int pos, double[] inv) {
    int half = x.length / 2;
    double[] out = new double[x.length];
    for (int i = 0; i < half; i++) {
      double cos = Math.cos(pos * inv[i]);
      double sin = Math.sin(pos * inv[i]);
      out[i] = x[i] * cos - x[i + half] * sin;
      out[i + half] = x[i + half] * cos + x[i] * sin;
    }
    return out;
  }

  double[] rmsNorm(double[] x, float[] w) {
    double ss = 0;
    for (double a : x) {
      ss += a * a;
    }
    double r = 1 / Math.sqrt(ss / x.length + c.rmsNormEps());
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = x[i] * r * w[i];
    }
    return out;
  }

  static double[][] heads(double[] flat, int heads, int hd) {
    double[][] h = new double[heads][hd];
    for (int a = 0; a < heads; a++) {
      System.arraycopy(flat, a * hd, h[a], 0, hd);
    }
    return h;
  }

  static double[] matVec(float[][] w, double[] x) {
    double[] y = new double[w.length];
    for (int r = 0; r < w.length; r++) {
      double s = 0;
      for (int i = 0; i < x.length; i++) {
        s += w[r][i] * x[i];
      }
      y[r] = s;
    }
    return y;
  }

  static double[] add(double[] a, float[] b) {
    if (b != null) {
      for (int i = 0; i < a.length; i++) {
        a[i] += b[i];
      }
    }
    return a;
  }

  static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  static double[] toDouble(float[] f) {
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      d[i] = f[i];
    }
    return d;
  }
}
