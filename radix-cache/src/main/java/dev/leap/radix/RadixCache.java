package dev.leap.radix;

import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * A radix tree over token ids whose nodes own KV-cache slot ids: the prefix cache of SGLang's
 * RadixAttention, without tensors (slot ids index the runtime's KV pool).
 *
 * <p>Each node holds its edge's tokens and one slot id per token, children by first token, a parent
 * link, a lock count and a last-access stamp (a logical clock, so runs are deterministic). A match
 * or insert that ends inside an edge splits it.
 *
 * <p>Ownership invariant: every slot id is free in the {@link SlotAllocator}, owned by exactly one
 * tree node, or owned by exactly one caller (a running request). {@link #insert} takes ownership of
 * the caller's slots for the new part and hands back the caller's duplicates for the part already
 * present; {@link #evict} frees slots of unlocked leaves back to the allocator.
 *
 * <p>Locks pin the path from a node to the root while a request uses it. {@link #evictableSlots()}
 * counts the slots of nodes with lock count zero, {@link #lockedSlots()} the rest; a node moves
 * between them exactly when its lock count crosses zero. Locked nodes are never evicted.
 *
 * <p>Bad input is an {@link IllegalArgumentException} or {@link IllegalStateException} that names
 * the value, thrown before anything changes. Not thread-safe: the scheduler thread owns it.
 */
public final class RadixCache {

  /**
   * A tree node. Its identity stays valid across splits (a split inserts a new parent above it).
   */
  public static final class Node {
    private int[] tokens;
    private int[] slots;
    private Int2ObjectOpenHashMap<Node> children;
    private Node parent;
    private int lockCount;
    private long lastAccess;
    private int hits;
    private boolean removed;
    private final int id;

    private Node(int id, int[] tokens, int[] slots, Node parent) {
      this.id = id;
      this.tokens = tokens;
      this.slots = slots;
      this.parent = parent;
    }

    public long lastAccess() {
      return lastAccess;
    }

    public int hits() {
      return hits;
    }

    public int lockCount() {
      return lockCount;
    }

    /** Tokens on this node's edge. */
    public int length() {
      return tokens.length;
    }

    public int id() {
      return id;
    }

    boolean isLeaf() {
      return children == null || children.isEmpty();
    }

    @Override
    public String toString() {
      return "node#" + id;
    }
  }

  /**
   * The result of {@link #match}: the longest cached prefix, its slots, and the node where it ends.
   */
  public record Match(int length, int[] slots, Node node) {}

  private static final int[] EMPTY = new int[0];

  private final SlotAllocator allocator;
  private final EvictionPolicy policy;
  private final Node root;
  private final boolean[] owned;
  private final Set<Node> leaves = Collections.newSetFromMap(new IdentityHashMap<>());
  private long clock;
  private int nextId = 1;
  private int nodes;
  private int evictable;
  private int locked;
  private long matches;
  private long hits;
  private long misses;
  private long matchedTokens;
  private long insertedTokens;
  private long duplicateTokens;
  private long evictions;
  private long evictedSlots;

  public RadixCache(SlotAllocator allocator) {
    this(allocator, EvictionPolicy.LRU);
  }

  public RadixCache(SlotAllocator allocator, EvictionPolicy policy) {
    this.allocator = allocator;
    this.policy = policy;
    this.root = new Node(0, EMPTY, EMPTY, null);
    this.owned = new boolean[allocator.capacity()];
  }

  /** The longest cached prefix of {@code tokens}. */
  public Match match(int[] tokens) {
    return match(tokens, tokens.length);
  }

  /**
   * The longest cached prefix of {@code tokens[0, length)}: its length, its slot ids in order, and
   * the node where it ends (an edge is split if the match ends inside it). Updates the access
   * stamps of the path.
   */
  public Match match(int[] tokens, int length) {
    checkLength(tokens, length);
    long now = ++clock;
    matches++;
    Node node = root;
    int pos = 0;
    IntArrayList slots = new IntArrayList();
    while (pos < length) {
      Node child = node.children == null ? null : node.children.get(tokens[pos]);
      if (child == null) {
        break;
      }
      int k = common(child.tokens, tokens, pos, length);
      if (k < child.tokens.length) {
        child = split(child, k);
      }
      child.lastAccess = now;
      child.hits++;
      slots.addElements(slots.size(), child.slots);
      pos += k;
      node = child;
    }
    if (pos > 0) {
      hits++;
      matchedTokens += pos;
    } else {
      misses++;
    }
    return new Match(pos, slots.toIntArray(), node);
  }

  /** The length of the longest cached prefix of {@code tokens[0, length)}, changing nothing. */
  public int matchLength(int[] tokens, int length) {
    checkLength(tokens, length);
    Node node = root;
    int pos = 0;
    while (pos < length) {
      Node child = node.children == null ? null : node.children.get(tokens[pos]);
      if (child == null) {
        break;
      }
      int k = common(child.tokens, tokens, pos, length);
      pos += k;
      if (k < child.tokens.length) {
        break;
      }
      node = child;
    }
    return pos;
  }

  /** Inserts all of {@code tokens} with {@code slots}; see {@link #insert(int[], int[], int)}. */
  public int[] insert(int[] tokens, int[] slots) {
    if (tokens.length != slots.length) {
      throw new IllegalArgumentException(
          "tokens and slots differ in length: "
              + tokens.length
              + " tokens, "
              + slots.length
              + " slots");
    }
    return insert(tokens, slots, tokens.length);
  }

  /**
   * Inserts {@code tokens[0, length)}, whose K/V sit in {@code slots[0, length)}. The tree takes
   * ownership of the slots of the part it did not have. For the part already present, every caller
   * slot that differs from the tree's slot at that position is the caller's duplicate: those are
   * returned, for the caller to free (a caller slot equal to the tree's, e.g. from an earlier
   * {@link #match}, is not returned).
   *
   * @throws IllegalArgumentException lengths differ, a slot id is out of range or free in the
   *     allocator, a new-part slot is already owned by the tree, or one slot appears twice
   */
  public int[] insert(int[] tokens, int[] slots, int length) {
    checkLength(tokens, length);
    if (slots.length < length) {
      throw new IllegalArgumentException(
          "tokens and slots differ in length: " + length + " tokens, " + slots.length + " slots");
    }
    int present = matchLength(tokens, length);
    for (int i = 0; i < length; i++) {
      int s = slots[i];
      if (s < 0 || s >= owned.length) {
        throw new IllegalArgumentException(
            "slot id " + s + " at position " + i + " is out of range 0.." + (owned.length - 1));
      }
      if (allocator.isFree(s)) {
        throw new IllegalArgumentException(
            "slot " + s + " at position " + i + " is free in the allocator");
      }
    }
    // New-part slots: not owned by the tree, and no slot twice. Marked as owned as they pass (they
    // will be); on failure the marks are undone so that nothing changes.
    for (int i = present; i < length; i++) {
      int s = slots[i];
      if (owned[s]) {
        for (int j = present; j < i; j++) {
          owned[slots[j]] = false;
        }
        boolean twice = false;
        for (int j = present; j < i; j++) {
          twice |= slots[j] == s;
        }
        throw new IllegalArgumentException(
            twice
                ? "slot " + s + " appears twice in the new part (position " + i + ")"
                : "slot " + s + " at position " + i + " is already owned by the cache");
      }
      owned[s] = true;
    }
    long now = ++clock;
    IntArrayList duplicates = new IntArrayList();
    Node node = root;
    int pos = 0;
    while (pos < length) {
      Node child = node.children == null ? null : node.children.get(tokens[pos]);
      if (child == null) {
        break;
      }
      int k = common(child.tokens, tokens, pos, length);
      if (k < child.tokens.length) {
        child = split(child, k);
      }
      for (int i = 0; i < k; i++) {
        if (slots[pos + i] != child.slots[i]) {
          duplicates.add(slots[pos + i]);
        }
      }
      child.lastAccess = now;
      pos += k;
      node = child;
    }
    duplicateTokens += pos;
    if (pos < length) {
      int[] t = Arrays.copyOfRange(tokens, pos, length);
      int[] s = Arrays.copyOfRange(slots, pos, length);
      Node leaf = new Node(nextId++, t, s, node);
      leaf.lastAccess = now;
      if (node.children == null) {
        node.children = new Int2ObjectOpenHashMap<>(2);
      }
      node.children.put(t[0], leaf);
      leaves.remove(node);
      leaves.add(leaf);
      nodes++;
      for (int x : s) {
        owned[x] = true;
      }
      insertedTokens += t.length;
      // The new leaf is unlocked; its ancestors' lock counts do not change.
      evictable += t.length;
    }
    return duplicates.toIntArray();
  }

  /** Pins the path from {@code node} to the root. */
  public void lock(Node node) {
    checkNode(node);
    for (Node n = node; n != root; n = n.parent) {
      if (n.lockCount == 0) {
        evictable -= n.tokens.length;
        locked += n.tokens.length;
      }
      n.lockCount++;
    }
  }

  /**
   * Releases one {@link #lock} of the path from {@code node} to the root.
   *
   * @throws IllegalStateException if {@code node} is not locked (nothing changes)
   */
  public void unlock(Node node) {
    checkNode(node);
    for (Node n = node; n != root; n = n.parent) {
      if (n.lockCount <= 0) {
        throw new IllegalStateException(
            "unlock of " + node + ", but " + n + " on its path is not locked");
      }
    }
    for (Node n = node; n != root; n = n.parent) {
      n.lockCount--;
      if (n.lockCount == 0) {
        locked -= n.tokens.length;
        evictable += n.tokens.length;
      }
    }
  }

  /**
   * Frees at least {@code n} slots (or as many as possible) from unlocked leaves, lowest policy
   * score first; a parent that becomes an unlocked leaf is a candidate in the same call.
   *
   * @return the number of slots freed
   */
  public int evict(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("cannot evict a negative number of slots: " + n);
    }
    if (n == 0) {
      return 0;
    }
    PriorityQueue<Node> heap =
        new PriorityQueue<>(
            (a, b) -> {
              int c = Long.compare(policy.score(a), policy.score(b));
              return c != 0 ? c : Integer.compare(a.id, b.id);
            });
    for (Node leaf : leaves) {
      if (leaf.lockCount == 0) {
        heap.add(leaf);
      }
    }
    int freed = 0;
    while (freed < n && !heap.isEmpty()) {
      Node leaf = heap.poll();
      Node parent = leaf.parent;
      parent.children.remove(leaf.tokens[0]);
      leaves.remove(leaf);
      leaf.removed = true;
      nodes--;
      for (int s : leaf.slots) {
        owned[s] = false;
      }
      allocator.free(leaf.slots);
      freed += leaf.slots.length;
      evictable -= leaf.slots.length;
      evictions++;
      evictedSlots += leaf.slots.length;
      if (parent != root && parent.isLeaf()) {
        leaves.add(parent);
        if (parent.lockCount == 0) {
          heap.add(parent);
        }
      }
    }
    return freed;
  }

  /** Slots in nodes whose lock count is zero (evictable once they are leaves). */
  public int evictableSlots() {
    return evictable;
  }

  /** Slots in nodes pinned by a lock. */
  public int lockedSlots() {
    return locked;
  }

  /** All slots the tree owns. */
  public int cachedSlots() {
    return evictable + locked;
  }

  /** Nodes, the root excluded. */
  public int nodeCount() {
    return nodes;
  }

  /** Whether the tree owns {@code slot}. */
  public boolean owns(int slot) {
    return slot >= 0 && slot < owned.length && owned[slot];
  }

  public CacheStats stats() {
    return new CacheStats(
        matches,
        hits,
        misses,
        matchedTokens,
        insertedTokens,
        duplicateTokens,
        evictions,
        evictedSlots);
  }

  public SlotAllocator allocator() {
    return allocator;
  }

  /** The tree, one node per line, edges abbreviated to their first and last tokens. */
  public String prettyPrint() {
    StringBuilder sb = new StringBuilder();
    sb.append("root (")
        .append(nodes)
        .append(" nodes, ")
        .append(cachedSlots())
        .append(" slots, ")
        .append(lockedSlots())
        .append(" locked)\n");
    print(root, 1, sb);
    return sb.toString();
  }

  private void print(Node n, int depth, StringBuilder sb) {
    if (n.children == null) {
      return;
    }
    List<Node> kids = new ArrayList<>(n.children.values());
    kids.sort((a, b) -> Integer.compare(a.tokens[0], b.tokens[0]));
    for (Node c : kids) {
      sb.append("  ".repeat(depth))
          .append(c)
          .append(' ')
          .append(abbreviate(c.tokens))
          .append(" len=")
          .append(c.tokens.length)
          .append(" lock=")
          .append(c.lockCount)
          .append(" t=")
          .append(c.lastAccess)
          .append('\n');
      print(c, depth + 1, sb);
    }
  }

  private static String abbreviate(int[] t) {
    if (t.length <= 6) {
      return Arrays.toString(t);
    }
    return "["
        + t[0]
        + ", "
        + t[1]
        + ", "
        + t[2]
        + " ... "
        + t[t.length - 2]
        + ", "
        + t[t.length - 1]
        + "]";
  }

  /** Rough heap footprint in bytes. */
  public long ramBytesUsed() {
    return 64L + owned.length + (long) cachedSlots() * 8 + nodes * 96L;
  }

  /**
   * Checks the structure against a recount: children keyed by first token, parent links, no empty
   * edge, lock counts of parents at least those of children, counters, leaf set, slot ownership.
   *
   * @throws IllegalStateException describing the first violation
   */
  public void verify() {
    int[] count = new int[3]; // evictable, locked, nodes
    boolean[] seen = new boolean[owned.length];
    verify(root, count, seen);
    if (count[0] != evictable || count[1] != locked || count[2] != nodes) {
      throw new IllegalStateException(
          "counters evictable/locked/nodes "
              + evictable
              + "/"
              + locked
              + "/"
              + nodes
              + " but a recount gives "
              + count[0]
              + "/"
              + count[1]
              + "/"
              + count[2]);
    }
    for (int s = 0; s < owned.length; s++) {
      if (owned[s] != seen[s]) {
        throw new IllegalStateException(
            "slot " + s + " ownership flag " + owned[s] + " but tree has it: " + seen[s]);
      }
      if (seen[s] && allocator.isFree(s)) {
        throw new IllegalStateException(
            "slot " + s + " is owned by the tree and free in the allocator");
      }
    }
  }

  private void verify(Node n, int[] count, boolean[] seen) {
    if (n != root) {
      if (n.tokens.length == 0 || n.tokens.length != n.slots.length) {
        throw new IllegalStateException(
            n + " has " + n.tokens.length + " tokens and " + n.slots.length + " slots");
      }
      if (n.parent.children.get(n.tokens[0]) != n) {
        throw new IllegalStateException(n + " is not its parent's child under its first token");
      }
      if (n.parent != root && n.parent.lockCount < n.lockCount) {
        throw new IllegalStateException(n + " is locked more than its parent");
      }
      if (n.isLeaf() != leaves.contains(n)) {
        throw new IllegalStateException(n + " leaf status disagrees with the leaf set");
      }
      if (n.removed) {
        throw new IllegalStateException(n + " was evicted but is still in the tree");
      }
      count[n.lockCount == 0 ? 0 : 1] += n.tokens.length;
      count[2]++;
      for (int s : n.slots) {
        if (seen[s]) {
          throw new IllegalStateException("slot " + s + " is owned by two nodes");
        }
        seen[s] = true;
      }
    }
    if (n.children != null) {
      for (Node c : n.children.values()) {
        if (c.parent != n) {
          throw new IllegalStateException(c + " has a wrong parent link");
        }
        verify(c, count, seen);
      }
    }
  }

  // --- internals

  /** Splits {@code node}'s edge after {@code k} tokens; returns the new upper node. */
  private Node split(Node node, int k) {
    Node upper =
        new Node(
            nextId++, Arrays.copyOf(node.tokens, k), Arrays.copyOf(node.slots, k), node.parent);
    upper.lockCount = node.lockCount;
    upper.lastAccess = node.lastAccess;
    upper.hits = node.hits;
    upper.children = new Int2ObjectOpenHashMap<>(2);
    node.parent.children.put(upper.tokens[0], upper);
    node.tokens = Arrays.copyOfRange(node.tokens, k, node.tokens.length);
    node.slots = Arrays.copyOfRange(node.slots, k, node.slots.length);
    node.parent = upper;
    upper.children.put(node.tokens[0], node);
    nodes++;
    return upper;
  }

  private static int common(int[] edge, int[] tokens, int pos, int length) {
    int n = Math.min(edge.length, length - pos);
    int i = 0;
    while (i < n && edge[i] == tokens[pos + i]) {
      i++;
    }
    return i;
  }

  private static void checkLength(int[] tokens, int length) {
    if (length < 0 || length > tokens.length) {
      throw new IllegalArgumentException("length " + length + " outside 0.." + tokens.length);
    }
  }

  private void checkNode(Node node) {
    if (node == null) {
      throw new IllegalArgumentException("node is null");
    }
    if (node.removed) {
      throw new IllegalStateException(node + " was evicted");
    }
  }
}
