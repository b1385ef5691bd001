package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * Grouped-query attention of a forward pass's new tokens over their K/V in the {@link KvPool}, one
 * padded batch per {@link AttentionGroup} of the pass's plan.
 *
 * <p>Invariants: q comes in as {@code [n, heads, headDim]} (the flattened new tokens, batch order)
 * and the output goes out as {@code [n, heads * headDim]} in the same order, in the compute dtype;
 * the new tokens' K/V are already in the pool. Scores, mask and softmax are float32 (transformers'
 * eager attention); with narrow weights on the CPU q, K and V are cast to float32 as well.
 *
 * <p>Two ways to the same result: DJL ops (products, mask, softmax: the scores {@code [B, heads, T,
 * C]} written out), or, while {@link #setFused} is on, one call of PyTorch's fused attention per
 * group ({@link SdpaAttention}; the default on a GPU, where the scores of a 3,000-token prefill are
 * most of its time). {@code SdpaAttentionTest} holds the two equal.
 */
final class PoolAttention {
  private final ModelConfig config;
  private final KvPool pool;
  private final DataType dtype;

  /** The computation is not in float32. */
  private final boolean narrow;

  /** Narrow on the CPU: every group attends in float32 ({@link WideProducts#widens()}). */
  private final boolean wide;

  /** {@code 1 / sqrt(headDim)} as a 0-d float32 tensor. */
  private final NDArray scoreScale;

  /** The device's manager, on which {@link #fused} is loaded on first use. */
  private final NDManager manager;

  /** PyTorch's fused attention, loaded when first turned on; null before or where it cannot run. */
  private SdpaAttention fused;

  /** Whether groups attend through {@link #fused}. */
  private volatile boolean fusedOn;

  PoolAttention(
      ModelConfig config,
      KvPool pool,
      Precision precision,
      WideProducts products,
      NDArray scoreScale,
      NDManager manager) {
    this.config = config;
    this.manager = manager;
    this.pool = pool;
    this.dtype = precision.dataType();
    this.narrow = precision != Precision.F32;
    this.wide = products.widens();
    this.scoreScale = scoreScale;
  }

  /**
   * Turns PyTorch's fused attention on or off; returns whether it is on (false where it cannot run:
   * {@link SdpaAttention#load}). Not while a forward pass runs.
   */
  synchronized boolean setFused(boolean on) {
    if (on && fused == null) {
      fused = SdpaAttention.load(manager);
    }
    fusedOn = on && fused != null;
    return fusedOn;
  }

  /** Whether groups attend through PyTorch's fused attention. */
  boolean fused() {
    return fusedOn;
  }

  /** Releases the fused attention's module, if loaded. */
  synchronized void close() {
    if (fused != null) {
      fused.close();
      fused = null;
      fusedOn = false;
    }
  }

  /**
   * Attention for every group of the plan. A single dense group in batch order (every all-decode
   * batch, a lone prefill) reads q as it is; others gather their rows (padding reads a zero row). A
   * group whose mask is all zeros (equal context lengths, one token each) adds none. A one-token
   * group skips the transposes that order (sequence, new token) pairs. With narrow weights on the
   * CPU every group attends in float32 (q, K and V cast, the output cast back): PyTorch's float16
   * bmm has no fast CPU kernel here.
   */
  NDArray attend(NDManager step, int layer, NDArray q, AttentionGroup.Plan plan, int n) {
    int hd = config.headDim();
    int heads = config.numHeads();
    int kv = config.numKvHeads();
    int g = config.groups();
    NDArray qExt = null;
    List<NDArray> outs = new ArrayList<>(plan.groups().size());
    for (AttentionGroup grp : plan.groups()) {
      int bs = grp.sequences();
      int t = grp.maxNew();
      int c = grp.maxContext();
      NDArray qRows;
      if (plan.inOrder()) {
        qRows = q;
      } else {
        if (qExt == null) {
          qExt =
              q.reshape(n, heads * hd)
                  .concat(step.zeros(new Shape(1, heads * hd), q.getDataType()), 0);
        }
        qRows = qExt.get(grp.rowIndex());
      }
      if (fusedOn) {
        outs.add(attendFused(step, layer, grp, qRows));
        continue;
      }
      NDArray qg =
          t == 1
              ? qRows.reshape(bs, kv, g, hd)
              : qRows.reshape(bs, t, kv, g, hd).transpose(0, 2, 3, 1, 4).reshape(bs, kv, g * t, hd);
      NDArray kAll = context(step, pool.keys(layer), grp).transpose(0, 2, 3, 1);
      NDArray vAll = context(step, pool.values(layer), grp).transpose(0, 2, 1, 3);
      // float16 bmm is slow on the CPU (no native float16 arithmetic: q.k and p.v of one decode at
      // context 200 took 78-195 µs per layer in float16, 13 µs in float32)
      if (wide) {
        qg = qg.toType(DataType.FLOAT32, false);
        kAll = kAll.toType(DataType.FLOAT32, false);
        vAll = vAll.toType(DataType.FLOAT32, false);
      }
      NDArray scores;
      if (narrow && !wide) {
        // scale, mask and softmax in float32, as transformers does; the cast is this step's own:
        // scaled in place
        scores = qg.matMul(kAll).toType(DataType.FLOAT32, false).muli(scoreScale);
      } else {
        // float32 already: q scaled before the product ([rows, heads, headDim] instead of [heads,
        // rows, context])
        scores = qg.mul(scoreScale).matMul(kAll);
      }
      if (grp.mask() != null) {
        scores =
            scores.reshape(bs, kv, g, t, c).addi(grp.mask()); // in place: no second scores tensor
      }
      NDArray probs = scores.softmax(-1);
      if (narrow && !wide) {
        probs = probs.toType(dtype, false);
      }
      NDArray out = probs.reshape(bs, kv, g * t, c).matMul(vAll);
      out =
          t == 1
              ? out.reshape(bs, heads * hd)
              : out.reshape(bs, kv, g, t, hd).transpose(0, 3, 1, 2, 4).reshape(bs * t, heads * hd);
      if (wide) {
        out = out.toType(dtype, false);
      }
      outs.add(grp.isDense() ? out : out.get(grp.validIndex()));
    }
    NDArray all = outs.size() == 1 ? outs.get(0) : NDArrays.concat(new NDList(outs), 0);
    return plan.order() == null ? all : all.get(new NDIndex("{}", plan.order()));
  }

  /**
   * One group through {@link SdpaAttention}: q {@code [B, heads, T, hd]} and the group's K/V {@code
   * [B, kv, C, hd]} (float32 where {@link #wide}), the boolean mask; the output in the rows' order,
   * padding rows dropped.
   */
  private NDArray attendFused(NDManager step, int layer, AttentionGroup grp, NDArray qRows) {
    int hd = config.headDim();
    int heads = config.numHeads();
    int bs = grp.sequences();
    int t = grp.maxNew();
    NDArray q = qRows.reshape(bs, t, heads, hd).transpose(0, 2, 1, 3);
    NDArray k = context(step, pool.keys(layer), grp).transpose(0, 2, 1, 3);
    NDArray v = context(step, pool.values(layer), grp).transpose(0, 2, 1, 3);
    if (wide) {
      q = q.toType(DataType.FLOAT32, false);
      k = k.toType(DataType.FLOAT32, false);
      v = v.toType(DataType.FLOAT32, false);
    }
    NDArray out =
        fused.attend(q, k, v, grp.visible()).transpose(0, 2, 1, 3).reshape(bs * t, heads * hd);
    if (wide) {
      out = out.toType(dtype, false);
    }
    return grp.isDense() ? out : out.get(grp.validIndex());
  }

  /** The group's context rows of a layer's pool keys or values: {@code [B, C, kv, hd]}. */
  private NDArray context(NDManager step, NDArray poolTensor, AttentionGroup grp) {
    return LlamaModel.own(step, poolTensor.get(grp.contextIndex()))
        .reshape(grp.sequences(), grp.maxContext(), config.numKvHeads(), config.headDim());
  }
}
