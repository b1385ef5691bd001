package dev.leap.radix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The cases that break naive trees, and bad input. */
class RadixCacheTest {

  SlotAllocator alloc = new SlotAllocator(64);
  RadixCache cache = new RadixCache(alloc);

  int[] put(int... tokens) {
    int[] slots = alloc.allocate(tokens.length);
    alloc.free(cache.insert(tokens, slots));
    cache.verify();
    return slots;
  }

  @Test
  void matchEndingInsideAnEdgeSplitsIt() {
    int[] slots = put(1, 2, 3, 4, 5);
    assertEquals(1, cache.nodeCount());
    RadixCache.Match m = cache.match(new int[] {1, 2, 3, 9});
    assertEquals(3, m.length());
    assertArrayEquals(new int[] {slots[0], slots[1], slots[2]}, m.slots());
    assertEquals(2, cache.nodeCount());
    assertEquals(3, m.node().length());
    cache.verify();
    assertEquals(5, cache.match(new int[] {1, 2, 3, 4, 5, 6}).length());
  }

  @Test
  void insertingAPrefixOfAnExistingKeyReturnsAllAsDuplicates() {
    int[] slots = put(1, 2, 3, 4);
    int[] mine = alloc.allocate(2);
    int[] dup = cache.insert(new int[] {1, 2}, mine);
    assertArrayEquals(mine, dup);
    alloc.free(dup);
    assertEquals(4, cache.cachedSlots());
    cache.verify();
    // Passing the tree's own slots back returns nothing to free.
    assertEquals(0, cache.insert(new int[] {1, 2}, new int[] {slots[0], slots[1]}).length);
  }

  @Test
  void insertingALongerKeyThroughALockedNode() {
    put(1, 2, 3);
    RadixCache.Match m = cache.match(new int[] {1, 2, 3});
    cache.lock(m.node());
    assertEquals(3, cache.lockedSlots());
    int[] more = alloc.allocate(5);
    int[] tokens = {1, 2, 3, 4, 5};
    int[] slots = {m.slots()[0], m.slots()[1], m.slots()[2], more[3], more[4]};
    alloc.free(new int[] {more[0], more[1], more[2]});
    assertEquals(0, cache.insert(tokens, slots).length);
    assertEquals(3, cache.lockedSlots());
    assertEquals(2, cache.evictableSlots());
    cache.verify();
    assertEquals(2, cache.evict(100), "only the unlocked extension can go");
    assertEquals(3, cache.match(tokens).length());
    cache.unlock(m.node());
    cache.verify();
  }

  @Test
  void evictingALeafMakesItsParentAnEvictableLeaf() {
    put(1, 2, 3, 4);
    put(1, 2, 7, 8);
    assertEquals(3, cache.nodeCount());
    cache.match(new int[] {1, 2, 7, 8}); // most recent
    assertEquals(2, cache.evict(1), "the least recently used leaf [3, 4]");
    assertEquals(2, cache.match(new int[] {1, 2, 3, 4}).length());
    int before = alloc.freeCount();
    assertEquals(4, cache.evict(4), "leaf [7, 8], then its parent [1, 2] in the same call");
    assertEquals(before + 4, alloc.freeCount());
    assertEquals(0, cache.nodeCount());
    cache.verify();
  }

  @Test
  void capacityExhaustedWithEverythingLocked() {
    SlotAllocator small = new SlotAllocator(8);
    RadixCache c = new RadixCache(small);
    int[] s = small.allocate(8);
    c.insert(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, s);
    RadixCache.Match m = c.match(new int[] {1, 2, 3, 4, 5, 6, 7, 8});
    c.lock(m.node());
    assertNull(small.allocate(1));
    assertEquals(0, c.evict(8));
    assertNull(small.allocate(1));
    assertEquals(8, c.lockedSlots());
    c.verify();
    c.unlock(m.node());
    assertEquals(8, c.evict(8));
    assertEquals(8, small.freeCount());
  }

  @Test
  void badInputNamesTheValueAndChangesNothing() {
    int[] slots = put(1, 2, 3);
    String before = cache.prettyPrint();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> cache.insert(new int[] {5}, new int[] {-1}));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> cache.insert(new int[] {5}, new int[] {64}));
    assertTrue(e.getMessage().contains("64"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> cache.insert(new int[] {5, 6}, new int[] {1}));
    assertTrue(e.getMessage().contains("2 tokens"), e.getMessage());
    int[] two = alloc.allocate(1);
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> cache.insert(new int[] {5, 6}, new int[] {two[0], two[0]}));
    assertTrue(e.getMessage().contains(String.valueOf(two[0])), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> cache.insert(new int[] {9}, new int[] {slots[0]}));
    assertTrue(e.getMessage().contains("already owned"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> cache.insert(new int[] {9}, new int[] {40}));
    assertTrue(e.getMessage().contains("free"), e.getMessage());
    RadixCache.Match m = cache.match(new int[] {1, 2, 3});
    IllegalStateException s =
        assertThrows(IllegalStateException.class, () -> cache.unlock(m.node()));
    assertTrue(s.getMessage().contains(m.node().toString()), s.getMessage());
    assertEquals(before.replaceAll("t=\\d+", ""), cache.prettyPrint().replaceAll("t=\\d+", ""));
    cache.verify();
    e = assertThrows(IllegalArgumentException.class, () -> alloc.free(new int[] {40}));
    assertTrue(
        e.getMessage().contains("40") && e.getMessage().contains("already free"), e.getMessage());
    int free = alloc.freeCount();
    e = assertThrows(IllegalArgumentException.class, () -> alloc.free(new int[] {two[0], two[0]}));
    assertTrue(e.getMessage().contains("twice"), e.getMessage());
    assertEquals(free, alloc.freeCount());
    assertTrue(!alloc.isFree(two[0]));
    e = assertThrows(IllegalArgumentException.class, () -> alloc.free(new int[] {99}));
    assertTrue(e.getMessage().contains("99"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> alloc.allocate(-1));
    assertThrows(IllegalArgumentException.class, () -> cache.evict(-1));
  }

  @Test
  void nodeIdentitySurvivesSplits() {
    put(1, 2, 3, 4);
    RadixCache.Match whole = cache.match(new int[] {1, 2, 3, 4});
    cache.lock(whole.node());
    cache.match(new int[] {1, 2}); // splits above the locked node
    cache.verify();
    assertEquals(4, cache.lockedSlots());
    cache.unlock(whole.node());
    assertEquals(0, cache.lockedSlots());
    assertSame(whole.node(), cache.match(new int[] {1, 2, 3, 4}).node());
  }
}
