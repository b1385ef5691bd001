package dev.leap.fsm.grammar;

import dev.leap.fsm.TokenIndex;
import dev.leap.fsm.internal.LoopRegion;
import dev.leap.fsm.internal.SharedMasks;
import dev.leap.fsm.internal.TokensByByte;
import dev.leap.fsm.internal.VocabView;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.Vocabulary;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A {@link Grammar} compiled against one vocabulary: for every (compiled rule, state) that can be a
 * stack top (a state with a byte transition), the tokens accepted whatever the stack below, and the
 * uncertain ones that run past the rule's end ({@link RuleTokenWalk}); plus each rule's FOLLOW
 * bytes ({@link FollowBytes}). Shared by every request using the grammar with this vocabulary; each
 * request gets its own {@link GrammarMatcher}.
 *
 * <p>{@link #compile} computes every state's sets up front, on all cores; {@link #compileLazily}
 * computes a state's sets the first time a matcher needs them (large grammars of which a request
 * visits a small part; the answers are the same), and {@link #precompute} those of its first states
 * within a time budget, as the runtime does. Immutable as seen from outside and thread-safe: the
 * cache is filled with compare-and-set (two threads may compute one state twice; one result is
 * kept, both equal). Identical accepted sets are stored once.
 */
public final class CompiledGrammar {
  /** Default stack depth limit of a matcher. */
  public static final int DEFAULT_MAX_STACK_DEPTH = 2_000;

  /** Default limit on live stacks in one matcher configuration. */
  public static final int DEFAULT_MAX_STACKS = 1_000;

  final Grammar grammar;
  final Vocabulary vocab;
  final RuleAutomaton[] rules;
  final int[] nodeBase;
  final byte[][] tokenBytes;
  final int[] eos;
  final int words;
  private final SortedVocabulary sorted;
  private final long[][] follow;

  /**
   * Per node: its sets once computed (null before; nodes without byte transitions are never asked).
   */
  private final AtomicReferenceArray<RuleTokenWalk.Sets> sets;

  private final SharedMasks shared = new SharedMasks();
  private final ThreadLocal<RuleTokenWalk> walkers;
  private final double compileMs;
  private final int stackTops;

  private CompiledGrammar(Grammar grammar, Vocabulary vocab, boolean eager) {
    long t0 = System.nanoTime();
    this.grammar = grammar;
    this.vocab = vocab;
    this.rules = grammar.automata();
    this.words = (vocab.size() + 63) >>> 6;
    this.sorted = SortedVocabulary.of(vocab);
    this.tokenBytes = sorted.tokenBytes();
    int[] e = vocab.eosIds();
    this.eos = e == null ? new int[0] : e.clone();
    nodeBase = new int[rules.length + 1];
    for (int k = 0; k < rules.length; k++) {
      nodeBase[k + 1] = nodeBase[k] + rules[k].stateCount();
    }
    sets = new AtomicReferenceArray<>(nodeBase[rules.length]);
    follow = FollowBytes.of(rules);
    walkers = ThreadLocal.withInitial(() -> new RuleTokenWalk(rules, follow, sorted, vocab.size()));
    IntArrayList todo = new IntArrayList();
    for (int r = 0; r < rules.length; r++) {
      for (int s = 0; s < rules[r].stateCount(); s++) {
        if (rules[r].hasBytes(s)) {
          todo.add(nodeBase[r] + s);
        }
      }
    }
    stackTops = todo.size();
    if (eager) {
      // The nodes are independent: one walker (with its own stack tables) per worker thread.
      AtomicInteger next = new AtomicInteger();
      int workers =
          Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), todo.size() / 4));
      runAll(
          () -> {
            for (int i = next.getAndIncrement(); i < todo.size(); i = next.getAndIncrement()) {
              sets(todo.getInt(i));
            }
          },
          workers);
    }
    this.compileMs = (System.nanoTime() - t0) / 1e6;
  }

  /**
   * Precomputes {@code grammar}'s token sets for {@code vocab}, every stack-top state, now.
   *
   * @throws GrammarLimitException the precomputation met a pathological grammar (a million live
   *     stacks within one token)
   */
  public static CompiledGrammar compile(Grammar grammar, Vocabulary vocab) {
    return new CompiledGrammar(grammar, vocab, true);
  }

  /**
   * As {@link #compile}, but each state's token sets are computed when a matcher first needs them.
   */
  public static CompiledGrammar compileLazily(Grammar grammar, Vocabulary vocab) {
    return new CompiledGrammar(grammar, vocab, false);
  }

  /**
   * The time {@link #precompute()} may spend per token of the vocabulary: 10 ns, a quarter of a
   * DFA's ({@link TokenIndex#PRECOMPUTE_NANOS_PER_TOKEN}). A rule state's first visit costs about
   * what a DFA state's does, but a grammar's masks have to walk uncertain tokens through the stack
   * anyway (XGrammar's p99 per mask on the same grammars is milliseconds), so the compile keeps
   * less of them.
   */
  public static final long PRECOMPUTE_NANOS_PER_TOKEN = 10;

  /** The least time {@link #precompute()} may spend: 1 ms. */
  public static final long PRECOMPUTE_MIN_NANOS = 1_000_000;

  /**
   * Computes stack-top sets breadth first from the root rule's start (through text bytes, into
   * called rules and on to the states after the calls, so in about the order requests reach them)
   * until the time spent here passes {@link #PRECOMPUTE_NANOS_PER_TOKEN} per vocabulary token, at
   * least {@link #PRECOMPUTE_MIN_NANOS} (by at most one state's sets): a small grammar gets every
   * state's sets before its first request, as {@link #compile} would, a large one its first states;
   * the rest are computed on first use as before (the sets are the same either way). One thread.
   * Returns how many stack-top states have their sets now.
   */
  public int precompute() {
    return precompute(Math.max(PRECOMPUTE_MIN_NANOS, PRECOMPUTE_NANOS_PER_TOKEN * vocab.size()));
  }

  /** {@link #precompute()} with a time budget of {@code budgetNanos}. */
  public int precompute(long budgetNanos) {
    long deadline = System.nanoTime() + budgetNanos;
    int nodes = nodeBase[rules.length];
    boolean[] seen = new boolean[nodes];
    int[] queue = new int[nodes];
    int head = 0;
    int tail = 0;
    queue[tail++] = 0;
    seen[0] = true;
    int done = 0;
    while (head < tail) {
      int node = queue[head++];
      int r = ruleOf(node);
      int s = node - nodeBase[r];
      RuleAutomaton a = rules[r];
      if (a.hasBytes(s)) {
        sets(node);
        done++;
        if (System.nanoTime() - deadline >= 0) {
          break;
        }
      }
      for (int w = 0; w < 4; w++) {
        for (long bits = a.byteSets[4 * s + w]; bits != 0; bits &= bits - 1) {
          int t = a.step(s, 64 * w + Long.numberOfTrailingZeros(bits));
          tail = enqueue(nodeBase[r] + t, seen, queue, tail);
        }
      }
      for (int c = a.callStart[s]; c < a.callStart[s + 1]; c++) {
        tail = enqueue(nodeBase[a.callee[c]], seen, queue, tail);
        tail = enqueue(nodeBase[r] + a.callTarget[c], seen, queue, tail);
      }
    }
    return done;
  }

  private static int enqueue(int node, boolean[] seen, int[] queue, int tail) {
    if (!seen[node]) {
      seen[node] = true;
      queue[tail++] = node;
    }
    return tail;
  }

  /**
   * The sets of stack-top node {@code node}, computed on first use: through its loop region when it
   * has one ({@link #regionSets}), else, for a state without calls, block by block of the first
   * byte ({@link RuleTokenWalk#computeByBlocks}: the tokens that stay in the loop one step ahead
   * accepted unwalked), else by walking the vocabulary without the state's own loop tokens.
   */
  RuleTokenWalk.Sets sets(int node) {
    RuleTokenWalk.Sets s = sets.get(node);
    if (s == null) {
      int r = ruleOf(node);
      int state = node - nodeBase[r];
      RuleTokenWalk.Sets fresh = regionSets(r, state);
      if (fresh == null) {
        fresh =
            (rules[r].kind[state] & RuleAutomaton.HAS_CALLS) == 0
                ? walkers.get().computeByBlocks(r, state)
                : walkers.get().compute(r, state, view(rules[r].loopBytes(state)));
      }
      long[] mask = shared.intern(fresh.accepted());
      fresh = new RuleTokenWalk.Sets(mask, fresh.uncertain());
      if (!sets.compareAndSet(node, null, fresh)) {
        fresh = sets.get(node);
      }
      s = fresh;
    }
    return s;
  }

  /**
   * The sets of a state inside a loop of plain text ({@link RuleAutomaton#region}: a string's
   * body), or null when it has no such region or too many tokens hold its exit bytes: the tokens
   * that never leave the region are accepted (its {@link LoopRegion#stay} set, shared per
   * vocabulary and region shape with every DFA and grammar), those holding an exit byte are walked
   * as usual, and the rest die inside the rule.
   */
  private RuleTokenWalk.Sets regionSets(int r, int state) {
    LoopRegion region = rules[r].region(state);
    if (region == null || !TokensByByte.of(sorted).fewHold(region.exits(), vocab.size())) {
      return null;
    }
    VocabView holding = VocabView.holding(sorted, region.exits(), vocab.size());
    return walkers
        .get()
        .compute(r, state, holding.tokens, region.stay(sorted, vocab.size()).clone());
  }

  /**
   * The vocabulary view for a state with loop bytes {@code loop} ({@link RuleAutomaton#loopBytes}):
   * shared per vocabulary and distinct set.
   */
  private VocabView view(long[] loop) {
    return VocabView.of(sorted, loop, vocab.size());
  }

  private int ruleOf(int node) {
    int r = 0;
    while (nodeBase[r + 1] <= node) {
      r++;
    }
    return r;
  }

  /**
   * Runs {@code worker} on {@code n} threads (this one among them) and waits; rethrows the first
   * failure.
   */
  private static void runAll(Runnable worker, int n) {
    Thread[] threads = new Thread[n - 1];
    Throwable[] failure = new Throwable[1];
    for (int i = 0; i < threads.length; i++) {
      threads[i] =
          new Thread(
              () -> {
                try {
                  worker.run();
                } catch (Throwable t) {
                  synchronized (failure) {
                    if (failure[0] == null) {
                      failure[0] = t;
                    }
                  }
                }
              },
              "leap-grammar-compile-" + i);
      threads[i].setDaemon(true);
      threads[i].start();
    }
    worker.run();
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while compiling a grammar", e);
      }
    }
    if (failure[0] instanceof RuntimeException re) {
      throw re;
    } else if (failure[0] instanceof Error err) {
      throw err;
    }
  }

  /** A matcher for one request, with the default work limits. */
  public GrammarMatcher newMatcher() {
    return new GrammarMatcher(this, DEFAULT_MAX_STACK_DEPTH, DEFAULT_MAX_STACKS);
  }

  /** A matcher for one request with the given stack depth and live-stack limits. */
  public GrammarMatcher newMatcher(int maxStackDepth, int maxStacks) {
    if (maxStackDepth < 1 || maxStacks < 1) {
      throw new IllegalArgumentException(
          "limits must be positive: " + maxStackDepth + ", " + maxStacks);
    }
    return new GrammarMatcher(this, maxStackDepth, maxStacks);
  }

  public Grammar grammar() {
    return grammar;
  }

  public Vocabulary vocabulary() {
    return vocab;
  }

  /** Words per mask: {@code ceil(vocabulary size / 64)}. */
  public int maskWords() {
    return words;
  }

  /** Wall time {@link #compile} (or {@link #compileLazily}) took, in milliseconds. */
  public double compileMs() {
    return compileMs;
  }

  /** Stack-top states (rule, state with a byte transition): the states with precomputed sets. */
  public int stackTopStates() {
    return stackTops;
  }

  /**
   * Uncertain tokens summed over the states computed so far (all of them after {@link #compile}).
   */
  public long uncertainTotal() {
    long t = 0;
    for (int i = 0; i < sets.length(); i++) {
      RuleTokenWalk.Sets s = sets.get(i);
      t += s == null ? 0 : s.uncertain().length;
    }
    return t;
  }

  /** The most uncertain tokens of one state computed so far. */
  public int uncertainMax() {
    int m = 0;
    for (int i = 0; i < sets.length(); i++) {
      RuleTokenWalk.Sets s = sets.get(i);
      m = Math.max(m, s == null ? 0 : s.uncertain().length);
    }
    return m;
  }

  /**
   * One line for {@code leap explain}: stack-top states, uncertain tokens total and max, compile
   * time.
   */
  public String describe() {
    return String.format(
        "%d stack-top rule states, uncertain tokens total %d (max %d per state), compiled in %.1f ms",
        stackTops, uncertainTotal(), uncertainMax(), compileMs);
  }
}
