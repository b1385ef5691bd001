package dev.leap.fsm;

import dev.leap.fsm.internal.CountedLoop;
import dev.leap.fsm.internal.DfaWalk;
import dev.leap.fsm.internal.LoopRegion;
import dev.leap.fsm.internal.SharedMasks;
import dev.leap.fsm.internal.TokensByByte;
import dev.leap.fsm.internal.VocabView;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.SortedWalk;
import dev.leap.vocab.Vocabulary;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * Which tokens a DFA state allows: the tokens whose bytes can be walked from that state without
 * dying, as a bitset ({@code long[]} words, bit {@code i} of word {@code i >>> 6} = token {@code
 * i}). End-of-sequence ids are allowed exactly in accepting states; tokens with no bytes (special
 * tokens) never otherwise.
 *
 * <p>Algorithm: the vocabulary is sorted by bytes once ({@link SortedVocabulary}, shared with the
 * jump retokenizer), with the length of the prefix each token shares with the one before it.
 * Walking the sorted list through the DFA keeps the state after every prefix depth, so a shared
 * prefix is walked once (an implicit byte trie), and when a token dies at depth {@code d} every
 * following token that shares its first {@code d + 1} bytes is skipped: in one step for deaths at
 * the first or second byte (precomputed skip links), else with one integer comparison each. Only
 * the blocks of the first bytes the state has a transition on are read ({@link
 * SortedWalk#walkBlocks}): a literal's state touches one block, not the head of every block.
 *
 * <p>The state after an allowed token is {@link #nextState}: the DFA walk of the token's bytes (a
 * few table lookups), so the index stores masks only. Identical masks are shared.
 *
 * <p>Masks are computed lazily per state on first use and cached (thread-safe: concurrent first
 * uses of one state may compute it twice, with equal results; one is kept); {@link #precompute()}
 * computes the first states' within a time budget, {@link #buildAll()} every state in parallel.
 * Returned masks are shared and must not be modified.
 */
public final class TokenIndex {
  /**
   * The time {@link #precompute()} may spend per token of the vocabulary: 40 ns, about what a few
   * full walks of the vocabulary cost (5 ms for Llama 3's 128,256 tokens, 2 ms for GPT-2's).
   */
  public static final long PRECOMPUTE_NANOS_PER_TOKEN = 40;

  /**
   * The least time {@link #precompute()} may spend: 5 ms (a small vocabulary's masks are cheaper).
   */
  public static final long PRECOMPUTE_MIN_NANOS = 5_000_000;

  private final Dfa dfa;
  private final Vocabulary vocab;
  private final int size;
  private final int words;
  private final byte[][] tokenBytes;
  private final SortedVocabulary sortedVocab;
  private final int maxLen;
  private final int[] eos;
  private final AtomicReferenceArray<long[]> masks;
  private final int[] counts;
  private final SharedMasks shared = new SharedMasks();
  private final LoopRegion.Finder regions;
  private final CountedLoop.Finder counted;

  private TokenIndex(Dfa dfa, Vocabulary vocab) {
    this.dfa = dfa;
    this.vocab = vocab;
    this.size = vocab.size();
    this.words = (size + 63) >>> 6;
    SortedVocabulary s = SortedVocabulary.of(vocab);
    this.sortedVocab = s;
    this.tokenBytes = s.tokenBytes();
    this.maxLen = s.maxLength();
    int[] e = vocab.eosIds();
    this.eos = e == null ? new int[0] : e.clone();
    this.masks = new AtomicReferenceArray<>(dfa.stateCount());
    this.counts = new int[dfa.stateCount()];
    this.regions = LoopRegion.finder(dfa);
    this.counted = CountedLoop.finder(dfa);
    Arrays.fill(counts, -1);
  }

  /** An index over {@code dfa} for {@code vocab}; masks are computed on first use. */
  public static TokenIndex of(Dfa dfa, Vocabulary vocab) {
    return new TokenIndex(dfa, vocab);
  }

  /**
   * Computes masks breadth-first from the initial state (by byte transitions, so in about the order
   * a request reaches them): the initial state's always, then others until the time spent here
   * passes {@link #PRECOMPUTE_NANOS_PER_TOKEN} per vocabulary token (by at most one state's mask).
   * A small DFA gets every mask before its first request, as an eager compile would, a large one
   * its first states; the rest are computed on first use as before (the masks are the same either
   * way). Returns how many states have a mask now.
   */
  public int precompute() {
    return precompute(Math.max(PRECOMPUTE_MIN_NANOS, PRECOMPUTE_NANOS_PER_TOKEN * size));
  }

  /** {@link #precompute()} with a time budget of {@code budgetNanos}. */
  public int precompute(long budgetNanos) {
    long deadline = System.nanoTime() + budgetNanos;
    int n = dfa.stateCount();
    boolean[] seen = new boolean[n];
    int[] queue = new int[n];
    int head = 0;
    int tail = 0;
    int start = dfa.initialState();
    queue[tail++] = start;
    seen[start] = true;
    int done = 0;
    while (head < tail) {
      int s = queue[head++];
      allowed(s);
      done++;
      if (System.nanoTime() - deadline >= 0) {
        break;
      }
      for (int b = 0; b < 256; b++) {
        int t = dfa.step(s, b);
        if (t != Dfa.DEAD && !seen[t]) {
          seen[t] = true;
          queue[tail++] = t;
        }
      }
    }
    return done;
  }

  /** Computes every state's mask now, in parallel. Returns this. */
  public TokenIndex buildAll() {
    IntStream.range(0, dfa.stateCount()).parallel().forEach(this::allowed);
    return this;
  }

  /**
   * The tokens allowed in {@code state}: shared, do not modify. Length {@code ceil(vocabularySize /
   * 64)}.
   */
  public long[] allowed(int state) {
    long[] m = masks.get(state);
    if (m == null) {
      m = intern(compute(state));
      if (!masks.compareAndSet(state, null, m)) {
        m = masks.get(state);
      }
    }
    return m;
  }

  /** How many tokens {@code state} allows. */
  public int allowedCount(int state) {
    int c = counts[state];
    if (c < 0) {
      c = 0;
      for (long w : allowed(state)) {
        c += Long.bitCount(w);
      }
      counts[state] = c;
    }
    return c;
  }

  public boolean isAllowed(int state, int token) {
    return token >= 0 && token < size && (allowed(state)[token >>> 6] & (1L << token)) != 0;
  }

  /**
   * The state after {@code token} from {@code state}: the walk of its bytes, {@link Dfa#DEAD} if
   * the token is not allowed there. An EOS id has no next state ({@link Dfa#DEAD}): the text ends.
   */
  public int nextState(int state, int token) {
    if (token < 0 || token >= size) {
      return Dfa.DEAD;
    }
    byte[] b = tokenBytes[token];
    return b == null ? Dfa.DEAD : dfa.walk(state, b, 0, b.length);
  }

  public Dfa dfa() {
    return dfa;
  }

  public Vocabulary vocabulary() {
    return vocab;
  }

  /** Mask words per state. */
  public int maskWords() {
    return words;
  }

  /**
   * The mask of {@code state}. Near a loop ({@link LoopRegion}: inside a JSON string, right after
   * its opening quote) the tokens that never leave the loop's region are the region's {@link
   * LoopRegion#stay} set, shared per vocabulary and region shape, and only the tokens holding one
   * of the region's exit bytes are walked (when there are at most {@code size / }{@link
   * TokensByByte#WALK_SHARE} of them). Elsewhere, tokens made only of the bytes of a loop reached
   * in one step ({@link LoopRegion#loopBytes}) are allowed without a walk, when there are at least
   * {@link VocabView#MIN_LOOP_BYTES} such bytes; the rest of the vocabulary is walked through a
   * view without them, shared per vocabulary and byte set ({@link VocabView#of}).
   */
  private long[] compute(int state) {
    long[] mask = regionMask(state);
    if (mask == null) {
      mask = countedMask(state);
    }
    if (mask == null) {
      VocabView view =
          VocabView.of(sortedVocab, LoopRegion.loopBytes(dfa::step, state, Dfa.DEAD, 256), size);
      mask = view.loopOnly == null ? new long[words] : view.loopOnly.clone();
      SortedWalk.walkBlocks(
          view.tokens, liveFirstBytes(state), new DfaWalk(dfa, state, maxLen, mask));
    }
    if (dfa.isAccepting(state)) {
      for (int e : eos) {
        if (e >= 0 && e < size) {
          mask[e >>> 6] |= 1L << e;
        }
      }
    }
    return mask;
  }

  /**
   * The mask of {@code state} from its loop region (without end-of-sequence ids), or null when it
   * has none or too many tokens hold its exit bytes.
   */
  private long[] regionMask(int state) {
    LoopRegion region = regions.of(state);
    return region == null
        ? null
        : stayAndExits(state, region.exits(), () -> region.stay(sortedVocab, size).clone());
  }

  /**
   * The mask of {@code state} from the counted loop it starts ({@link CountedLoop}: a string with
   * {@code maxLength}), without end-of-sequence ids, or null when it starts none or too many tokens
   * hold the loop's exit bytes.
   */
  private long[] countedMask(int state) {
    CountedLoop loop = counted.of(state);
    return loop == null
        ? null
        : stayAndExits(state, loop.exits(), () -> loop.stay(sortedVocab, size));
  }

  /**
   * {@code stay} (a fresh array) and the tokens holding an {@code exits} byte whose walk from
   * {@code state} lives, or null when more than {@code size / }{@link TokensByByte#WALK_SHARE} hold
   * one. Those tokens are walked as one sorted list ({@link VocabView#holding}, shared per
   * vocabulary and byte set): a prefix they share is stepped once, and a death skips every token
   * that shares it.
   */
  private long[] stayAndExits(int state, long[] exits, Supplier<long[]> stay) {
    if (!TokensByByte.of(sortedVocab).fewHold(exits, size)) {
      return null;
    }
    long[] mask = stay.get();
    VocabView holding = VocabView.holding(sortedVocab, exits, size);
    SortedWalk.walkBlocks(
        holding.tokens, liveFirstBytes(state), new DfaWalk(dfa, state, maxLen, mask));
    return mask;
  }

  /**
   * The bytes {@code state} has a transition on (four words, a 256-bit set), from the DFA's runs of
   * live transitions ({@link Dfa#forEachRange}).
   */
  private long[] liveFirstBytes(int state) {
    long[] live = new long[4];
    dfa.forEachRange(
        state,
        (lo, hi, target) -> {
          for (int b = lo; b <= hi; b++) {
            live[b >>> 6] |= 1L << b;
          }
        });
    return live;
  }

  private long[] intern(long[] mask) {
    return shared.intern(mask);
  }

  /** Rough heap footprint of the index and its computed masks, in bytes. */
  public long ramBytesUsed() {
    long total = 64L + sortedVocab.size() * 8L + size * 8L;
    total += shared.size() * (16L + words * 8L);
    return total + masks.length() * 8L;
  }
}
