package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;

/**
 * One decoder layer's weights: q/k/v and gate/up fused and transposed for {@code x.matMul(w)},
 * optional biases and q/k norms as the config says, and (CPU, narrow dtype) float32 copies of the
 * products' weights, null unless {@link #addF32Copies} was called; (CPU, float16) the products'
 * weights packed for {@link Fp16Gemm}, null unless {@link #pack} was called.
 */
final class LayerWeights {
  NDArray inputNorm;
  NDArray postNorm;
  NDArray qkvT;
  NDArray qkvBias;
  NDArray oT;
  NDArray oBias;
  NDArray qNorm;
  NDArray kNorm;
  NDArray gateUpT;
  NDArray downT;
  NDArray qkvTWide;
  NDArray oTWide;
  NDArray gateUpTWide;
  NDArray downTWide;

  /** {@link Fp16Gemm} handles of the four products' weights, or null. */
  Object qkvPacked;

  Object oPacked;
  Object gateUpPacked;
  Object downPacked;

  private LayerWeights() {}

  /** Layer {@code index} of the checkpoint {@code weights} reads. */
  static LayerWeights read(WeightReader weights, ModelConfig config, int index) {
    int h = config.hiddenSize();
    int hd = config.headDim();
    int qDim = config.numHeads() * hd;
    int kvDim = config.numKvHeads() * hd;
    String p = "model.layers." + index + ".";
    LayerWeights l = new LayerWeights();
    l.inputNorm = weights.tensor(p + "input_layernorm.weight", h);
    l.postNorm = weights.tensor(p + "post_attention_layernorm.weight", h);
    NDArray q = weights.tensor(p + "self_attn.q_proj.weight", qDim, h);
    NDArray k = weights.tensor(p + "self_attn.k_proj.weight", kvDim, h);
    NDArray v = weights.tensor(p + "self_attn.v_proj.weight", kvDim, h);
    l.qkvT = WeightReader.fuse(q, k, v);
    if (config.qkvBias()) {
      NDArray qb = weights.tensor(p + "self_attn.q_proj.bias", qDim);
      NDArray kb = weights.tensor(p + "self_attn.k_proj.bias", kvDim);
      NDArray vb = weights.tensor(p + "self_attn.v_proj.bias", kvDim);
      l.qkvBias = NDArrays.concat(new NDList(qb, kb, vb));
    }
    l.oT = weights.tensor(p + "self_attn.o_proj.weight", h, qDim).transpose();
    if (config.oBias() && weights.has(p + "self_attn.o_proj.bias")) {
      l.oBias = weights.tensor(p + "self_attn.o_proj.bias", h);
    }
    if (config.qkNorm()) {
      l.qNorm = weights.tensor(p + "self_attn.q_norm.weight", hd);
      l.kNorm = weights.tensor(p + "self_attn.k_norm.weight", hd);
    }
    NDArray gate = weights.tensor(p + "mlp.gate_proj.weight", config.intermediateSize(), h);
    NDArray up = weights.tensor(p + "mlp.up_proj.weight", config.intermediateSize(), h);
    l.gateUpT = WeightReader.fuse(gate, up);
    l.downT = weights.tensor(p + "mlp.down_proj.weight", h, config.intermediateSize()).transpose();
    return l;
  }

  /** Keeps float32 copies of the four products' weights beside the narrow ones. */
  void addF32Copies() {
    qkvTWide = qkvT.toType(DataType.FLOAT32, false);
    oTWide = oT.toType(DataType.FLOAT32, false);
    gateUpTWide = gateUpT.toType(DataType.FLOAT32, false);
    downTWide = downT.toType(DataType.FLOAT32, false);
  }

  /** Packs the four products' weights for {@code gemm} (owned by it). */
  void pack(Fp16Gemm gemm) {
    qkvPacked = gemm.pack(qkvT.transpose());
    oPacked = gemm.pack(oT.transpose());
    gateUpPacked = gemm.pack(gateUpT.transpose());
    downPacked = gemm.pack(downT.transpose());
  }

  /** Elements of the four products' weights (what float32 copies add, in float32). */
  long productElements() {
    return qkvT.size() + oT.size() + gateUpT.size() + downT.size();
  }
}
