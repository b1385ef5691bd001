package dev.leap.fsm.grammar;

import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.BlockView;
import dev.leap.fsm.internal.VocabView;
import dev.leap.vocab.SortedTokens;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.SortedWalk;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.HashMap;

/**
 * The per-(rule, state) token precomputation: for a stack top {@code (r, s)}, which tokens are
 * <em>accepted</em> whatever lies below it, and which are <em>uncertain</em> (their bytes run past
 * the end of {@code r}, so only the actual stack can tell).
 *
 * <p>The top is examined alone, with {@link Stacks#CONTEXT} below it: calls push callee frames as
 * usual, and a return past {@code r}'s own frame is blocked and noted ({@link Stacks#ENDS}). For a
 * token {@code t} of length {@code L}, with the configuration after its first {@code d} bytes:
 *
 * <ul>
 *   <li>accepted: after all {@code L} bytes some stack is alive, or {@code r} may end exactly there
 *       (the caller then goes on; every caller state is live);
 *   <li>uncertain: not accepted, and for some {@code 1 <= d < L}, {@code r} may end after {@code d}
 *       bytes and {@code t[d]} is in {@code FOLLOW(r)} ({@link FollowBytes}); at run time these are
 *       walked through the real stack;
 *   <li>rejected otherwise (whatever the stack: no caller can read {@code t[d]}).
 * </ul>
 *
 * Ending after 0 bytes is not counted: the matcher's configuration already holds the stacks where
 * {@code r} has returned, and their own tops classify the token.
 *
 * <p>Walk: this is a {@link SortedWalk.Recognizer} of the vocabulary sorted by bytes ({@link
 * SortedVocabulary}), the one walk the token index's DFA masks use too: the configuration kept per
 * depth so a shared prefix is walked once; after a death at depth {@code D}, every following token
 * sharing the first {@code D + 1} bytes gets the same answer without a walk. A configuration that
 * is one frame of {@code r} itself over {@code CONTEXT} is kept as a bare DFA state and stepped
 * through the table (most of a rule's states); only calls and returns go through {@link Stacks}.
 */
final class RuleTokenWalk implements SortedWalk.Recognizer {
  private final RuleAutomaton[] rules;
  private final long[][] follow;
  private final Stacks stacks;
  private final SortedVocabulary sorted;
  private final int words;

  // Per depth: a bare state of r (>= 0) or -1 with frames in cfg[d]; alive, ends, pending.
  private final int[] bare;
  private final IntArrayList[] cfg;
  private final boolean[] alive;
  private final boolean[] ends;
  private final boolean[] pending;

  // The stack top being computed (set by compute) and its answers.
  private RuleAutomaton a;
  private int r;
  private long[] fol;
  private long[] accepted;
  private final IntArrayList uncertain = new IntArrayList();

  RuleTokenWalk(RuleAutomaton[] rules, long[][] follow, SortedVocabulary vocab, int vocabSize) {
    this.rules = rules;
    this.follow = follow;
    this.stacks = new Stacks(rules, Integer.MAX_VALUE, 1_000_000);
    this.sorted = vocab;
    this.words = (vocabSize + 63) >>> 6;
    int depth = vocab.maxLength() + 1;
    bare = new int[depth];
    cfg = new IntArrayList[depth];
    for (int d = 0; d < depth; d++) {
      cfg[d] = new IntArrayList();
    }
    alive = new boolean[depth];
    ends = new boolean[depth];
    pending = new boolean[depth];
  }

  /** The result for one node: accepted bitset and uncertain token ids (in byte order). */
  record Sets(long[] accepted, int[] uncertain) {}

  /**
   * The sets of stack top {@code (r, s)}, walking {@code view}: the full sorted vocabulary, or the
   * part of it not made only of {@code s}'s loop bytes ({@link RuleAutomaton#loopBytes}: those
   * tokens are accepted as they are, they leave the walk in {@code s} or in the loop one step
   * ahead).
   */
  Sets compute(int r, int s, VocabView view) {
    return compute(
        r, s, view.tokens, view.loopOnly == null ? new long[words] : view.loopOnly.clone());
  }

  /**
   * The sets of stack top {@code (r, s)} when the tokens outside {@code tokens} (a subsequence of
   * the sorted vocabulary) are known: {@code accepted} holds those accepted (taken, not copied),
   * every other one outside is rejected.
   */
  Sets compute(int r, int s, SortedTokens tokens, long[] accepted) {
    begin(r, s, accepted);
    // Only the blocks of the state's own text bytes: a token whose first byte has no transition
    // dies at depth 1 with r not ended there, so it is rejected whatever follows.
    SortedWalk.walkBlocks(tokens, ownBytes(r, s), this);
    return finish();
  }

  /**
   * {@link #compute(int, int, VocabView)} reading every token of the view, first bytes that die
   * included: the twin the tests compare the block walks against.
   */
  Sets computeWalkingAll(int r, int s, VocabView view) {
    begin(r, s, view.loopOnly == null ? new long[words] : view.loopOnly.clone());
    SortedWalk.walk(view.tokens, this);
    return finish();
  }

  /** The text bytes state {@code s} of rule {@code r} has a transition on (four words). */
  private long[] ownBytes(int r, int s) {
    long[] b = rules[r].byteSets;
    return new long[] {b[4 * s], b[4 * s + 1], b[4 * s + 2], b[4 * s + 3]};
  }

  /**
   * The sets of stack top {@code (r, s)}, {@code s} a state without calls (its first byte is its
   * own step), block by block of the first byte ({@link BlockView}): a block whose first byte dies
   * is skipped; one whose step {@code t} lies just before a loop of at least {@link
   * VocabView#MIN_LOOP_BYTES} bytes ({@link #loopAfter}) has its tokens made of those bytes after
   * the first accepted without a walk (they stay alive in the loop) and only the rest walked; any
   * other block is walked whole. The same sets as walking the full vocabulary ({@code
   * RuleTokenWalkTest}).
   */
  Sets computeByBlocks(int r, int s) {
    RuleAutomaton ra = rules[r];
    long[] acc = new long[words];
    begin(r, s, acc);
    SortedTokens all = sorted.tokens();
    for (int w = 0; w < 4; w++) {
      // The state's text bytes (those with a transition, below the call markers' bytes).
      for (long bits = ra.byteSets[4 * s + w]; bits != 0; bits &= bits - 1) {
        int b = 64 * w + Long.numberOfTrailingZeros(bits);
        BlockView v = BlockView.of(sorted, b, loopAfter(r, ra.step(s, b)));
        if (v.loopOnly == null) {
          SortedWalk.walk(all, v.lo, v.hi, this);
        } else {
          v.addLoopOnly(acc);
          SortedWalk.walk(v.tokens, this);
        }
      }
    }
    return finish();
  }

  /**
   * The bytes of a loop one step ahead of state {@code t} of rule {@code r}: its own ({@link
   * RuleAutomaton#loopBytes}) when it calls nothing; else the widest of those of the stack tops it
   * opens (after {@code " "}, a called identifier rule's start), each of which a token made of its
   * bytes walks into and stays in, alive. Cached per walker.
   */
  private long[] loopAfter(int r, int t) {
    RuleAutomaton ra = rules[r];
    if ((ra.kind[t] & RuleAutomaton.HAS_CALLS) == 0) {
      return ra.loopBytes(t);
    }
    long key = ((long) r << 32) | t;
    long[] best = loopsAfterCalls.get(key);
    if (best == null) {
      IntArrayList tops = new IntArrayList();
      stacks.close(stacks.frame(r, t, Stacks.CONTEXT), tops);
      best = NO_LOOP;
      int widest = 0;
      for (int i = 0; i < tops.size(); i++) {
        int f = tops.getInt(i);
        long[] l = rules[stacks.rule(f)].loopBytes(stacks.state(f));
        int bits = VocabView.bytesIn(l);
        if (bits > widest) {
          widest = bits;
          best = l;
        }
      }
      loopsAfterCalls.put(key, best);
    }
    return best;
  }

  private static final long[] NO_LOOP = new long[4];

  /** {@link #loopAfter} of states with calls, by {@code (rule << 32) | state}. */
  private final HashMap<Long, long[]> loopsAfterCalls = new HashMap<>();

  /** Starts the sets of {@code (r, s)}: depth 0 is the bare state, nothing answered yet. */
  private void begin(int r, int s, long[] accepted) {
    this.a = rules[r];
    this.r = r;
    this.fol = follow[r];
    this.accepted = accepted;
    uncertain.clear();
    bare[0] = s;
    alive[0] = true;
    ends[0] = false;
    pending[0] = false;
  }

  private Sets finish() {
    Sets out = new Sets(accepted, uncertain.toIntArray());
    accepted = null;
    return out;
  }

  @Override
  public boolean alive(int depth) {
    return alive[depth];
  }

  @Override
  public void push(int d, byte b) {
    stepInto(a, r, d, b);
    pending[d + 1] = pending[d] || (d >= 1 && ends[d] && FollowBytes.contains(fol, b));
  }

  @Override
  public void complete(int id, int len) {
    if (alive[len] || ends[len]) {
      accepted[id >>> 6] |= 1L << id;
    } else if (pending[len]) {
      uncertain.add(id);
    }
  }

  /**
   * Dead after {@code d} bytes ({@code d >= 1}), the token goes on. If r ended exactly there, the
   * answer depends on the next byte: the same for every token sharing the first {@code d + 1}
   * bytes. Otherwise it is the same for every token sharing the first {@code d} bytes. Uncertain
   * answers are reported for each such token; rejections are skipped.
   */
  @Override
  public int died(int id, int d, byte next) {
    int shared;
    boolean unsure;
    if (ends[d]) {
      shared = d + 1;
      unsure = pending[d] || FollowBytes.contains(fol, next);
    } else {
      shared = d;
      unsure = pending[d];
    }
    if (unsure) {
      uncertain.add(id);
      return -shared;
    }
    return shared;
  }

  @Override
  public void sameAsDied(int id) {
    uncertain.add(id);
  }

  /** Fills depth {@code d + 1} from depth {@code d} and byte {@code b}. */
  private void stepInto(RuleAutomaton a, int r, int d, byte b) {
    int flags;
    IntArrayList out = cfg[d + 1];
    if (bare[d] >= 0) {
      int t = a.step(bare[d], b);
      if (t == Dfa.DEAD) {
        bare[d + 1] = -1;
        out.clear();
        alive[d + 1] = false;
        ends[d + 1] = false;
        return;
      }
      int kind = a.kind[t];
      if ((kind & RuleAutomaton.HAS_CALLS) == 0) {
        bare[d + 1] = t;
        alive[d + 1] = (kind & RuleAutomaton.HAS_BYTES) != 0;
        ends[d + 1] = (kind & RuleAutomaton.ACCEPTING) != 0;
        return;
      }
      flags = stacks.close(stacks.frame(r, t, Stacks.CONTEXT), out);
    } else {
      IntArrayList src = cfg[d];
      flags = stacks.step(src.elements(), src.size(), b, out);
    }
    ends[d + 1] = (flags & Stacks.ENDS) != 0;
    alive[d + 1] = !out.isEmpty();
    bare[d + 1] = -1;
    if (out.size() == 1) {
      int f = out.getInt(0);
      if (stacks.parent(f) == Stacks.CONTEXT && stacks.rule(f) == r) {
        bare[d + 1] = stacks.state(f);
      }
    }
  }
}
