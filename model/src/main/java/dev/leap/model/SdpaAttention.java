package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/**
 * PyTorch's fused attention, {@code scaled_dot_product_attention} (flash or memory-efficient
 * kernels on a GPU: the scores matrix is never written out), as a TorchScript module Leap writes
 * itself ({@link TorchScriptArchive}), for {@link PoolAttention}.
 *
 * <p>Invariants: q is {@code [B, heads, T, headDim]}, K and V are {@code [B, kvHeads, C, headDim]}
 * (grouped-query attention: query head h reads key head {@code h / (heads / kvHeads)}, the layout
 * {@link PoolAttention} keeps), the optional mask is boolean {@code [B, 1, T, C]} (true where a
 * query may attend); the scale is {@code 1 / sqrt(headDim)}, the function's default and the
 * model's; the output is {@code [B, heads, T, headDim]} in q's dtype, an inference-mode tensor
 * attached to q's manager (not to be updated in place).
 */
final class SdpaAttention implements AutoCloseable {
  static final String SOURCE =
      """
      class Sdpa(Module):
        __parameters__ = []
        __buffers__ = []
        training : bool
        def forward(self: __torch__.Sdpa, x: Tensor) -> Tensor:
          return x
        def attend(self: __torch__.Sdpa, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
          return torch.scaled_dot_product_attention(q, k, v, None, 0., False, scale=None, enable_gqa=True)
        def attend_masked(self: __torch__.Sdpa, q: Tensor, k: Tensor, v: Tensor, visible: Tensor) -> Tensor:
          return torch.scaled_dot_product_attention(q, k, v, visible, 0., False, scale=None, enable_gqa=True)
      """;

  private final Object block;

  private SdpaAttention(Object block) {
    this.block = block;
  }

  /**
   * The module on {@code manager}'s device, or null where it cannot run (an engine other than DJL's
   * PyTorch, a PyTorch before 2.5 without {@code enable_gqa}): a probe call finds out.
   */
  static SdpaAttention load(NDManager manager) {
    Object block;
    try {
      block = TorchScript.load(manager, "Sdpa", SOURCE);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
    SdpaAttention a = new SdpaAttention(block);
    try (NDManager probe = manager.newSubManager()) {
      NDArray q = probe.ones(new Shape(1, 2, 1, 4));
      NDArray kv = probe.ones(new Shape(1, 1, 1, 4));
      a.attend(q, kv, kv, null).close();
      return a;
    } catch (RuntimeException | LinkageError e) {
      a.close();
      return null;
    }
  }

  /** Attention of q over K and V; {@code visible} null: every query sees every position. */
  NDArray attend(NDArray q, NDArray k, NDArray v, NDArray visible) {
    Object[] in = TorchScript.values(visible == null ? 3 : 4);
    in[0] = TorchScript.of(q);
    in[1] = TorchScript.of(k);
    in[2] = TorchScript.of(v);
    if (visible != null) {
      in[3] = TorchScript.of(visible);
    }
    Object out = null;
    try {
      out = TorchScript.runUnoptimized(block, visible == null ? "attend" : "attend_masked", in);
      return TorchScript.tensor(out, q.getManager());
    } finally {
      for (Object o : in) {
        TorchScript.close(o);
      }
      if (out != null) {
        TorchScript.close(out);
      }
    }
  }

  @Override
  public void close() {
    TorchScript.closeBlock(block);
  }
}
