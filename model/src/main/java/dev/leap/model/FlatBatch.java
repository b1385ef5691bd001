package dev.leap.model;

import dev.leap.model.LlamaModel.SequenceInput;
import java.util.List;

/**
 * A batch of {@link SequenceInput}s flattened into its new tokens, the rows a forward pass's
 * per-token work runs on: sequence {@code i}'s new token {@code t} is row {@code offset[i] + t}.
 *
 * <p>Invariants: {@code ids}, {@code positions} and {@code slots} have one entry per row; every id
 * is inside the vocabulary and every position below {@code max_position_embeddings} (checked when
 * built, with the offending id or position in the error).
 */
final class FlatBatch {
  /** The new tokens' ids, in batch order. */
  final long[] ids;

  /** Each row's position: its sequence's start position plus its index among the new tokens. */
  final long[] positions;

  /** Each row's KV slot. */
  final long[] slots;

  /** Each sequence's first row. */
  final int[] offset;

  private FlatBatch(long[] ids, long[] positions, long[] slots, int[] offset) {
    this.ids = ids;
    this.positions = positions;
    this.slots = slots;
    this.offset = offset;
  }

  /**
   * Flattens {@code batch}, checking positions against the context and ids against the vocabulary.
   */
  static FlatBatch of(List<SequenceInput> batch, ModelConfig config) {
    int b = batch.size();
    int n = 0;
    for (SequenceInput s : batch) {
      n += s.tokens().length;
      if (s.startPosition() + s.tokens().length > config.maxPositionEmbeddings()) {
        throw new IllegalArgumentException(
            "position "
                + (s.startPosition() + s.tokens().length - 1)
                + " is beyond the model's context (max_position_embeddings "
                + config.maxPositionEmbeddings()
                + ")");
      }
    }
    long[] ids = new long[n];
    long[] positions = new long[n];
    long[] slots = new long[n];
    int[] offset = new int[b];
    int r = 0;
    for (int i = 0; i < b; i++) {
      SequenceInput s = batch.get(i);
      offset[i] = r;
      for (int t = 0; t < s.tokens().length; t++) {
        int id = s.tokens()[t];
        if (id < 0 || id >= config.vocabSize()) {
          throw new IllegalArgumentException(
              "token id " + id + " is outside the vocabulary 0.." + (config.vocabSize() - 1));
        }
        ids[r] = id;
        positions[r] = s.startPosition() + t;
        slots[r] = s.newSlots()[t];
        r++;
      }
    }
    return new FlatBatch(ids, positions, slots, offset);
  }

  /** The number of rows (new tokens). */
  int rows() {
    return ids.length;
  }

  /**
   * The rows whose logits {@code batch} (the batch this was built from) asks for, in batch order:
   * every new token's of an {@code allLogits} sequence, the last one's of the others; null when
   * that is every row.
   */
  long[] logitRows(List<SequenceInput> batch) {
    int rows = 0;
    for (SequenceInput s : batch) {
      rows += s.allLogits() ? s.tokens().length : 1;
    }
    if (rows == ids.length) {
      return null;
    }
    long[] pick = new long[rows];
    int p = 0;
    for (int i = 0; i < batch.size(); i++) {
      SequenceInput s = batch.get(i);
      if (s.allLogits()) {
        for (int t = 0; t < s.tokens().length; t++) {
          pick[p++] = offset[i] + t;
        }
      } else {
        pick[p++] = offset[i] + s.tokens().length - 1;
      }
    }
    return pick;
  }
}
