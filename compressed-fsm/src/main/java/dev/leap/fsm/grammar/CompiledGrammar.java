package dev.leap.fsm.grammar;

import dev.leap.fsm.SortedVocabulary;
import dev.leap.fsm.Vocabulary;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link Grammar} compiled against one vocabulary: for every (compiled rule, state) that can be a
 * stack top (a state with a byte transition), the tokens accepted whatever the stack below, and the
 * uncertain ones that run past the rule's end ({@link RuleTokenWalk}); plus each rule's FOLLOW bytes
 * ({@link FollowBytes}). Everything here is computed once, in {@link #compile}, and shared by every
 * request using the grammar with this vocabulary; each request gets its own {@link GrammarMatcher}.
 *
 * <p>Immutable and thread-safe. Identical accepted sets are stored once.
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
  /** Per node: accepted token bitset, or null where the node has no byte transition. */
  final long[][] accepted;
  /** Per node: uncertain token ids, or null. */
  final int[][] uncertain;
  final byte[][] tokenBytes;
  final int[] eos;
  final int words;
  private final double compileMs;
  private final long uncertainTotal;
  private final int uncertainMax;
  private final int nodes;

  private CompiledGrammar(Grammar grammar, Vocabulary vocab) {
    long t0 = System.nanoTime();
    this.grammar = grammar;
    this.vocab = vocab;
    this.rules = grammar.automata();
    this.words = (vocab.size() + 63) >>> 6;
    SortedVocabulary sv = SortedVocabulary.of(vocab);
    this.tokenBytes = sv.tokenBytes();
    int[] e = vocab.eosIds();
    this.eos = e == null ? new int[0] : e.clone();
    nodeBase = new int[rules.length + 1];
    for (int k = 0; k < rules.length; k++) {
      nodeBase[k + 1] = nodeBase[k] + rules[k].stateCount();
    }
    accepted = new long[nodeBase[rules.length]][];
    uncertain = new int[nodeBase[rules.length]][];
    long[][] follow = FollowBytes.of(rules);
    IntArrayList todo = new IntArrayList();
    for (int r = 0; r < rules.length; r++) {
      for (int s = 0; s < rules[r].stateCount(); s++) {
        if (rules[r].hasBytes(s)) {
          todo.add(nodeBase[r] + s);
        }
      }
    }
    // The nodes are independent: one walker (with its own stack tables) per worker thread.
    RuleTokenWalk.Sets[] results = new RuleTokenWalk.Sets[todo.size()];
    AtomicInteger next = new AtomicInteger();
    int workers = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), todo.size() / 4));
    Runnable worker = () -> {
      RuleTokenWalk walk = new RuleTokenWalk(rules, follow, sv, vocab.size());
      for (int i = next.getAndIncrement(); i < results.length; i = next.getAndIncrement()) {
        int node = todo.getInt(i);
        int r = ruleOf(node);
        results[i] = walk.compute(r, node - nodeBase[r]);
      }
    };
    runAll(worker, workers);
    Map<MaskKey, long[]> shared = new HashMap<>();
    long total = 0;
    int max = 0;
    for (int i = 0; i < results.length; i++) {
      int node = todo.getInt(i);
      RuleTokenWalk.Sets sets = results[i];
      accepted[node] = shared.computeIfAbsent(new MaskKey(sets.accepted()), k -> k.mask);
      uncertain[node] = sets.uncertain();
      total += sets.uncertain().length;
      max = Math.max(max, sets.uncertain().length);
    }
    int count = results.length;
    this.uncertainTotal = total;
    this.uncertainMax = max;
    this.nodes = count;
    this.compileMs = (System.nanoTime() - t0) / 1e6;
  }

  private int ruleOf(int node) {
    int r = 0;
    while (nodeBase[r + 1] <= node) {
      r++;
    }
    return r;
  }

  /** Runs {@code worker} on {@code n} threads (this one among them) and waits; rethrows the first failure. */
  private static void runAll(Runnable worker, int n) {
    Thread[] threads = new Thread[n - 1];
    Throwable[] failure = new Throwable[1];
    for (int i = 0; i < threads.length; i++) {
      threads[i] = new Thread(() -> {
        try {
          worker.run();
        } catch (Throwable t) {
          synchronized (failure) {
            if (failure[0] == null) {
              failure[0] = t;
            }
          }
        }
      }, "leap-grammar-compile-" + i);
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

  /**
   * Precomputes {@code grammar}'s token sets for {@code vocab}.
   *
   * @throws GrammarLimitException the precomputation met a pathological grammar (a million live
   *     stacks within one token)
   */
  public static CompiledGrammar compile(Grammar grammar, Vocabulary vocab) {
    return new CompiledGrammar(grammar, vocab);
  }

  /** A matcher for one request, with the default work limits. */
  public GrammarMatcher newMatcher() {
    return new GrammarMatcher(this, DEFAULT_MAX_STACK_DEPTH, DEFAULT_MAX_STACKS);
  }

  /** A matcher for one request with the given stack depth and live-stack limits. */
  public GrammarMatcher newMatcher(int maxStackDepth, int maxStacks) {
    if (maxStackDepth < 1 || maxStacks < 1) {
      throw new IllegalArgumentException("limits must be positive: " + maxStackDepth + ", " + maxStacks);
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

  /** Wall time {@link #compile} took, in milliseconds. */
  public double compileMs() {
    return compileMs;
  }

  /** Stack-top nodes (rule, state) with precomputed sets. */
  public int precomputedStates() {
    return nodes;
  }

  /** Uncertain tokens summed over all precomputed states. */
  public long uncertainTotal() {
    return uncertainTotal;
  }

  /** The most uncertain tokens of one precomputed state. */
  public int uncertainMax() {
    return uncertainMax;
  }

  /** One line for {@code leap explain}: states, uncertain tokens total and max, compile time. */
  public String describe() {
    return String.format("%d precomputed rule states, uncertain tokens total %d (max %d per state), compiled in %.1f ms",
        nodes, uncertainTotal, uncertainMax, compileMs);
  }

  private record MaskKey(long[] mask) {
    @Override
    public boolean equals(Object o) {
      return o instanceof MaskKey k && Arrays.equals(k.mask, mask);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(mask);
    }
  }
}
