package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Activation;

/**
 * A {@link LlamaModel}'s decoder layer and RMSNorm as DJL ops, on the flattened new tokens of a
 * pass: what a pass runs when {@link FusedDecode} does not (prefills, mixed batches, the fused step
 * off), and the naive twin that {@code FusedDecodeTest} holds the fused step to. The same dtypes as
 * transformers: RMSNorm statistics in float32, attention scores and softmax in float32 ({@link
 * PoolAttention}), the rest in the compute dtype.
 */
final class LayerOps {
  private final ModelConfig config;
  private final KvPool pool;
  private final PoolAttention attention;
  private final WideProducts products;
  private final Fp16Gemm gemm;

  /** {@code [head_dim, head_dim]}: x times it is rotate_half(x). */
  private final NDArray rotateHalf;

  private final NDArray epsScalar;
  private final NDArray rsqrtPower;
  private final DataType dtype;

  /** The computation is not in float32: norm statistics cast to float32 and back. */
  private final boolean narrow;

  LayerOps(
      ModelConfig config,
      KvPool pool,
      PoolAttention attention,
      WideProducts products,
      Fp16Gemm gemm,
      NDArray rotateHalf,
      NDArray epsScalar,
      NDArray rsqrtPower,
      Precision precision) {
    this.config = config;
    this.pool = pool;
    this.attention = attention;
    this.products = products;
    this.gemm = gemm;
    this.rotateHalf = rotateHalf;
    this.epsScalar = epsScalar;
    this.rsqrtPower = rsqrtPower;
    this.dtype = precision.dataType();
    this.narrow = precision != Precision.F32;
  }

  /**
   * One decoder layer on the flattened new tokens {@code x} [n, hidden]; its temporaries go to
   * {@code scope}. Ops per layer are kept few (each DJL op costs microseconds of host time, which
   * at batch 1 is most of a small model's step): q/k/v and gate/up come out of one product each and
   * are split as views, RoPE runs on q and k together with rotate-half as one product, and the pool
   * write reuses one index for every layer.
   */
  NDArray layer(
      NDManager scope,
      LayerWeights l,
      int li,
      NDArray x,
      NDArray cos,
      NDArray sin,
      NDIndex slotIndex,
      AttentionGroup.Plan groups,
      int n,
      boolean packedOn) {
    int hd = config.headDim();
    int heads = config.numHeads();
    int kv = config.numKvHeads();
    NDArray hN = rmsNorm(x, l.inputNorm);
    NDArray qkv = product(hN, l.qkvT, l.qkvTWide, l.qkvPacked, n, packedOn);
    if (l.qkvBias != null) {
      qkv = qkv.add(l.qkvBias);
    }
    NDList qkAndV = qkv.split(new long[] {(long) (heads + kv) * hd}, 1);
    NDArray qk = qkAndV.get(0).reshape(n, heads + kv, hd);
    NDArray v = qkAndV.get(1).reshape(n, kv, hd);
    if (l.qNorm != null) {
      NDList parts = qk.split(new long[] {heads}, 1);
      qk = rmsNorm(parts.get(0), l.qNorm).concat(rmsNorm(parts.get(1), l.kNorm), 1);
    }
    qk = qk.mul(cos).add(qk.matMul(rotateHalf).mul(sin)); // x cos + rotate_half(x) sin
    NDList qAndK = qk.split(new long[] {heads}, 1);
    NDArray q = qAndK.get(0);
    pool.write(li, slotIndex, qAndK.get(1), v);
    NDArray attn = attention.attend(scope, li, q, groups, n);
    NDArray o = product(attn, l.oT, l.oTWide, l.oPacked, n, packedOn);
    if (l.oBias != null) {
      o = o.add(l.oBias);
    }
    x = x.add(o);
    NDArray h2 = rmsNorm(x, l.postNorm);
    NDList gu = product(h2, l.gateUpT, l.gateUpTWide, l.gateUpPacked, n, packedOn).split(2, 1);
    NDArray gate = gu.get(0);
    NDArray act = gate.mul(Activation.sigmoid(gate)).mul(gu.get(1));
    return x.add(product(act, l.downT, l.downTWide, l.downPacked, n, packedOn));
  }

  /**
   * A layer's product {@code x.matMul(w)} of {@code rows} rows: on {@link Fp16Gemm} when packed and
   * {@code packedOn}, else {@link WideProducts#linear} (float16, or float32 from {@code wide} or a
   * cast); in the compute dtype.
   */
  private NDArray product(
      NDArray x, NDArray w, NDArray wide, Object packed, int rows, boolean packedOn) {
    if (packed != null && packedOn) {
      return gemm.linear(x, packed);
    }
    return products.linear(x, w, wide, rows, false);
  }

  /**
   * RMSNorm with its statistics in float32 (transformers' LlamaRMSNorm), the weight applied in the
   * compute dtype.
   */
  NDArray rmsNorm(NDArray x, NDArray weight) {
    NDArray xf = narrow ? x.toType(DataType.FLOAT32, false) : x;
    NDArray var = xf.square().mean(new int[] {-1}, true);
    NDArray normed = xf.mul(var.add(epsScalar).pow(rsqrtPower));
    return (narrow ? normed.toType(dtype, false) : normed).mul(weight);
  }
}
