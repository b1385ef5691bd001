package dev.leap.radix;

/**
 * Hands out KV-cache slot ids {@code 0 .. capacity-1}. A slot is either free (here) or held by its
 * owner (the {@link RadixCache} or one running request). Not thread-safe: the scheduler thread owns
 * it.
 *
 * <p>Bad input (an id out of range, freeing a free slot, the same slot twice in one call) is an
 * {@link IllegalArgumentException} naming the slot; the whole call is checked before anything
 * changes, so a failed call frees nothing.
 */
public final class SlotAllocator {
  private final int capacity;
  private final int[] stack;
  private int top;
  private final long[] free;

  public SlotAllocator(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
    }
    this.capacity = capacity;
    this.stack = new int[capacity];
    this.free = new long[(capacity + 63) >>> 6];
    // Lowest ids first out, so small runs touch the start of the pool.
    for (int i = 0; i < capacity; i++) {
      stack[i] = capacity - 1 - i;
      free[i >>> 6] |= 1L << i;
    }
    this.top = capacity;
  }

  /** {@code n} slot ids, or {@code null} (and nothing taken) when fewer than {@code n} are free. */
  public int[] allocate(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("cannot allocate a negative number of slots: " + n);
    }
    if (n > top) {
      return null;
    }
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      int s = stack[--top];
      free[s >>> 6] &= ~(1L << s);
      out[i] = s;
    }
    return out;
  }

  /** Returns {@code slots} to the free pool. */
  public void free(int[] slots) {
    free(slots, 0, slots.length);
  }

  /** Returns {@code slots[from, to)} to the free pool. */
  public void free(int[] slots, int from, int to) {
    for (int i = from; i < to; i++) {
      int s = slots[i];
      if (s < 0 || s >= capacity) {
        throw new IllegalArgumentException(
            "slot id " + s + " is out of range 0.." + (capacity - 1));
      }
      if (isFree(s)) {
        throw new IllegalArgumentException("slot " + s + " is already free");
      }
    }
    // Mark as free; a slot seen twice in this call is found marked: undo and fail.
    for (int i = from; i < to; i++) {
      int s = slots[i];
      if ((free[s >>> 6] & (1L << s)) != 0) {
        for (int j = from; j < i; j++) {
          free[slots[j] >>> 6] &= ~(1L << slots[j]);
        }
        throw new IllegalArgumentException("slot " + s + " appears twice in one free call");
      }
      free[s >>> 6] |= 1L << s;
    }
    for (int i = from; i < to; i++) {
      stack[top++] = slots[i];
    }
  }

  public boolean isFree(int slot) {
    if (slot < 0 || slot >= capacity) {
      throw new IllegalArgumentException(
          "slot id " + slot + " is out of range 0.." + (capacity - 1));
    }
    return (free[slot >>> 6] & (1L << slot)) != 0;
  }

  public int freeCount() {
    return top;
  }

  public int capacity() {
    return capacity;
  }
}
