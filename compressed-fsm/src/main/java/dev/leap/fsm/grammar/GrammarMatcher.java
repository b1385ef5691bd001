package dev.leap.fsm.grammar;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.vocab.Utf8;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request's view of a {@link CompiledGrammar}: a {@link ByteAutomaton} whose states are
 * interned configurations (sets of stacks, see {@link Stacks}), with token masks and forced bytes.
 *
 * <p>States: each distinct configuration (its sorted stack ids and whether the text may end) gets
 * one int, the first time it is reached, and keeps it; stacks are persistent frames shared between
 * configurations. So a caller may keep the state before every output position, roll back by cutting
 * that list, and walk again from any earlier state. {@link #DEAD} ({@code -1}) is never interned.
 * Every live state is a prefix of some text of the grammar (the grammar checks make every rule able
 * to finish).
 *
 * <p>{@link #allowed}: the OR of the precomputed accepted sets of the configuration's distinct
 * stack tops, plus those of their uncertain tokens that survive a walk through the whole
 * configuration, plus the EOS ids where the state is accepting; the masks of the {@value
 * #MASK_CACHE} most recently used states are kept (a mask is 16 KiB for a 128k vocabulary; a
 * request's states are many). {@link #forcedBytes}: while the state is not accepting and exactly
 * one byte value can follow (over all stacks, returns included: the stack is known here, so forcing
 * crosses rule ends), that byte; never ending inside a UTF-8 sequence; at most {@value #MAX_FORCED}
 * bytes.
 *
 * <p>Work limits (from {@link CompiledGrammar#newMatcher(int, int)}): stack depth and live stacks
 * per configuration; past one, a {@link GrammarLimitException}. Not thread-safe: one per request.
 * The interning tables live here and go with the matcher.
 */
public final class GrammarMatcher implements ByteAutomaton {
  /** Longest forced run returned by {@link #forcedBytes}. */
  public static final int MAX_FORCED = 4096;

  /** Masks kept per matcher (the most recently used states'). */
  static final int MASK_CACHE = 64;

  private final CompiledGrammar g;
  private final Stacks stacks;
  private final List<int[]> configs = new ArrayList<>();
  private final IntArrayList accepting = new IntArrayList();
  private final Map<Key, Integer> ids = new HashMap<>();

  /**
   * Most recently used masks (one is {@code maskWords} longs: 16 KiB for 128k tokens), by state.
   */
  private final Map<Integer, long[]> masks =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, long[]> eldest) {
          return size() > MASK_CACHE;
        }
      };

  private final IntArrayList counts = new IntArrayList();
  private final List<byte[]> forced = new ArrayList<>();
  private final IntArrayList bufA = new IntArrayList();
  private final IntArrayList bufB = new IntArrayList();
  private final int initial;

  GrammarMatcher(CompiledGrammar g, int maxDepth, int maxStacks) {
    this.g = g;
    this.stacks = new Stacks(g.rules, maxDepth, maxStacks);
    IntArrayList out = new IntArrayList();
    int flags = stacks.close(stacks.frame(0, 0, Stacks.BOTTOM), out);
    initial = intern(out, (flags & Stacks.ACCEPT) != 0);
  }

  @Override
  public int initialState() {
    return initial;
  }

  /** Configurations interned so far. */
  public int stateCount() {
    return configs.size();
  }

  @Override
  public boolean isAccepting(int state) {
    return state >= 0 && accepting.getInt(state) != 0;
  }

  @Override
  public boolean hasTransitions(int state) {
    return state >= 0 && configs.get(state).length > 0;
  }

  @Override
  public int walk(int state, byte[] bytes, int from, int to) {
    if (state < 0) {
      return DEAD;
    }
    if (from == to) {
      return state;
    }
    int[] cur = configs.get(state);
    IntArrayList out = bufA;
    IntArrayList spare = bufB;
    int n = cur.length;
    int[] src = cur;
    int flags = 0;
    for (int i = from; i < to; i++) {
      if (n == 0) {
        return DEAD;
      }
      flags = stacks.step(src, n, bytes[i], out);
      if (out.isEmpty() && flags == 0) {
        return DEAD;
      }
      n = out.size();
      src = out.elements();
      IntArrayList t = out;
      out = spare;
      spare = t;
    }
    // The last result is in 'spare' (swapped after the step).
    return intern(spare, (flags & Stacks.ACCEPT) != 0);
  }

  /**
   * Survival walk of a state's uncertain tokens, sharing their common prefixes: {@code level[d]}
   * holds the stacks after the first {@code d} bytes of {@link #walked} (level 0 is the
   * configuration), valid for {@code d <= depth}; {@code live[d]} says whether those {@code d}
   * bytes could be walked. Tokens come in byte order (as {@link RuleTokenWalk.Sets#uncertain} lists
   * them), so most start at the prefix they share with the one before. The same answers as walking
   * each token from the configuration alone (the stack sets after a prefix do not depend on what
   * follows).
   */
  private IntArrayList[] level = {new IntArrayList()};

  private boolean[] live = {true};
  private byte[] walked;
  private int depth;

  /** Starts the survival walks of {@link #survives} from configuration {@code cur}. */
  private void beginSurvival(int[] cur) {
    level[0].clear();
    level[0].addElements(0, cur);
    live[0] = true;
    walked = null;
    depth = 0;
  }

  /**
   * Whether {@code bytes} can be walked from the configuration of {@link #beginSurvival} (without
   * interning the result).
   */
  private boolean survives(byte[] bytes) {
    int d = 0;
    if (walked != null) {
      int max = Math.min(depth, Math.min(walked.length, bytes.length));
      while (d < max && walked[d] == bytes[d]) {
        d++;
      }
    }
    walked = bytes;
    if (level.length <= bytes.length) {
      int n = Math.max(bytes.length + 1, 2 * level.length);
      IntArrayList[] grown = Arrays.copyOf(level, n);
      for (int i = level.length; i < n; i++) {
        grown[i] = new IntArrayList();
      }
      level = grown;
      live = Arrays.copyOf(live, n);
    }
    while (d < bytes.length && live[d]) {
      IntArrayList src = level[d];
      IntArrayList out = level[d + 1];
      if (src.isEmpty()) {
        live[d + 1] = false;
      } else {
        int flags = stacks.step(src.elements(), src.size(), bytes[d], out);
        live[d + 1] = !(out.isEmpty() && flags == 0);
      }
      d++;
    }
    depth = d;
    return d == bytes.length && live[d];
  }

  /**
   * The tokens allowed in {@code state}: bit {@code i} of word {@code i >>> 6} = token {@code i}
   * ({@link CompiledGrammar#maskWords()} words). Cached and shared: do not modify.
   */
  public long[] allowed(int state) {
    live(state);
    long[] m = masks.get(state);
    if (m == null) {
      m = computeMask(state);
      masks.put(state, m);
    }
    return m;
  }

  /** How many tokens {@code state} allows. */
  public int allowedCount(int state) {
    while (counts.size() <= state) {
      counts.add(-1);
    }
    int c = counts.getInt(state);
    if (c < 0) {
      c = 0;
      for (long w : allowed(state)) {
        c += Long.bitCount(w);
      }
      counts.set(state, c);
    }
    return c;
  }

  private long[] computeMask(int state) {
    int[] cur = configs.get(state);
    long[] mask = new long[g.words];
    int[] nodes = new int[cur.length];
    int distinct = 0;
    for (int f : cur) {
      int node = stacks.node(f);
      boolean seen = false;
      for (int i = 0; i < distinct; i++) {
        if (nodes[i] == node) {
          seen = true;
          break;
        }
      }
      if (!seen) {
        nodes[distinct++] = node;
        long[] acc = g.sets(node).accepted();
        for (int w = 0; w < mask.length; w++) {
          mask[w] |= acc[w];
        }
      }
    }
    beginSurvival(cur);
    for (int i = 0; i < distinct; i++) {
      for (int id : g.sets(nodes[i]).uncertain()) {
        if ((mask[id >>> 6] & (1L << id)) == 0 && survives(g.tokenBytes[id])) {
          mask[id >>> 6] |= 1L << id;
        }
      }
    }
    if (isAccepting(state)) {
      for (int e : g.eos) {
        if (e >= 0 && e < g.vocab.size()) {
          mask[e >>> 6] |= 1L << e;
        }
      }
    }
    return mask;
  }

  /**
   * The state after {@code token}: the walk of its bytes; {@link #DEAD} if the token is not allowed
   * there. An EOS id (or a token without bytes) has no next state: {@link #DEAD}.
   */
  public int nextState(int state, int token) {
    if (state < 0 || token < 0 || token >= g.tokenBytes.length) {
      return DEAD;
    }
    byte[] b = g.tokenBytes[token];
    return b == null ? DEAD : walk(state, b, 0, b.length);
  }

  /**
   * The bytes forced from {@code state}: appended while the state is not accepting and exactly one
   * byte value can follow, cut back so as not to end inside a UTF-8 sequence, at most {@value
   * #MAX_FORCED}. Empty when nothing is forced. Cached and shared: do not modify.
   */
  public byte[] forcedBytes(int state) {
    live(state);
    while (forced.size() <= state) {
      forced.add(null);
    }
    byte[] f = forced.get(state);
    if (f == null) {
      f = computeForced(state);
      forced.set(state, f);
    }
    return f;
  }

  private byte[] computeForced(int state) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] cur = configs.get(state);
    int n = cur.length;
    boolean accept = isAccepting(state);
    IntArrayList next = bufA;
    IntArrayList spare = bufB;
    // Stepped without interning: the states inside a forced run are not asked for.
    while (!accept && out.size() < MAX_FORCED) {
      int b = onlyNextByte(cur, n);
      if (b < 0) {
        break;
      }
      out.write(b);
      int flags = stacks.step(cur, n, b, next);
      cur = next.elements();
      n = next.size();
      accept = (flags & Stacks.ACCEPT) != 0;
      IntArrayList t = next;
      next = spare;
      spare = t;
    }
    byte[] bytes = out.toByteArray();
    if (bytes.length > 0 && expectsContinuation(cur, n, accept)) {
      // The run ends inside a UTF-8 sequence: cut back before its lead byte (as jump edges do).
      bytes = Arrays.copyOf(bytes, Utf8.lastCodePointStart(bytes));
    } else if (bytes.length >= MAX_FORCED) {
      bytes = Arrays.copyOf(bytes, Utf8.completeLength(bytes));
    }
    return bytes;
  }

  /** The one byte value some stack of {@code cfg[0, n)} can read, or -1 if none or several. */
  private int onlyNextByte(int[] cfg, int n) {
    long w0 = 0;
    long w1 = 0;
    long w2 = 0;
    long w3 = 0;
    for (int i = 0; i < n; i++) {
      int f = cfg[i];
      long[] sets = g.rules[stacks.rule(f)].byteSets;
      int base = 4 * stacks.state(f);
      w0 |= sets[base];
      w1 |= sets[base + 1];
      w2 |= sets[base + 2];
      w3 |= sets[base + 3];
    }
    int c = Long.bitCount(w0) + Long.bitCount(w1) + Long.bitCount(w2) + Long.bitCount(w3);
    if (c != 1) {
      return -1;
    }
    if (w0 != 0) {
      return Long.numberOfTrailingZeros(w0);
    } else if (w1 != 0) {
      return 64 + Long.numberOfTrailingZeros(w1);
    } else if (w2 != 0) {
      return 128 + Long.numberOfTrailingZeros(w2);
    }
    return 192 + Long.numberOfTrailingZeros(w3);
  }

  /**
   * Whether {@code cfg[0, n)} is inside a UTF-8 sequence: not accepting, and only continuation
   * bytes can follow.
   */
  private boolean expectsContinuation(int[] cfg, int n, boolean accept) {
    if (accept) {
      return false;
    }
    boolean any = false;
    for (int i = 0; i < n; i++) {
      int f = cfg[i];
      long[] sets = g.rules[stacks.rule(f)].byteSets;
      int base = 4 * stacks.state(f);
      // Continuation bytes are 0x80..0xBF: all of word 2, none elsewhere.
      if (sets[base] != 0 || sets[base + 1] != 0 || sets[base + 3] != 0) {
        return false;
      }
      any |= sets[base + 2] != 0;
    }
    return any;
  }

  /**
   * The stacks of {@code state} as {@code rule@state} frames, top first (for debugging and {@code
   * leap explain}).
   */
  public List<List<String>> stacksOf(int state) {
    live(state);
    List<List<String>> out = new ArrayList<>();
    for (int f : configs.get(state)) {
      List<String> stack = new ArrayList<>();
      for (int x = f; x >= 0; x = stacks.parent(x)) {
        stack.add(g.rules[stacks.rule(x)].name + "@" + stacks.state(x));
      }
      out.add(stack);
    }
    return out;
  }

  /**
   * Checks that {@code state} is a live state of this matcher (not {@link #DEAD}, not another
   * matcher's).
   */
  private void live(int state) {
    if (state < 0 || state >= configs.size()) {
      throw new IllegalArgumentException(
          "not a live state of this matcher: "
              + state
              + " (states 0.."
              + (configs.size() - 1)
              + ")");
    }
  }

  private int intern(IntArrayList frames, boolean accept) {
    if (frames.isEmpty() && !accept) {
      return DEAD;
    }
    int[] arr = frames.toIntArray();
    Key k = new Key(arr, accept);
    Integer id = ids.get(k);
    if (id != null) {
      return id;
    }
    int nid = configs.size();
    configs.add(arr);
    accepting.add(accept ? 1 : 0);
    ids.put(k, nid);
    return nid;
  }

  private record Key(int[] frames, boolean accept) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.accept == accept && Arrays.equals(k.frames, frames);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(frames) * 31 + (accept ? 1 : 0);
    }
  }
}
