package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.ArrayList;
import java.util.List;

/**
 * A decode step (every sequence of the batch has one new token) as one TorchScript call instead of
 * about 57 DJL calls per layer: at batch 1 on the demo model most of a step was host time between
 * small ops (JNI, a Java {@code NDArray} and its manager bookkeeping per op, 4-7 µs each), which
 * TorchScript's interpreter runs without leaving native code.
 *
 * <p>The script is {@link LlamaModel}'s {@code layer}, {@code attention} and {@code rmsNorm} for a
 * single in-order group of one-token sequences, op for op and in the same dtypes (the widened
 * products of 8+ rows and the float32 attention of narrow weights on the CPU included), so its
 * hidden states equal the DJL path's: {@code FusedDecodeTest} compares them on seeded random models
 * and batches. Views replace DJL's splits ({@code narrow}), {@code index_select}/{@code
 * index_copy_} its index/index_put (the same values; new slots are distinct).
 *
 * <p>The script is loaded from an archive Leap writes itself ({@link TorchScript}). Weights, the
 * rotary tables and the KV pool are passed as lists built once; a step passes its ids, positions,
 * slots, context slots and mask.
 */
final class FusedDecode implements AutoCloseable {
  static final String SOURCE =
      """
      class Decode(Module):
        __parameters__ = []
        __buffers__ = []
        training : bool
        def forward(self: __torch__.Decode, x: Tensor) -> Tensor:
          return x
        def norm(self: __torch__.Decode, x: Tensor, w: Tensor, eps: Tensor, power: Tensor, narrow: bool) -> Tensor:
          xf = x
          if narrow:
            xf = x.float()
          var = torch.mean(torch.square(xf), [-1], True)
          normed = torch.mul(xf, torch.pow(torch.add(var, eps), power))
          if narrow:
            normed = normed.to(x.dtype)
          return torch.mul(normed, w)
        def linear(self: __torch__.Decode, x: Tensor, w: Tensor, wides: List[Tensor], j: int, widen: bool, packs: PACKS, packed: bool) -> Tensor:
      PACKED_BRANCH
          if widen and x.size(0) >= 8:
            if len(wides) > 0:
              w32 = wides[j]
            else:
              w32 = w.float()
            return torch.matmul(x.float(), w32).to(w.dtype)
          return torch.matmul(x, w)
        def step(self: __torch__.Decode, ids: Tensor, positions: Tensor, slots: Tensor, ctx: Tensor, mask: Tensor, hasMask: bool, bs: int, lastOnly: bool, packed: bool, embed: Tensor, ropeCos: Tensor, ropeSin: Tensor, rotate: Tensor, norms: List[Tensor], products: List[Tensor], wides: List[Tensor], qkvBias: List[Tensor], oBias: List[Tensor], qkNorms: List[Tensor], keys: List[Tensor], values: List[Tensor], eps: Tensor, power: Tensor, scale: Tensor, heads: int, kv: int, hd: int, narrow: bool, widen: bool, packs: PACKS) -> Tensor:
          n = ids.size(0)
          c = ctx.size(0) // bs
          t = n // bs
          g = heads // kv
          wide = widen
          x = torch.index_select(embed, 0, ids)
          cos = torch.index_select(ropeCos, 0, positions).reshape([n, 1, hd])
          sin = torch.index_select(ropeSin, 0, positions).reshape([n, 1, hd])
          for li in range(len(keys)):
            hn = self.norm(x, norms[2 * li], eps, power, narrow)
            qkv = self.linear(hn, products[4 * li], wides, 4 * li, widen, packs, packed)
            if len(qkvBias) > 0:
              qkv = torch.add(qkv, qkvBias[li])
            qk = qkv.narrow(1, 0, (heads + kv) * hd).reshape([n, heads + kv, hd])
            v = qkv.narrow(1, (heads + kv) * hd, kv * hd).reshape([n, kv, hd])
            if len(qkNorms) > 0:
              qn = self.norm(qk.narrow(1, 0, heads), qkNorms[2 * li], eps, power, narrow)
              kn = self.norm(qk.narrow(1, heads, kv), qkNorms[2 * li + 1], eps, power, narrow)
              qk = torch.cat([qn, kn], 1)
            qk = torch.add(torch.mul(qk, cos), torch.mul(torch.matmul(qk, rotate), sin))
            q = qk.narrow(1, 0, heads)
            keys[li].index_copy_(0, slots, qk.narrow(1, heads, kv))
            values[li].index_copy_(0, slots, v)
            if t == 1:
              qg = q.reshape([bs, kv, g, hd])
            else:
              qg = q.reshape([bs, t, kv, g, hd]).permute([0, 2, 3, 1, 4]).reshape([bs, kv, g * t, hd])
            ka = torch.index_select(keys[li], 0, ctx).reshape([bs, c, kv, hd]).permute([0, 2, 3, 1])
            va = torch.index_select(values[li], 0, ctx).reshape([bs, c, kv, hd]).permute([0, 2, 1, 3])
            if wide:
              qg = qg.float()
              ka = ka.float()
              va = va.float()
            if narrow and not wide:
              scores = torch.mul(torch.matmul(qg, ka).float(), scale)
            else:
              scores = torch.matmul(torch.mul(qg, scale), ka)
            if hasMask:
              scores = torch.add(scores.reshape([bs, kv, g, t, c]), mask)
            probs = torch.softmax(scores, -1)
            if narrow and not wide:
              probs = probs.to(x.dtype)
            out = torch.matmul(probs.reshape([bs, kv, g * t, c]), va)
            if t == 1:
              out = out.reshape([bs, heads * hd])
            else:
              out = out.reshape([bs, kv, g, t, hd]).permute([0, 3, 1, 2, 4]).reshape([bs * t, heads * hd])
            if wide:
              out = out.to(x.dtype)
            o = self.linear(out, products[4 * li + 1], wides, 4 * li + 1, widen, packs, packed)
            if len(oBias) > 0:
              o = torch.add(o, oBias[li])
            x = torch.add(x, o)
            h2 = self.norm(x, norms[2 * li + 1], eps, power, narrow)
            gu = self.linear(h2, products[4 * li + 2], wides, 4 * li + 2, widen, packs, packed)
            half = gu.size(1) // 2
            gate = gu.narrow(1, 0, half)
            act = torch.mul(torch.mul(gate, torch.sigmoid(gate)), gu.narrow(1, half, half))
            x = torch.add(x, self.linear(act, products[4 * li + 3], wides, 4 * li + 3, widen, packs, packed))
          if lastOnly:
            x = x.narrow(0, n - 1, 1)
          return self.norm(x, norms[2 * len(keys)], eps, power, narrow)
      """;

  /**
   * {@link #SOURCE} with the products through {@link Fp16Gemm}'s packs (when {@code packed}) or
   * not.
   */
  static String source(boolean packs) {
    return SOURCE
        .replace("PACKS", packs ? "List[" + Fp16Gemm.PACKED_TYPE + "]" : "List[Tensor]")
        .replace(
            "PACKED_BRANCH\n",
            packs
                ? "    if packed:\n"
                    + "      return ops.quantized.linear_dynamic_fp16(x.float(), packs[j]).to(w.dtype)\n"
                : "");
  }

  private final Object block;

  /** Values a call passes before {@link #fixed}. */
  private static final int PER_STEP = 9;

  /** The inputs that do not change between calls, after the call's own. */
  private final Object[] fixed;

  private final List<Object> owned = new ArrayList<>();

  /**
   * The fused step over a model's weights and pool (referenced, not copied), or null where it
   * cannot run: layers that differ in having q/k/v or o biases or q/k norms (the script takes each
   * for every layer or none), or an engine other than DJL's PyTorch (no TorchScript).
   *
   * @param wideCopies whether {@code layers} hold float32 copies of their products' weights
   * @param gemm the kernel {@code layers}' weights are packed for ({@link LayerWeights#pack}), or
   *     null
   */
  static FusedDecode forLayers(
      NDManager manager,
      NDArray embed,
      NDArray ropeCos,
      NDArray ropeSin,
      NDArray rotateHalf,
      LayerWeights[] layers,
      NDArray finalNorm,
      boolean wideCopies,
      KvPool pool,
      NDArray eps,
      NDArray power,
      NDArray scale,
      ModelConfig config,
      boolean narrow,
      boolean widen,
      Fp16Gemm gemm) {
    List<NDArray> norms = new ArrayList<>();
    List<NDArray> products = new ArrayList<>();
    List<NDArray> wides = new ArrayList<>();
    List<NDArray> qkvBias = new ArrayList<>();
    List<NDArray> oBias = new ArrayList<>();
    List<NDArray> qkNorms = new ArrayList<>();
    List<Object> packs = new ArrayList<>();
    for (LayerWeights l : layers) {
      if (gemm != null) {
        packs.addAll(List.of(l.qkvPacked, l.oPacked, l.gateUpPacked, l.downPacked));
      }
      norms.add(l.inputNorm);
      norms.add(l.postNorm);
      products.addAll(List.of(l.qkvT, l.oT, l.gateUpT, l.downT));
      if (wideCopies) {
        wides.addAll(List.of(l.qkvTWide, l.oTWide, l.gateUpTWide, l.downTWide));
      }
      if (l.qkvBias != null) {
        qkvBias.add(l.qkvBias);
      }
      if (l.oBias != null) {
        oBias.add(l.oBias);
      }
      if (l.qNorm != null) {
        qkNorms.add(l.qNorm);
        qkNorms.add(l.kNorm);
      }
    }
    norms.add(finalNorm);
    int n = layers.length;
    if ((!qkvBias.isEmpty() && qkvBias.size() != n)
        || (!oBias.isEmpty() && oBias.size() != n)
        || (!qkNorms.isEmpty() && qkNorms.size() != 2 * n)) {
      return null; // the script takes each of these for every layer or none
    }
    try {
      return new FusedDecode(
          manager,
          embed,
          ropeCos,
          ropeSin,
          rotateHalf,
          norms,
          products,
          wides,
          qkvBias,
          oBias,
          qkNorms,
          pool,
          eps,
          power,
          scale,
          config,
          narrow,
          widen,
          gemm != null && !packs.isEmpty() ? gemm.list(packs) : null);
    } catch (RuntimeException | LinkageError e) {
      // an engine other than DJL's PyTorch (no TorchScript): every step runs as DJL ops
      return null;
    }
  }

  /**
   * Loads the script onto {@code manager}'s device with the model's weights and pool (the arrays
   * are referenced, not copied).
   */
  FusedDecode(
      NDManager manager,
      NDArray embed,
      NDArray ropeCos,
      NDArray ropeSin,
      NDArray rotateHalf,
      List<NDArray> norms,
      List<NDArray> products,
      List<NDArray> wides,
      List<NDArray> qkvBias,
      List<NDArray> oBias,
      List<NDArray> qkNorms,
      KvPool pool,
      NDArray eps,
      NDArray power,
      NDArray scale,
      ModelConfig config,
      boolean narrow,
      boolean widen,
      Object packs) {
    this.block = TorchScript.load(manager, "Decode", source(packs != null));
    int layers = config.numLayers();
    List<NDArray> keys = new ArrayList<>(layers);
    List<NDArray> values = new ArrayList<>(layers);
    for (int l = 0; l < layers; l++) {
      keys.add(pool.keys(l));
      values.add(pool.values(l));
    }
    this.fixed =
        new Object[] {
          tensor(embed),
          tensor(ropeCos),
          tensor(ropeSin),
          tensor(rotateHalf),
          list(norms),
          list(products),
          list(wides),
          list(qkvBias),
          list(oBias),
          list(qkNorms),
          list(keys),
          list(values),
          tensor(eps),
          tensor(power),
          tensor(scale),
          keep(TorchScript.of((long) config.numHeads())),
          keep(TorchScript.of((long) config.numKvHeads())),
          keep(TorchScript.of((long) config.headDim())),
          keep(TorchScript.of(narrow)),
          keep(TorchScript.of(widen)),
          packs != null ? packs : list(products) // packs are owned by their Fp16Gemm
        };
  }

  /**
   * The final-normed hidden states of a pass whose {@code sequences} sequences form one in-order
   * attention group with {@code t = n / sequences} new tokens each (decode steps: t = 1; a lone
   * sequence's extension of at most {@link LlamaModel#SHORT_EXTEND} tokens: one sequence), attached
   * to {@code step}: {@code [n, hidden]}, or {@code [1, hidden]} (the last token's) when {@code
   * lastOnly}; writes the new tokens' K/V into the pool at {@code slots}.
   *
   * @param ids {@code [n]} int64 token ids
   * @param positions {@code [n]} int64 positions
   * @param slots {@code [n]} int64 new slots
   * @param contextSlots {@code [sequences * c]} int64 slots each sequence attends over (its new
   *     tokens included)
   * @param mask {@code [sequences, 1, 1, t, c]} additive float32 mask, or null for none
   * @param packed products through the packed weights (when there are some)
   */
  NDArray step(
      NDManager step,
      NDArray ids,
      NDArray positions,
      NDArray slots,
      NDArray contextSlots,
      NDArray mask,
      int sequences,
      boolean lastOnly,
      boolean packed) {
    Object[] in = TorchScript.values(PER_STEP + fixed.length);
    in[0] = TorchScript.of(ids);
    in[1] = TorchScript.of(positions);
    in[2] = TorchScript.of(slots);
    in[3] = TorchScript.of(contextSlots);
    in[4] = TorchScript.of(mask != null ? mask : ids);
    in[5] = TorchScript.of(mask != null);
    in[6] = TorchScript.of((long) sequences);
    in[7] = TorchScript.of(lastOnly);
    in[8] = TorchScript.of(packed);
    System.arraycopy(fixed, 0, in, PER_STEP, fixed.length);
    Object out = null;
    try {
      out = TorchScript.run(block, "step", in);
      return TorchScript.tensor(out, step);
    } finally {
      for (int i = 0; i < PER_STEP; i++) {
        TorchScript.close(in[i]);
      }
      if (out != null) {
        TorchScript.close(out);
      }
    }
  }

  private Object tensor(NDArray a) {
    return keep(TorchScript.of(a));
  }

  private Object list(List<NDArray> arrays) {
    return keep(TorchScript.list(arrays));
  }

  private Object keep(Object v) {
    owned.add(v);
    return v;
  }

  @Override
  public void close() {
    for (Object v : owned) {
      TorchScript.close(v);
    }
    TorchScript.closeBlock(block);
  }
}
