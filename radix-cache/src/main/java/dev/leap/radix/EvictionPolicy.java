package dev.leap.radix;

/**
 * Which unlocked leaf {@link RadixCache#evict} frees first: the one with the lowest score. Scores
 * are read when an eviction starts; ties go to the older node.
 */
@FunctionalInterface
public interface EvictionPolicy {
  long score(RadixCache.Node node);

  /** Least recently used first (the default): the score is the node's last-access stamp. */
  EvictionPolicy LRU = RadixCache.Node::lastAccess;

  /** Least frequently used first, then least recently used. */
  EvictionPolicy LFU = n -> ((long) n.hits() << 32) + n.lastAccess();
}
