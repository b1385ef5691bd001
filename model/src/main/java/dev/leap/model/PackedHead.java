package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;

/**
 * The vocabulary projection of a float16 model on the CPU through FBGEMM's float16 GEMM (PyTorch's
 * {@code quantized::linear_prepack_fp16} / {@code linear_dynamic_fp16}, run from a TorchScript
 * module Leap writes, {@link TorchScript}): the projection's rows packed once at load, in float16
 * as the checkpoint stores them (packing converts them to float32 and back: exact, nothing is
 * rounded), multiplied by float32 activations (the float16 hidden states widened, exact) with
 * float32 accumulation, float32 logits out.
 *
 * <p>Why: on CPUs without native float16 arithmetic PyTorch's own float16 GEMV runs at about 20
 * GB/s on one core even from L2 (compute-bound; the demo model's 50,257 x 256 projection, 25.7 MB,
 * took 1.25 ms of a 2.0 ms decode step), and its float16 GEMM costs about one GEMV per row;
 * FBGEMM's kernel converts with F16C and accumulates with FMA in float32 at 50-60 GB/s (0.48 ms for
 * the same product) and stays ahead at 2-64 rows, where the float32 copies were the fast way before
 * ({@code VocabProductCommand} in {@code bench} measures each). The logits are also more exact:
 * PyTorch's float16 product rounds them to float16, this one does not (products of two float16
 * values are exact in float32; only the sum's order and rounding differ from a double-precision dot
 * product).
 *
 * <p>Memory: the packed copy holds the projection's float16 values once more (25.7 MB for the demo
 * model), in place of the float32 copy {@link LlamaModel.CpuF32Weights} would keep (twice that).
 */
final class PackedHead implements AutoCloseable {
  static final String SOURCE =
      """
      class Head(Module):
        __parameters__ = []
        __buffers__ = []
        training : bool
        def forward(self: __torch__.Head, x: Tensor) -> Tensor:
          return x
        def pack(self: __torch__.Head, w: Tensor) -> __torch__.torch.classes.quantized.LinearPackedParamsBase:
          return ops.quantized.linear_prepack_fp16(w.float(), None)
        def logits(self: __torch__.Head, x: Tensor, packed: __torch__.torch.classes.quantized.LinearPackedParamsBase) -> Tensor:
          return ops.quantized.linear_dynamic_fp16(x.float(), packed)
      """;

  private final Object block;
  private final Object packed;
  private final long rows;

  private PackedHead(Object block, Object packed, long rows) {
    this.block = block;
    this.packed = packed;
    this.rows = rows;
  }

  /**
   * {@code head} ({@code [vocab, hidden]}, float16, on the CPU) packed for FBGEMM's float16 GEMM,
   * or null where that cannot run: an engine other than DJL's PyTorch, a PyTorch build without
   * FBGEMM, or a CPU FBGEMM does not support (no AVX2/FMA).
   */
  static PackedHead pack(NDManager manager, NDArray head) {
    Object block;
    try {
      block = TorchScript.load(manager, "Head", SOURCE);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
    Object w = null;
    try {
      w = TorchScript.of(head);
      Object[] in = TorchScript.values(1);
      in[0] = w;
      return new PackedHead(block, TorchScript.run(block, "pack", in), head.getShape().get(0));
    } catch (RuntimeException | LinkageError e) {
      TorchScript.closeBlock(block);
      return null;
    } finally {
      if (w != null) {
        TorchScript.close(w);
      }
    }
  }

  /**
   * The logits {@code [rows, vocab]} (float32) of the hidden states {@code hidden} ({@code [rows,
   * hidden]}, any float dtype), attached to {@code hidden}'s manager; an ordinary tensor (it may be
   * updated in place).
   */
  NDArray logits(NDArray hidden) {
    Object[] in = TorchScript.values(2);
    in[0] = TorchScript.of(hidden);
    in[1] = packed;
    Object out = null;
    try {
      out = TorchScript.run(block, "logits", in);
      // DJL runs a TorchScript method in inference mode, whose tensors refuse in-place updates
      // outside it (the sampler masks logits in place): a copy made outside is a plain tensor
      // (50,257 floats at one row: about 10 µs)
      try (NDArray result = TorchScript.tensor(out, hidden.getManager())) {
        return result.duplicate();
      }
    } finally {
      TorchScript.close(in[0]);
      if (out != null) {
        TorchScript.close(out);
      }
    }
  }

  /** Rows of the packed projection (the vocabulary size). */
  long rows() {
    return rows;
  }

  @Override
  public void close() {
    TorchScript.close(packed);
    TorchScript.closeBlock(block);
  }
}
