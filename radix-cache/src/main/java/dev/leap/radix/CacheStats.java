package dev.leap.radix;

/** A {@link RadixCache}'s counters since its creation ({@link RadixCache#stats}). */
public record CacheStats(
    long matches,
    long hits,
    long misses,
    long matchedTokens,
    long insertedTokens,
    long duplicateTokens,
    long evictions,
    long evictedSlots) {}
