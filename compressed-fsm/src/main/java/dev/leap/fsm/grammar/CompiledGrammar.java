package dev.leap.fsm.grammar;

import dev.leap.fsm.SortedVocabulary;
import dev.leap.fsm.Vocabulary;
import java.util.Arrays;
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
    RuleTokenWalk walk = new RuleTokenWalk(rules, follow, sv, vocab.size());
    Map<MaskKey, long[]> shared = new HashMap<>();
    long total = 0;
    int max = 0;
    int count = 0;
    for (int r = 0; r < rules.length; r++) {
      RuleAutomaton a = rules[r];
      for (int s = 0; s < a.stateCount(); s++) {
        if (!a.hasBytes(s)) {
          continue;
        }
        RuleTokenWalk.Sets sets = walk.compute(r, s);
        int node = nodeBase[r] + s;
        accepted[node] = shared.computeIfAbsent(new MaskKey(sets.accepted()), k -> k.mask);
        uncertain[node] = sets.uncertain();
        total += sets.uncertain().length;
        max = Math.max(max, sets.uncertain().length);
        count++;
      }
    }
    this.uncertainTotal = total;
    this.uncertainMax = max;
    this.nodes = count;
    this.compileMs = (System.nanoTime() - t0) / 1e6;
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
