package dev.leap.radix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Many thousands of random operations (match, insert, lock, unlock, evict, allocate, free across
 * simulated requests) against a naive twin: a map from every cached prefix to the slot of its last
 * token. After every operation: match results agree, every slot is free or owned by exactly one
 * tree node or exactly one simulated request, locked paths are never evicted, counters equal a
 * recount.
 */
class RadixCacheRandomTest {

  /** The naive twin: prefix (as a list) -> slot of its last token. Prefix-closed. */
  static final class Naive {
    final Map<List<Integer>, Integer> slotOf = new HashMap<>();

    static List<Integer> key(int[] t, int len) {
      List<Integer> k = new ArrayList<>(len);
      for (int i = 0; i < len; i++) {
        k.add(t[i]);
      }
      return k;
    }

    int longest(int[] t, int len) {
      int n = 0;
      while (n < len && slotOf.containsKey(key(t, n + 1))) {
        n++;
      }
      return n;
    }

    int[] slots(int[] t, int len) {
      int[] s = new int[len];
      for (int i = 0; i < len; i++) {
        s[i] = slotOf.get(key(t, i + 1));
      }
      return s;
    }

    /** Inserts; returns the caller's duplicates (positions already present whose slot differs). */
    int[] insert(int[] t, int[] slots) {
      List<Integer> dup = new ArrayList<>();
      for (int i = 0; i < t.length; i++) {
        List<Integer> k = key(t, i + 1);
        Integer have = slotOf.get(k);
        if (have == null) {
          slotOf.put(k, slots[i]);
        } else if (have != slots[i]) {
          dup.add(slots[i]);
        }
      }
      return dup.stream().mapToInt(Integer::intValue).toArray();
    }

    void dropFreed(SlotAllocator a) {
      slotOf.values().removeIf(a::isFree);
    }
  }

  static final class Request {
    int[] tokens;
    int[] slots;
    int matched;
    RadixCache.Node node;
  }

  @Test
  void randomOperationsAgreeWithNaiveTwin() {
    for (long seed = 1; seed <= 6; seed++) {
      run(seed, 6000);
    }
  }

  static void run(long seed, int ops) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int capacity = 200 + rnd.nextInt(400);
    SlotAllocator alloc = new SlotAllocator(capacity);
    RadixCache cache = new RadixCache(alloc);
    Naive naive = new Naive();
    List<Request> active = new ArrayList<>();
    int[][] docs = new int[4][];
    for (int d = 0; d < docs.length; d++) {
      docs[d] = rnd.ints(10 + rnd.nextInt(40), 0, 6).toArray();
    }
    int op = 0;
    try {
      for (op = 0; op < ops; op++) {
        int kind = rnd.nextInt(10);
        if (kind <= 2) {
          // A request starts: match its prompt, lock, allocate the rest (evicting if short).
          int[] doc = docs[rnd.nextInt(docs.length)];
          int cut = rnd.nextInt(doc.length + 1);
          int[] prompt = Arrays.copyOf(doc, cut + 1 + rnd.nextInt(8));
          for (int i = cut; i < prompt.length; i++) {
            prompt[i] = rnd.nextInt(6);
          }
          RadixCache.Match m = cache.match(prompt);
          assertEquals(naive.longest(prompt, prompt.length), m.length(), "match length");
          assertArrayEquals(naive.slots(prompt, m.length()), m.slots(), "match slots");
          cache.lock(m.node());
          int need = prompt.length - m.length();
          int[] own = alloc.allocate(need);
          if (own == null) {
            cache.evict(need - alloc.freeCount());
            naive.dropFreed(alloc);
            own = alloc.allocate(need);
          }
          if (own == null) {
            cache.unlock(m.node());
            continue;
          }
          Request r = new Request();
          r.tokens = prompt;
          r.matched = m.length();
          r.node = m.node();
          r.slots = new int[prompt.length];
          System.arraycopy(m.slots(), 0, r.slots, 0, m.length());
          System.arraycopy(own, 0, r.slots, m.length(), need);
          active.add(r);
        } else if (kind <= 4 && !active.isEmpty()) {
          // A request finishes: insert everything, free duplicates, unlock.
          Request r = active.remove(rnd.nextInt(active.size()));
          int[] expectedDup = naive.insert(r.tokens, r.slots);
          int[] dup = cache.insert(r.tokens, r.slots);
          int[] a = dup.clone();
          int[] b = expectedDup.clone();
          Arrays.sort(a);
          Arrays.sort(b);
          assertArrayEquals(b, a, "duplicates");
          alloc.free(dup);
          cache.unlock(r.node);
        } else if (kind == 5 && !active.isEmpty()) {
          // Mid-request share: insert, adopt the tree's slots, move the lock.
          Request r = active.get(rnd.nextInt(active.size()));
          naive.insert(r.tokens, r.slots);
          int[] dup = cache.insert(r.tokens, r.slots);
          alloc.free(dup);
          RadixCache.Match m = cache.match(r.tokens);
          assertEquals(r.tokens.length, m.length());
          cache.lock(m.node());
          cache.unlock(r.node);
          r.node = m.node();
          r.slots = m.slots();
          r.matched = m.length();
        } else if (kind == 6) {
          int freed = cache.evict(1 + rnd.nextInt(30));
          naive.dropFreed(alloc);
          assertTrue(freed >= 0);
        } else if (kind == 7 && !active.isEmpty()) {
          // A request is aborted: free what it owns, unlock.
          Request r = active.remove(rnd.nextInt(active.size()));
          alloc.free(r.slots, r.matched, r.slots.length);
          cache.unlock(r.node);
        } else {
          // A probe that changes nothing.
          int[] doc = docs[rnd.nextInt(docs.length)];
          int[] probe = Arrays.copyOf(doc, rnd.nextInt(doc.length + 1));
          assertEquals(
              naive.longest(probe, probe.length),
              cache.matchLength(probe, probe.length),
              "matchLength");
        }
        check(cache, alloc, naive, active, capacity);
      }
      CacheStats st = cache.stats();
      System.out.println("radix random test seed " + seed + ": " + st);
      assertTrue(
          st.evictedSlots() > 0
              && st.insertedTokens() > 0
              && st.hits() > 0
              && st.duplicateTokens() > 0,
          "the run did not exercise eviction, insertion and hits: " + st);
    } catch (AssertionError | RuntimeException e) {
      fail("seed " + seed + " op " + op + ": " + e.getMessage() + "\n" + cache.prettyPrint(), e);
    }
  }

  static void check(
      RadixCache cache, SlotAllocator alloc, Naive naive, List<Request> active, int capacity) {
    cache.verify();
    int[] owners = new int[capacity];
    for (int s = 0; s < capacity; s++) {
      owners[s] = (alloc.isFree(s) ? 1 : 0) + (cache.owns(s) ? 1 : 0);
    }
    for (Request r : active) {
      for (int i = r.matched; i < r.slots.length; i++) {
        owners[r.slots[i]]++;
      }
      // Locked paths are never evicted.
      assertTrue(cache.matchLength(r.tokens, r.matched) == r.matched, "a locked path was evicted");
      for (int i = 0; i < r.matched; i++) {
        assertTrue(cache.owns(r.slots[i]), "a locked slot left the tree");
      }
    }
    for (int s = 0; s < capacity; s++) {
      assertEquals(1, owners[s], "slot " + s + " has " + owners[s] + " owners");
    }
    assertEquals(naive.slotOf.size(), cache.cachedSlots(), "cached slots vs naive prefixes");
    assertEquals(
        capacity,
        alloc.freeCount()
            + cache.cachedSlots()
            + active.stream().mapToInt(r -> r.slots.length - r.matched).sum());
  }
}
