package dev.leap.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;

/**
 * The KV cache: per layer, K and V tensors of shape {@code [capacity, kvHeads, headDim]} allocated
 * once on the model's device, in the model's compute dtype. Slot ids (from the radix cache's
 * allocator) index the first dimension: a token's K/V are written to its slot, and attention
 * gathers a sequence's slots.
 */
public final class KvPool {
  private final NDArray[] keys;
  private final NDArray[] values;
  private final int capacity;
  private final long bytesPerSlot;

  KvPool(
      NDManager manager, int layers, int capacity, int kvHeads, int headDim, Precision precision) {
    this.capacity = capacity;
    this.keys = new NDArray[layers];
    this.values = new NDArray[layers];
    Shape shape = new Shape(capacity, kvHeads, headDim);
    for (int l = 0; l < layers; l++) {
      keys[l] = manager.zeros(shape, precision.dataType());
      values[l] = manager.zeros(shape, precision.dataType());
    }
    this.bytesPerSlot = 2L * layers * kvHeads * headDim * precision.width();
  }

  /**
   * Writes {@code k} and {@code v} ({@code [n, kvHeads, headDim]}) at {@code at}, an index over
   * int64 slots {@code [n]}.
   */
  void write(int layer, NDIndex at, NDArray k, NDArray v) {
    keys[layer].set(at, k);
    values[layer].set(at, v);
  }

  NDArray keys(int layer) {
    return keys[layer];
  }

  NDArray values(int layer) {
    return values[layer];
  }

  public int capacity() {
    return capacity;
  }

  /** Device memory per slot, all layers, K and V. */
  public long bytesPerSlot() {
    return bytesPerSlot;
  }
}
