package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * Sequences whose attention runs in one padded batch, with the host-built index arrays and mask
 * that batch needs (built once per forward pass, shared by every layer).
 *
 * <p>Grouping: single-token decodes together; extensions of up to {@link LlamaModel#SHORT_EXTEND}
 * tokens together; longer ones each alone, so that one long prefill does not pad a whole batch.
 *
 * @param sequences sequences in the group
 * @param maxNew most new tokens of a sequence in the group (T)
 * @param maxContext longest context in the group, new tokens included (C)
 * @param rows {@code [B*T]} row of each padded (sequence, new token) in the flattened batch, or the
 *     zero row {@code n} for padding
 * @param contextSlots {@code [B*C]} KV slot of each (sequence, position), padding reads slot 0
 * @param mask {@code [B, 1, 1, T, C]} additive mask: 0 where a new token may attend, -inf
 *     elsewhere; null when it would be all zeros (one new token per sequence, equal contexts), so
 *     none is added
 * @param visible {@code [B, 1, T, C]} the same mask as booleans (true where a new token may
 *     attend), as {@code scaled_dot_product_attention} takes it; null with {@code mask}
 * @param validRows indices of the non-padding rows of {@code [B*T]}, or null when there is no
 *     padding
 * @param rowIndex, contextIndex, validIndex the three index arrays as {@link NDIndex}es, built once
 *     per forward pass and used by every layer (validIndex null with validRows)
 */
record AttentionGroup(
    int sequences,
    int maxNew,
    int maxContext,
    NDArray rows,
    NDArray contextSlots,
    NDArray mask,
    NDArray visible,
    NDArray validRows,
    NDIndex rowIndex,
    NDIndex contextIndex,
    NDIndex validIndex) {

  /**
   * The groups, and the permutation from group order back to batch order (null if none is needed);
   * {@code inOrder}: a single dense group whose rows are the batch's rows in order, so attention
   * reads q as it is (every all-decode batch, a lone prefill).
   */
  record Plan(List<AttentionGroup> groups, NDArray order, boolean inOrder) {}

  boolean isDense() {
    return validRows == null;
  }

  static Plan plan(List<LlamaModel.SequenceInput> batch, int[] offset, int n, NDManager step) {
    List<List<Integer>> buckets = new ArrayList<>();
    List<Integer> decodes = new ArrayList<>();
    List<Integer> shorts = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      int len = batch.get(i).tokens().length;
      if (len == 1) {
        decodes.add(i);
      } else if (len <= LlamaModel.SHORT_EXTEND) {
        shorts.add(i);
      } else {
        buckets.add(List.of(i));
      }
    }
    if (!shorts.isEmpty()) {
      buckets.add(0, shorts);
    }
    if (!decodes.isEmpty()) {
      buckets.add(0, decodes);
    }
    List<AttentionGroup> groups = new ArrayList<>(buckets.size());
    long[] order = new long[n];
    int emitted = 0;
    boolean identity = true;
    for (List<Integer> members : buckets) {
      groups.add(build(batch, offset, n, members, step));
      for (int i : members) {
        int len = batch.get(i).tokens().length;
        for (int t = 0; t < len; t++) {
          // Row offset[i] + t of the batch is row `emitted` of the concatenated group outputs.
          order[offset[i] + t] = emitted;
          identity &= offset[i] + t == emitted;
          emitted++;
        }
      }
    }
    boolean inOrder = identity && groups.size() == 1 && groups.get(0).isDense();
    return new Plan(groups, identity ? null : step.create(order), inOrder);
  }

  private static AttentionGroup build(
      List<LlamaModel.SequenceInput> batch,
      int[] offset,
      int n,
      List<Integer> members,
      NDManager step) {
    int bs = members.size();
    int t = 0;
    int c = 0;
    for (int i : members) {
      LlamaModel.SequenceInput s = batch.get(i);
      t = Math.max(t, s.tokens().length);
      c = Math.max(c, s.startPosition() + s.tokens().length);
    }
    long[] rows = new long[bs * t];
    long[] ctx = new long[bs * c];
    // How many context positions each padded row sees (positions 0..limit-1): its start plus its
    // index plus one, or 1 for padding, which attends to position 0 only to keep softmax finite
    // (its output is dropped). The masks are built from these on the device.
    long[] limit = new long[bs * t];
    List<Long> valid = new ArrayList<>();
    boolean dense = true;
    boolean masked = false;
    for (int j = 0; j < bs; j++) {
      LlamaModel.SequenceInput s = batch.get(members.get(j));
      int len = s.tokens().length;
      int start = s.startPosition();
      for (int p = 0; p < start; p++) {
        ctx[j * c + p] = s.contextSlots()[p];
      }
      for (int p = 0; p < len; p++) {
        ctx[j * c + start + p] = s.newSlots()[p];
      }
      for (int r = 0; r < t; r++) {
        if (r < len) {
          rows[j * t + r] = offset[members.get(j)] + r;
          valid.add((long) (j * t + r));
          limit[j * t + r] = start + r + 1;
          masked |= start + r + 1 < c;
        } else {
          rows[j * t + r] = n;
          limit[j * t + r] = 1;
          dense = false;
          masked = true;
        }
      }
    }
    NDArray visible = null;
    NDArray mask = null;
    if (masked) {
      visible =
          step.arange(0, c, 1, DataType.INT64)
              .reshape(1, 1, 1, c)
              .lt(step.create(limit, new Shape(bs, 1, t, 1)));
      // log 1 = 0 where visible, log 0 = -inf elsewhere
      mask = visible.toType(DataType.FLOAT32, false).log().reshape(bs, 1, 1, t, c);
    }
    NDArray validRows = null;
    if (!dense) {
      long[] v = new long[valid.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = valid.get(i);
      }
      validRows = step.create(v);
    }
    NDArray rowArr = step.create(rows);
    NDArray ctxArr = step.create(ctx);
    return new AttentionGroup(
        bs,
        t,
        c,
        rowArr,
        ctxArr,
        mask,
        visible,
        validRows,
        new NDIndex("{}", rowArr),
        new NDIndex("{}", ctxArr),
        validRows == null ? null : new NDIndex("{}", validRows));
  }
}
