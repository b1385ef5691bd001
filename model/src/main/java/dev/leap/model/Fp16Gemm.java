package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.ArrayList;
import java.util.List;

/**
 * Products with float16 weights on the CPU through FBGEMM's float16 GEMM (PyTorch's {@code
 * quantized::linear_prepack_fp16} / {@code linear_dynamic_fp16}, run from a TorchScript module Leap
 * writes, {@link TorchScript}): a weight is packed once at load, in float16 as the checkpoint
 * stores it (packing converts it to float32 and back: exact, nothing is rounded), and multiplied by
 * float32 activations (float16 ones widened: exact) with float32 accumulation; the result is
 * float32 (logits) or rounded once to the activations' dtype (a layer's product, as PyTorch's
 * float16 product rounds its float32 sums).
 *
 * <p>Why: on CPUs without native float16 arithmetic PyTorch's own float16 GEMV runs at about 20
 * GB/s on one core from memory and 12 GB/s from L2 (it is bound by its arithmetic, not by memory:
 * the demo model's 50,257 x 256 vocabulary projection, 25.7 MB, took 1.2 ms of a 2.2 ms decode
 * step), and its float16 GEMM costs about one GEMV per row; FBGEMM's kernel converts with F16C and
 * accumulates with FMA at 40 GB/s (0.6 ms for the same product, the speed of a plain float32 read
 * of memory) and stays 3-5x ahead at 2-64 rows, where the float32 copies were the fast way before
 * ({@code leap bench vocab} measures each kernel). Products of two float16 values are exact in
 * float32, so only the sums' order and rounding differ from a double-precision dot product; logits
 * are no longer rounded to float16.
 *
 * <p>Memory: a packed weight holds its float16 values once more (25.7 MB for the demo model's
 * projection); the float32 copy of the projection ({@link LlamaModel.CpuF32Weights}, twice that) is
 * then not kept.
 */
final class Fp16Gemm implements AutoCloseable {
  /** The TorchScript type of a packed weight. */
  static final String PACKED_TYPE = "__torch__.torch.classes.quantized.LinearPackedParamsBase";

  static final String SOURCE =
      """
      class Gemm(Module):
        __parameters__ = []
        __buffers__ = []
        training : bool
        def forward(self: __torch__.Gemm, x: Tensor) -> Tensor:
          return x
        def pack(self: __torch__.Gemm, w: Tensor) -> PACKED:
          return ops.quantized.linear_prepack_fp16(w.float().contiguous(), None)
        def logits(self: __torch__.Gemm, x: Tensor, packed: PACKED) -> Tensor:
          return ops.quantized.linear_dynamic_fp16(x.float(), packed)
        def linear(self: __torch__.Gemm, x: Tensor, packed: PACKED) -> Tensor:
          return ops.quantized.linear_dynamic_fp16(x.float(), packed).to(x.dtype)
      """
          .replace("PACKED", PACKED_TYPE);

  private final Object block;
  private final List<Object> owned = new ArrayList<>();

  private Fp16Gemm(Object block) {
    this.block = block;
  }

  /**
   * The kernel on {@code manager}'s device, or null where it cannot run: an engine other than DJL's
   * PyTorch, a PyTorch build without FBGEMM, or a CPU FBGEMM does not support (no AVX2/FMA): a
   * probe weight is packed to find out.
   */
  static Fp16Gemm load(NDManager manager) {
    Object block;
    try {
      block = TorchScript.load(manager, "Gemm", SOURCE);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
    Fp16Gemm g = new Fp16Gemm(block);
    try (NDManager probe = manager.newSubManager()) {
      g.pack(probe.ones(new ai.djl.ndarray.types.Shape(1, 1)));
      return g;
    } catch (RuntimeException | LinkageError e) {
      g.close();
      return null;
    }
  }

  /**
   * {@code w} ({@code [out, in]}, float16 values; a transposed view is fine) packed: an opaque
   * handle that lives until {@link #close}.
   */
  Object pack(NDArray w) {
    Object in = TorchScript.of(w);
    try {
      Object[] args = TorchScript.values(1);
      args[0] = in;
      Object packed = TorchScript.run(block, "pack", args);
      owned.add(packed);
      return packed;
    } finally {
      TorchScript.close(in);
    }
  }

  /** Packed weights as one TorchScript list (for {@link FusedDecode}); at least one. */
  Object list(List<Object> packed) {
    Object l = TorchScript.listOf(packed);
    owned.add(l);
    return l;
  }

  /**
   * {@code x} ({@code [rows, in]}, any float dtype) times the packed weight's transpose: {@code
   * [rows, out]} float32, attached to {@code x}'s manager; an ordinary tensor (it may be updated in
   * place: the sampler masks logits so).
   */
  NDArray logits(NDArray x, Object packed) {
    try (NDArray result = run("logits", x, packed)) {
      // DJL runs a TorchScript method in inference mode, whose tensors refuse in-place updates
      // outside it: a copy made outside is a plain tensor (50,257 floats at one row: about 10 µs)
      return result.duplicate();
    }
  }

  /**
   * {@code x} ({@code [rows, in]}) times the packed weight's transpose, rounded to {@code x}'s
   * dtype: {@code [rows, out]}, attached to {@code x}'s manager, for functional use (an
   * inference-mode tensor: not to be updated in place).
   */
  NDArray linear(NDArray x, Object packed) {
    return run("linear", x, packed);
  }

  private NDArray run(String method, NDArray x, Object packed) {
    Object[] in = TorchScript.values(2);
    in[0] = TorchScript.of(x);
    in[1] = packed;
    Object out = null;
    try {
      out = TorchScript.run(block, method, in);
      return TorchScript.tensor(out, x.getManager());
    } finally {
      TorchScript.close(in[0]);
      if (out != null) {
        TorchScript.close(out);
      }
    }
  }

  @Override
  public void close() {
    for (Object v : owned) {
      TorchScript.close(v);
    }
    owned.clear();
    TorchScript.closeBlock(block);
  }
}
