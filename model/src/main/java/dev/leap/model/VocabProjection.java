package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;

/**
 * The vocabulary projection of a {@link LlamaModel}: logits over the whole vocabulary, or over the
 * rows of a set of tokens (a constrained step's), always float32. The full projection runs on
 * {@link Fp16Gemm} when its weight is packed and the packed products are on (float32 sums), else
 * through {@link WideProducts} (float32 from the float32 copy or a cast from {@link
 * WideProducts#WIDE_ROWS_VOCAB} rows, else in the compute dtype and widened). A constrained
 * projection computes in float32 whenever the full one does ({@link #widens}), so both choose the
 * same tokens.
 */
final class VocabProjection {
  /** The projection's rows {@code [vocab, hidden]} (the embedding when tied). */
  private final NDArray head;

  /** {@link #head} transposed, {@code [hidden, vocab]} (a view). */
  private final NDArray headT;

  /** {@link #headT} in float32 when float32 copies are kept and there is no kernel, else null. */
  private final NDArray headTWide;

  private final WideProducts products;
  private final Fp16Gemm gemm;

  /** {@link #head} packed for {@link #gemm}, or null. */
  private final Object packed;

  private final boolean wideCopies;

  /**
   * {@code head} ({@code [vocab, hidden]}), with float32 copies when {@code wideCopies}, packed for
   * {@code gemm} when it is not null (then no float32 copy is kept).
   */
  VocabProjection(NDArray head, WideProducts products, Fp16Gemm gemm, boolean wideCopies) {
    this.head = head;
    this.headT = head.transpose();
    this.products = products;
    this.gemm = gemm;
    this.wideCopies = wideCopies;
    this.packed = gemm != null ? gemm.pack(head) : null;
    this.headTWide = wideCopies && gemm == null ? headT.toType(DataType.FLOAT32, false) : null;
  }

  /** Weight elements of the projection. */
  long elements() {
    return head.size();
  }

  /** The logits {@code [rows, vocab]} (float32) of {@code hidden}'s rows. */
  NDArray logits(NDArray hidden, boolean packedOn) {
    if (packedOn && packed != null) {
      return gemm.logits(hidden, packed);
    }
    long rows = hidden.getShape().get(0);
    NDArray logits =
        headTWide != null
            ? products.linear(hidden, headT, headTWide, (int) rows, true)
            : products.linear(
                hidden, headT, null, rows >= WideProducts.WIDE_ROWS_VOCAB ? (int) rows : 0, true);
    return float32(logits);
  }

  /** See {@link LlamaModel#headRows}. */
  NDArray rows(NDManager owner, long[] ids) {
    NDArray idx = owner.create(ids);
    return LlamaModel.own(owner, head.get(new NDIndex("{}", idx))).transpose();
  }

  /** See {@link LlamaModel#headRowsWide}. */
  NDArray rowsWide(NDManager owner, long[] ids, boolean packedOn) {
    if (!wideCopies && !(packedOn && packed != null)) {
      return null;
    }
    NDArray idx = owner.create(ids);
    if (headTWide != null) {
      return LlamaModel.own(owner, headTWide.transpose().get(new NDIndex("{}", idx))).transpose();
    }
    NDArray rows = LlamaModel.own(owner, head.get(new NDIndex("{}", idx)));
    return LlamaModel.own(owner, rows.toType(DataType.FLOAT32, false)).transpose();
  }

  /** See {@link LlamaModel#widensProduct}. */
  boolean widens(int rows, boolean packedOn) {
    return (packedOn && packed != null) || products.widens(rows);
  }

  /** See {@link LlamaModel#logits(NDArray, NDArray, NDArray)}. */
  NDArray logits(NDArray hidden, NDArray rows, NDArray rowsWide, boolean packedOn) {
    if (packedOn && packed != null) {
      NDManager m = hidden.getManager();
      NDArray w =
          rowsWide != null ? rowsWide : LlamaModel.own(m, rows.toType(DataType.FLOAT32, false));
      return LlamaModel.own(m, hidden.toType(DataType.FLOAT32, false)).matMul(w);
    }
    long n = hidden.getShape().get(0);
    return float32(products.linear(hidden, rows, rowsWide, (int) n, true));
  }

  private static NDArray float32(NDArray logits) {
    return logits.getDataType() == DataType.FLOAT32
        ? logits
        : logits.toType(DataType.FLOAT32, false);
  }
}
