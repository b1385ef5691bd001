package dev.leap.train.model;

import dev.leap.model.ModelConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Function-preserving growth of a trained model (issue 25: more attention heads and layers for the
 * demo model without training it again from the start): the grown model computes exactly the old
 * model's logits, and training goes on from there.
 *
 * <ul>
 *   <li>new attention heads (and key-value heads, in the same ratio, so every old query head keeps
 *       its key-value head) get fresh query, key and value rows and <b>zero</b> columns of the
 *       output projection: they read the residual stream and write nothing until trained;
 *   <li>new MLP units get fresh gate and up rows and zero columns of the down projection;
 *   <li>new layers go on top of the old ones, with norm weights one, fresh query/key/value and
 *       gate/up rows and zero output and down projections: each is the identity on the residual
 *       stream.
 * </ul>
 *
 * The embedding, the final norm and every old value are copied unchanged. The gradient of each zero
 * projection is the product of a nonzero upstream gradient and a nonzero activation, so the new
 * parts start learning at the first step. {@code ModelGrowthTest} checks the logits through the
 * runtime's {@code LlamaModel}.
 */
public final class ModelGrowth {
  private ModelGrowth() {}

  /**
   * The fused values (the names of {@link TrainableLlama#parameters}) of {@code to} grown from
   * {@code values} of {@code from}; fresh values are normal with standard deviation {@code std}
   * from {@code seed}.
   *
   * @throws IllegalArgumentException if {@code to} is not a growth of {@code from}: another
   *     vocabulary, hidden size, head size or tying, fewer layers, heads, key-value heads or MLP
   *     units, or another ratio of query to key-value heads
   */
  public static Map<String, float[]> grow(
      Map<String, float[]> values, ModelConfig from, ModelConfig to, long seed, double std) {
    check(from, to);
    SplittableRandom rnd = new SplittableRandom(seed);
    int h = from.hiddenSize();
    int hd = from.headDim();
    Map<String, float[]> out = new LinkedHashMap<>();
    out.put("embed", values.get("embed").clone());
    for (int i = 0; i < to.numLayers(); i++) {
      String p = "layers." + i + ".";
      boolean old = i < from.numLayers();
      out.put(p + "input_norm", old ? values.get(p + "input_norm").clone() : ones(h));
      out.put(p + "post_norm", old ? values.get(p + "post_norm").clone() : ones(h));
      int oldQ = old ? from.numHeads() * hd : 0;
      int oldKv = old ? from.numKvHeads() * hd : 0;
      int q = to.numHeads() * hd;
      int kv = to.numKvHeads() * hd;
      float[] qkv = new float[(q + 2 * kv) * h];
      float[] oldQkv = old ? values.get(p + "qkv") : null;
      // Rows: q then k then v, each block the old rows first, then fresh ones.
      fillRows(qkv, 0, q, oldQkv, 0, oldQ, h, rnd, std);
      fillRows(qkv, q, kv, oldQkv, oldQ, oldKv, h, rnd, std);
      fillRows(qkv, q + kv, kv, oldQkv, oldQ + oldKv, oldKv, h, rnd, std);
      out.put(p + "qkv", qkv);
      out.put(p + "o", widenColumns(old ? values.get(p + "o") : null, h, oldQ, q));
      int oldFf = old ? from.intermediateSize() : 0;
      int ff = to.intermediateSize();
      float[] gateUp = new float[2 * ff * h];
      float[] oldGateUp = old ? values.get(p + "gate_up") : null;
      fillRows(gateUp, 0, ff, oldGateUp, 0, oldFf, h, rnd, std);
      fillRows(gateUp, ff, ff, oldGateUp, oldFf, oldFf, h, rnd, std);
      out.put(p + "gate_up", gateUp);
      out.put(p + "down", widenColumns(old ? values.get(p + "down") : null, h, oldFf, ff));
    }
    out.put("final_norm", values.get("final_norm").clone());
    return out;
  }

  private static void check(ModelConfig from, ModelConfig to) {
    boolean same =
        from.vocabSize() == to.vocabSize()
            && from.hiddenSize() == to.hiddenSize()
            && from.headDim() == to.headDim()
            && from.tieWordEmbeddings() == to.tieWordEmbeddings();
    boolean larger =
        to.numLayers() >= from.numLayers()
            && to.numHeads() >= from.numHeads()
            && to.numKvHeads() >= from.numKvHeads()
            && to.intermediateSize() >= from.intermediateSize();
    boolean groups =
        (long) from.numHeads() * to.numKvHeads() == (long) to.numHeads() * from.numKvHeads();
    if (!same || !larger || !groups) {
      throw new IllegalArgumentException(
          "cannot grow "
              + from
              + " into "
              + to
              + ": the vocabulary, hidden size, head size and tying must stay, the layers, heads, key-value"
              + " heads and MLP units may only grow, with the ratio of heads to key-value heads kept");
    }
  }

  /**
   * Rows {@code [at, at + rows)} of {@code dst} ({@code width} columns): the first {@code oldRows}
   * copied from rows {@code [oldAt, oldAt + oldRows)} of {@code src}, the rest fresh.
   */
  private static void fillRows(
      float[] dst,
      int at,
      int rows,
      float[] src,
      int oldAt,
      int oldRows,
      int width,
      SplittableRandom rnd,
      double std) {
    if (oldRows > 0) {
      System.arraycopy(src, oldAt * width, dst, at * width, oldRows * width);
    }
    for (int i = (at + oldRows) * width; i < (at + rows) * width; i++) {
      dst[i] = (float) (rnd.nextGaussian() * std);
    }
  }

  /**
   * A {@code rows x newCols} matrix whose first {@code oldCols} columns are {@code src}'s ({@code
   * rows x oldCols}, absent when {@code oldCols} is 0) and the rest zero.
   */
  private static float[] widenColumns(float[] src, int rows, int oldCols, int newCols) {
    float[] dst = new float[rows * newCols];
    for (int r = 0; r < rows && oldCols > 0; r++) {
      System.arraycopy(src, r * oldCols, dst, r * newCols, oldCols);
    }
    return dst;
  }

  private static float[] ones(int n) {
    float[] v = new float[n];
    java.util.Arrays.fill(v, 1f);
    return v;
  }
}
