package dev.leap.runtime.internal.engine;

import dev.leap.radix.RadixCache;
import dev.leap.radix.SlotAllocator;
import java.util.Arrays;
import java.util.Collection;

/**
 * Who holds each KV slot: the allocator's free list, the radix cache, or exactly one running
 * request; and how many slots running requests may still take (their reservations).
 *
 * <p>A request is admitted only with a reservation for every slot it could ever hold (its uncached
 * prompt plus {@code maxTokens}), so {@link #allocate} inside a step never fails. Its slots {@code
 * [0, treeOwned)} belong to the radix cache and are pinned by the lock on {@code lockedNode};
 * {@code [treeOwned, kvLen)} are its own. When a prefix of its tokens goes into the cache ({@link
 * #share}), the cache keeps the slots it already had for that prefix (the request's duplicates are
 * freed) and the request adopts them. {@link #verify} checks all of this against a recount.
 *
 * <p>Scheduler thread only.
 */
final class KvLedger {
  private final SlotAllocator allocator;
  private final RadixCache cache;
  private int reserved;

  KvLedger(int capacity, boolean prefixCache) {
    this.allocator = new SlotAllocator(capacity);
    this.cache = prefixCache ? new RadixCache(allocator) : null;
  }

  /**
   * The longest cached prefix of the first {@code limit} tokens, locked (no tokens when there is no
   * cache).
   */
  RadixCache.Match matchAndLock(int[] tokens, int limit) {
    if (cache == null) {
      return new RadixCache.Match(0, new int[0], null);
    }
    RadixCache.Match m = cache.match(tokens, limit);
    cache.lock(m.node());
    return m;
  }

  /** Undoes {@link #matchAndLock} for a request that was not admitted. */
  void unlock(RadixCache.Match m) {
    if (cache != null && m.node() != null) {
      cache.unlock(m.node());
    }
  }

  /**
   * Admits {@code s} with the cached prefix {@code m} (locked by {@link #matchAndLock}) if {@code
   * need} more slots can be reserved, evicting unlocked cache entries when short.
   *
   * @return false, with nothing changed, if the slots are not there (the request waits)
   */
  boolean admit(Sequence s, RadixCache.Match m, int need) {
    return admit(s, m, need, 0);
  }

  /**
   * As {@link #admit(Sequence, RadixCache.Match, int)}, leaving at least {@code keep} slots free or
   * evictable after it.
   */
  boolean admit(Sequence s, RadixCache.Match m, int need, int keep) {
    int available = allocator.freeCount() - reserved;
    if (available < need + keep && cache != null) {
      cache.evict(need + keep - available);
      available = allocator.freeCount() - reserved;
    }
    if (available < need + keep) {
      return false;
    }
    s.lockedNode = m.node();
    s.treeOwned = m.length();
    s.slots.addElements(0, m.slots());
    s.kvLen = m.length();
    s.reservation = need;
    reserved += need;
    return true;
  }

  /** {@code n} new slots for {@code s}, out of its reservation. */
  int[] allocate(Sequence s, int n) {
    if (n > s.reservation) {
      throw new IllegalStateException(
          "request needs " + n + " more KV slots but has " + s.reservation + " reserved");
    }
    int[] slots = allocator.allocate(n);
    if (slots == null) {
      throw new IllegalStateException(
          "KV slot allocation failed despite the reservation (" + n + " slots)");
    }
    s.reservation -= n;
    reserved -= n;
    return slots;
  }

  /**
   * The step computed the K/V of {@code s}'s next {@code slots.length} positions into {@code slots}
   * (from {@link #allocate}): they are its own from now on.
   */
  void extend(Sequence s, int[] slots) {
    s.slots.addElements(s.slots.size(), slots);
    s.kvLen += slots.length;
  }

  /** Gives slots that {@code s} allocated back to the allocator and to its reservation. */
  void release(Sequence s, int[] slots) {
    allocator.free(slots);
    s.reservation += slots.length;
    reserved += slots.length;
  }

  /**
   * Drops the K/V of positions {@code from..kvLen} of {@code s} (a jump retracted those tokens, or
   * the last token must run again for its logits). Its own slots there are freed; cached ones stay
   * the cache's (still pinned by the request's lock), and since running such a position again takes
   * a new slot, the reservation grows by one for each (only the last prompt position is ever run
   * again, when a jump retracted the whole output; see the body for why that always fits).
   */
  void truncate(Sequence s, int from) {
    if (s.kvLen <= from) {
      return;
    }
    int ownFrom = Math.max(from, s.treeOwned);
    if (s.kvLen > ownFrom) {
      release(s, Arrays.copyOfRange(s.slots.elements(), ownFrom, s.kvLen));
    }
    if (s.treeOwned > from) {
      int extra = s.treeOwned - from;
      if (allocator.freeCount() - reserved >= extra) {
        reserved += extra;
        s.reservation += extra;
      } else if (extra > 1) {
        throw new IllegalStateException(
            "no KV slot left to recompute " + extra + " cached positions");
      }
      // else: one position, and the reservation already has a slot to spare: it counts maxTokens
      // output slots, but the last output token is never fed (the request ends when it is sampled).
      s.treeOwned = from;
    }
    s.slots.size(from);
    s.kvLen = from;
  }

  /**
   * Moves the first {@code n} tokens of {@code s} (all with K/V) into the radix cache: the cache
   * keeps the slots it already had for a part of them (this request's duplicates are freed) and the
   * request adopts the cache's slots; the lock moves to the node where the prefix ends. No-op
   * without a cache.
   */
  void share(Sequence s, int n) {
    if (cache == null || n <= s.treeOwned) {
      return;
    }
    int[] toks = s.tokens(0, n);
    allocator.free(cache.insert(toks, Arrays.copyOf(s.slots.elements(), n)));
    RadixCache.Match m = cache.match(toks, n);
    if (m.length() != n) {
      throw new IllegalStateException(
          "radix cache lost an inserted prefix: " + m.length() + " of " + n);
    }
    int[] treeSlots = m.slots();
    for (int p = s.treeOwned; p < n; p++) {
      s.slots.set(p, treeSlots[p]);
    }
    // Slots moved into the tree no longer count against the request; its reservation for them was
    // already spent, so nothing returns to it.
    cache.lock(m.node());
    if (s.lockedNode != null) {
      cache.unlock(s.lockedNode);
    }
    s.lockedNode = m.node();
    s.treeOwned = n;
  }

  /**
   * Returns everything {@code s} holds: its K/V into the radix cache (or freed), its lock, its
   * reservation.
   */
  void releaseAll(Sequence s) {
    if (cache != null) {
      share(s, s.kvLen);
      if (s.lockedNode != null) {
        cache.unlock(s.lockedNode);
        s.lockedNode = null;
      }
    } else if (s.kvLen > 0) {
      allocator.free(Arrays.copyOf(s.slots.elements(), s.kvLen));
    }
    s.slots.clear();
    s.kvLen = 0;
    s.treeOwned = 0;
    reserved -= s.reservation;
    s.reservation = 0;
  }

  int freeSlots() {
    return allocator.freeCount();
  }

  int cachedSlots() {
    return cache == null ? 0 : cache.cachedSlots();
  }

  int capacity() {
    return allocator.capacity();
  }

  /**
   * Recounts slot ownership against {@code running} (every request that holds slots): each slot is
   * free, owned by the radix cache, or owned by exactly one request, and nothing else; a request's
   * cached prefix is the cache's and pinned; the reservations add up and fit in the free slots.
   *
   * @throws IllegalStateException describing the first violation
   */
  void verify(Collection<Sequence> running) {
    if (cache != null) {
      cache.verify();
    }
    int capacity = allocator.capacity();
    boolean[] byRequest = new boolean[capacity];
    int requestOwned = 0;
    long reservations = 0;
    for (Sequence s : running) {
      if (s.slots.size() != s.kvLen || s.kvLen > s.length() || s.treeOwned > s.kvLen) {
        throw new IllegalStateException(
            "request holds "
                + s.slots.size()
                + " slots for kvLen "
                + s.kvLen
                + ", "
                + s.length()
                + " tokens, "
                + s.treeOwned
                + " cached");
      }
      if (s.treeOwned > 0 && s.lockedNode == null) {
        throw new IllegalStateException(
            "request uses " + s.treeOwned + " cached slots without a lock");
      }
      for (int p = 0; p < s.kvLen; p++) {
        int slot = s.slots.getInt(p);
        if (allocator.isFree(slot)) {
          throw new IllegalStateException(
              "slot " + slot + " (position " + p + " of a request) is free");
        }
        boolean tree = cache != null && cache.owns(slot);
        if (p < s.treeOwned != tree) {
          throw new IllegalStateException(
              "slot "
                  + slot
                  + " at position "
                  + p
                  + " of a request with "
                  + s.treeOwned
                  + " cached positions is "
                  + (tree ? "" : "not ")
                  + "owned by the radix cache");
        }
        if (!tree) {
          if (byRequest[slot]) {
            throw new IllegalStateException("slot " + slot + " is owned by two requests");
          }
          byRequest[slot] = true;
          requestOwned++;
        }
      }
      if (s.reservation < 0) {
        throw new IllegalStateException("negative reservation " + s.reservation);
      }
      reservations += s.reservation;
    }
    int total = allocator.freeCount() + cachedSlots() + requestOwned;
    if (total != capacity) {
      throw new IllegalStateException(
          allocator.freeCount()
              + " free + "
              + cachedSlots()
              + " cached + "
              + requestOwned
              + " held by requests = "
              + total
              + " slots, but the capacity is "
              + capacity
              + " (a slot leaked)");
    }
    if (reservations != reserved || reserved > allocator.freeCount()) {
      throw new IllegalStateException(
          "reservations add up to "
              + reservations
              + ", the ledger says "
              + reserved
              + ", "
              + allocator.freeCount()
              + " slots free");
    }
  }
}
