/** The radix tree over token ids whose nodes own KV slot ids, its slot allocator and eviction. */
module dev.leap.radix {
  requires it.unimi.dsi.fastutil;

  exports dev.leap.radix;
}
