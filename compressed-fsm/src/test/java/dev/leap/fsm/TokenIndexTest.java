package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.RandomRegex;
import dev.leap.testkit.Shared;
import dev.leap.vocab.TokenizerJsonVocabulary;
import dev.leap.vocab.Vocabulary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * Token masks against a naive twin: walk each token's bytes through the DFA, one token at a time.
 */
class TokenIndexTest {

  /** The naive twin of {@link TokenIndex#allowed}. */
  static long[] naiveMask(Dfa dfa, Vocabulary v, int state) {
    long[] m = new long[(v.size() + 63) >>> 6];
    for (int t = 0; t < v.size(); t++) {
      byte[] b = v.tokenBytes(t);
      if (b == null || b.length == 0) {
        continue;
      }
      int s = state;
      for (int i = 0; i < b.length && s != Dfa.DEAD; i++) {
        s = dfa.step(s, b[i]);
      }
      if (s != Dfa.DEAD) {
        m[t >>> 6] |= 1L << t;
      }
    }
    if (dfa.isAccepting(state)) {
      for (int e : v.eosIds()) {
        m[e >>> 6] |= 1L << e;
      }
    }
    return m;
  }

  static void checkAllStates(CompressedFsm fsm, Vocabulary v, String what, int maxStates) {
    TokenIndex index = TokenIndex.of(fsm.dfa(), v);
    Dfa dfa = fsm.dfa();
    int n = dfa.stateCount();
    int step = Math.max(1, n / maxStates);
    for (int s = 0; s < n; s += step) {
      long[] expected = naiveMask(dfa, v, s);
      assertArrayEquals(expected, index.allowed(s), what + ": mask of state " + s);
      int count = 0;
      for (long w : expected) {
        count += Long.bitCount(w);
      }
      assertEquals(count, index.allowedCount(s), what + ": count of state " + s);
      for (int t = 0; t < v.size(); t++) {
        if ((expected[t >>> 6] & (1L << t)) != 0 && v.tokenBytes(t) != null) {
          assertEquals(dfa.walk(s, v.tokenBytes(t)), index.nextState(s, t), what + ": next state");
        }
      }
    }
  }

  @Test
  void builtInVocabularyOnRandomRegexes() {
    long seed = 77L;
    RandomRegex gen = new RandomRegex(seed);
    Vocabulary v = SmallVocabulary.create();
    for (int i = 0; i < 300; i++) {
      String regex = gen.next(2);
      CompressedFsm fsm;
      try {
        fsm = CompressedFsm.compile(regex, 2000);
      } catch (ConstraintException e) {
        continue;
      }
      checkAllStates(fsm, v, "seed " + seed + " /" + regex + "/", 1000);
    }
  }

  @Test
  void eosOnlyInAcceptingStates() {
    Vocabulary v = SmallVocabulary.create();
    int eos = v.eosIds()[0];
    CompressedFsm fsm = CompressedFsm.compile("ab(c|d)*");
    TokenIndex index = TokenIndex.of(fsm.dfa(), v);
    Dfa dfa = fsm.dfa();
    int s = dfa.walk(0, "ab".getBytes(StandardCharsets.UTF_8));
    assertTrue(index.isAllowed(s, eos));
    assertFalse(index.isAllowed(0, eos));
    assertEquals(Dfa.DEAD, index.nextState(s, eos));
  }

  @Test
  void lazyAndParallelBuildsAgreeAndMasksAreShared() throws Exception {
    Vocabulary v = SmallVocabulary.create();
    CompressedFsm fsm = CompressedFsm.compile("[a-c]{1,6}(x|yz)?");
    TokenIndex eager = TokenIndex.of(fsm.dfa(), v).buildAll();
    TokenIndex lazy = TokenIndex.of(fsm.dfa(), v);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        fs.add(
            pool.submit(
                () -> {
                  for (int s = fsm.stateCount() - 1; s >= 0; s--) {
                    lazy.allowed(s);
                  }
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    for (int s = 0; s < fsm.stateCount(); s++) {
      assertArrayEquals(eager.allowed(s), lazy.allowed(s));
      assertSame(lazy.allowed(s), lazy.allowed(s));
    }
  }

  @Test
  void sglangRegexesOnRealVocabularies() {
    String character = Shared.sglangRegex("character_regex");
    String city = Shared.sglangRegex("city_regex");
    for (String name : new String[] {"gpt2", "llama3", "qwen3"}) {
      Path file = Shared.require("tokenizers/" + name + "/tokenizer.json");
      TokenizerJsonVocabulary v = TokenizerJsonVocabulary.load(file);
      checkAllStates(CompressedFsm.compile(character), v, name + " character", Integer.MAX_VALUE);
      checkAllStates(CompressedFsm.compile(city), v, name + " city", Integer.MAX_VALUE);
    }
  }

  @Test
  void randomRegexesOnRealVocabularies() {
    long seed = 4242L;
    for (String name : new String[] {"gpt2", "llama3", "qwen3"}) {
      Path file = Shared.require("tokenizers/" + name + "/tokenizer.json");
      TokenizerJsonVocabulary v = TokenizerJsonVocabulary.load(file);
      RandomRegex gen = new RandomRegex(seed);
      int done = 0;
      while (done < 50) {
        String regex = gen.next(2);
        CompressedFsm fsm;
        try {
          fsm = CompressedFsm.compile(regex, 2000);
        } catch (ConstraintException e) {
          continue;
        }
        checkAllStates(fsm, v, name + " seed " + seed + " /" + regex + "/", Integer.MAX_VALUE);
        done++;
      }
    }
  }

  /**
   * The self-loop shortcut (tokens made only of a state's self-loop bytes allowed without a walk,
   * the rest walked through a filtered view) against the naive twin, on states with wide
   * self-loops: random regexes inside JSON-string-like, any-character and word-character loops,
   * three real vocabularies. Views are shared per vocabulary, so the same view serves several
   * regexes here.
   */
  @Test
  void selfLoopShortcutOnRealVocabularies() {
    long seed = 2727L;
    String[] templates = {
      "\"([^\"\\\\]|\\\\[\"\\\\nt])*(%s)\"",
      ".*(%s)",
      "[a-zA-Z0-9_ ]+(%s)[^\"]*x",
      "(%s)[^\\x00-\\x1F\"]*\"",
      "[^<]*(%s)<"
    };
    for (String name : new String[] {"gpt2", "llama3", "qwen3"}) {
      Path file = Shared.require("tokenizers/" + name + "/tokenizer.json");
      TokenizerJsonVocabulary v = TokenizerJsonVocabulary.load(file).withEos(0);
      RandomRegex gen = new RandomRegex(seed);
      SplittableRandom rnd = new SplittableRandom(seed);
      int done = 0;
      int wide = 0;
      while (done < 25) {
        String regex = String.format(templates[rnd.nextInt(templates.length)], gen.next(2));
        CompressedFsm fsm;
        try {
          fsm = CompressedFsm.compile(regex, 2000);
        } catch (ConstraintException e) {
          continue;
        }
        Dfa dfa = fsm.dfa();
        for (int st = 0; st < dfa.stateCount(); st++) {
          int loop = 0;
          for (int b = 0; b < 256; b++) {
            loop += dfa.step(st, b) == st ? 1 : 0;
          }
          wide += loop >= dev.leap.fsm.internal.VocabView.MIN_LOOP_BYTES ? 1 : 0;
        }
        checkAllStates(fsm, v, name + " seed " + seed + " /" + regex + "/", Integer.MAX_VALUE);
        done++;
      }
      assertTrue(
          wide >= 25, name + ": the regexes must have states with wide self-loops, got " + wide);
    }
  }

  /**
   * Masks near loops ({@link dev.leap.fsm.internal.LoopRegion}: the tokens that never leave the
   * region shared per vocabulary and region shape, the tokens holding an exit byte walked) against
   * the naive twin, on every state of JSON-like regexes whose strings take any Unicode text
   * (multi-byte characters and escapes inside the loop), arrays of them and random regexes around
   * them, on three real vocabularies; the same region shape recurs within and across the DFAs, so
   * shared stay sets are checked too.
   */
  @Test
  void loopRegionsOnRealVocabularies() {
    String str = "\"([^\"\\\\\\x00-\\x1F]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*\"";
    String[] templates = {
      "\\{\"a\":S,\"b\":S(,\"c\":(%s))?\\}",
      "\\[(S(,S)*)?\\](%s)",
      "(%s)S:[0-9]{1,3}",
      "\\{\"k\":\"[a-z]{0,4}\",\"v\":S\\}(%s)"
    };
    checkOnRealVocabularies(
        3131L,
        8,
        (rnd, gen) ->
            String.format(templates[rnd.nextInt(templates.length)].replace("S", str), gen.next(2)),
        dfa -> {
          int n = 0;
          for (int st = 0; st < dfa.stateCount(); st++) {
            n += dev.leap.fsm.internal.LoopRegion.of(dfa, st) != null ? 1 : 0;
          }
          return n;
        },
        16,
        "states near loops");
  }

  /**
   * Counted loops ({@link dev.leap.fsm.internal.CountedLoop}: strings with a least and a most count
   * of characters, multi-byte characters and escapes counting one, bounded runs of letters and
   * digits) inside random regexes, on three real vocabularies: every state's mask against walking
   * each token. The chains must be found (else the shortcut would go untested).
   */
  @Test
  void countedLoopsOnRealVocabularies() {
    String ch = "([^\"\\\\\\x00-\\x1F]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})";
    String[] templates = {
      "\\{\"a\":\"C\"(,\"b\":(%s))?\\}",
      "\\[\"C\"(,\"C\")*\\](%s)",
      "(%s)\"C\":[0-9]{1,R}",
      "\\{\"k\":\"[a-z]{0,R}\",\"v\":\"C\"\\}(%s)"
    };
    checkOnRealVocabularies(
        5151L,
        4,
        (rnd, gen) -> {
          int least = rnd.nextInt(4);
          String c = ch + "{" + least + "," + (least + 2 + rnd.nextInt(10)) + "}";
          return String.format(
              templates[rnd.nextInt(templates.length)]
                  .replace("C", c)
                  .replace("R", String.valueOf(2 + rnd.nextInt(6))),
              gen.next(2));
        },
        dfa -> {
          dev.leap.fsm.internal.CountedLoop.Finder finder =
              dev.leap.fsm.internal.CountedLoop.finder(dfa);
          int n = 0;
          for (int st = 0; st < dfa.stateCount(); st++) {
            n += finder.of(st) != null ? 1 : 0;
          }
          return n;
        },
        12,
        "counted loops");
  }

  /**
   * On GPT-2, Llama 3 and Qwen3: {@code dfas} regexes drawn by {@code regex} from generators seeded
   * with {@code seed} (those that do not compile within 2,000 states are drawn again), every
   * state's mask against the naive twin; {@code found} (the states the shortcut under test applies
   * to) must count at least {@code least} over them, or the shortcut would go untested.
   */
  private static void checkOnRealVocabularies(
      long seed,
      int dfas,
      BiFunction<SplittableRandom, RandomRegex, String> regex,
      ToIntFunction<Dfa> found,
      int least,
      String what) {
    for (String name : new String[] {"gpt2", "llama3", "qwen3"}) {
      Path file = Shared.require("tokenizers/" + name + "/tokenizer.json");
      TokenizerJsonVocabulary v = TokenizerJsonVocabulary.load(file).withEos(0);
      RandomRegex gen = new RandomRegex(seed);
      SplittableRandom rnd = new SplittableRandom(seed);
      int count = 0;
      int done = 0;
      while (done < dfas) {
        String r = regex.apply(rnd, gen);
        CompressedFsm fsm;
        try {
          fsm = CompressedFsm.compile(r, 2000);
        } catch (ConstraintException e) {
          continue;
        }
        count += found.applyAsInt(fsm.dfa());
        checkAllStates(fsm, v, name + " seed " + seed + " /" + r + "/", Integer.MAX_VALUE);
        done++;
      }
      assertTrue(count >= least, name + ": the regexes must have " + what + ", got " + count);
    }
  }

  /**
   * {@link TokenIndex#precompute}: with no time the initial state's mask only, with unbounded time
   * every state's (all are reachable in a minimal DFA), and the masks it computed equal the naive
   * twin's; an index that precomputed and one that computes on first use agree.
   */
  @Test
  void precomputeIsBreadthFirstAndChangesNoMask() {
    Vocabulary v = SmallVocabulary.create();
    CompressedFsm fsm =
        CompressedFsm.compile("\\{\"a\":(\"[^\"]*\"|[0-9]{1,4}),\"b\":(true|false)\\}");
    Dfa dfa = fsm.dfa();
    assertEquals(1, TokenIndex.of(dfa, v).precompute(0));
    TokenIndex all = TokenIndex.of(dfa, v);
    assertEquals(dfa.stateCount(), all.precompute(Long.MAX_VALUE));
    TokenIndex lazy = TokenIndex.of(dfa, v);
    for (int s = 0; s < dfa.stateCount(); s++) {
      assertArrayEquals(naiveMask(dfa, v, s), all.allowed(s), "state " + s);
      assertArrayEquals(lazy.allowed(s), all.allowed(s), "state " + s);
    }
  }
}
