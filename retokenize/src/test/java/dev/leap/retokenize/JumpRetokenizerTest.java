package dev.leap.retokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.TokenIndex;
import dev.leap.testkit.RandomRegex;
import dev.leap.testkit.Shared;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Jump scenarios: texts drawn from a constraint's DFA are tokenized canonically (as a model trained
 * on canonical tokenization writes them) and replayed token by token; wherever the DFA has a jump,
 * the planner runs on the output so far. After every jump: the DFA state equals the walk of the
 * committed bytes, the committed bytes are the old output plus a prefix of the jump string, and
 * every committed token is allowed by the token index from the state before it. Measured: the share
 * of jumps whose committed tokens are a prefix of the canonical tokenization (healing on and off).
 * The bounded window is checked against re-encoding the whole output.
 */
class JumpRetokenizerTest {

  static final class Tally {
    int jumps;
    int planned;
    int canonical;
    int windowAgrees;
  }

  static String codePointsAtLeast2(byte[] jump) {
    int n = 0;
    for (byte b : jump) {
      if ((b & 0xC0) != 0x80) {
        n++;
      }
    }
    return n > 1 ? "" : null;
  }

  static void replay(
      Tokenizer tok,
      CompressedFsm fsm,
      TokenIndex index,
      String text,
      boolean healing,
      Tally tally,
      String what) {
    Dfa dfa = fsm.dfa();
    int[] canon = tok.encode(text);
    assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), tok.bytes(canon, 0, canon.length));
    JumpRetokenizer retok = new JumpRetokenizer(tok, dfa, healing);
    JumpRetokenizer naive = new JumpRetokenizer(tok, dfa, false, Integer.MAX_VALUE);
    JumpRetokenizer windowed = healing ? new JumpRetokenizer(tok, dfa, false) : retok;
    int[] states = new int[canon.length + 1];
    states[0] = dfa.initialState();
    for (int i = 0; i <= canon.length; i++) {
      if (i > 0) {
        states[i] = dfa.walk(states[i - 1], tok.tokenBytes(canon[i - 1]));
        if (states[i] == Dfa.DEAD) {
          return; // the canonical tokens pass through a state only a different split reaches: rare,
          // skip
        }
      }
      int state = states[i];
      byte[] jump = fsm.jumpBytes(state);
      if (jump.length == 0 || codePointsAtLeast2(jump) == null) {
        continue;
      }
      tally.jumps++;
      JumpPlan plan = retok.plan(canon, i, states, jump);
      // Window against the whole output (no healing in either): same resulting tokens.
      JumpPlan a = windowed.plan(canon, i, states, jump);
      JumpPlan b = naive.plan(canon, i, states, jump);
      if (a != null && b != null && Arrays.equals(result(canon, a), result(canon, b))) {
        tally.windowAgrees++;
      } else if (a == null && b == null) {
        tally.windowAgrees++;
      }
      if (plan == null) {
        continue;
      }
      tally.planned++;
      int[] committed = result(canon, plan);
      byte[] before = tok.bytes(canon, 0, i);
      byte[] expectBytes = Arrays.copyOf(before, before.length + plan.jumpedBytes());
      System.arraycopy(jump, 0, expectBytes, before.length, plan.jumpedBytes());
      assertArrayEquals(
          expectBytes, tok.bytes(committed, 0, committed.length), what + ": committed bytes");
      assertEquals(
          dfa.walk(dfa.initialState(), expectBytes),
          plan.stateAfter(),
          what + ": DFA state after the jump");
      assertEquals(jump.length - plan.jumpedBytes(), plan.heldBackBytes());
      int s = states[plan.keep()];
      for (int t : plan.append()) {
        assertTrue(
            index.isAllowed(s, t), what + ": appended token " + t + " not allowed in state " + s);
        s = index.nextState(s, t);
      }
      assertEquals(plan.stateAfter(), s);
      if (committed.length <= canon.length
          && Arrays.equals(committed, Arrays.copyOf(canon, committed.length))) {
        tally.canonical++;
      }
    }
  }

  static double share(Tally t) {
    return (double) t.canonical / t.planned;
  }

  static int[] result(int[] output, JumpPlan p) {
    int[] r = Arrays.copyOf(output, p.keep() + p.append().length);
    System.arraycopy(p.append(), 0, r, p.keep(), p.append().length);
    return r;
  }

  /** The project's own fixed regexes. */
  static List<String> ownRegexes() {
    List<String> regexes = new ArrayList<>();
    regexes.add("\\{\"name\": \"[a-z ]{1,12}\", \"age\": [0-9]{1,3}, \"ok\": (true|false)\\}");
    regexes.add("(SELECT|UPDATE) [a-z]+ FROM users WHERE id = [0-9]+;");
    return regexes;
  }

  /**
   * SGLang's two benchmark regexes, from {@code ../shared} (the test is skipped where it is
   * absent).
   */
  static List<String> sglangRegexes() {
    return List.of(Shared.sglangRegex("character_regex"), Shared.sglangRegex("city_regex"));
  }

  static Tally run(
      Tokenizer tok, boolean healing, long seed, List<String> fixed, int randomRegexes) {
    Tally tally = new Tally();
    SplittableRandom rnd = new SplittableRandom(seed);
    RandomRegex gen = new RandomRegex(seed);
    List<String> regexes = new ArrayList<>(fixed);
    int random = 0;
    while (random < randomRegexes) {
      String r = gen.next(2);
      try {
        CompressedFsm f = CompressedFsm.compile(r, 2000);
        boolean hasJump = false;
        for (int s = 0; s < f.stateCount(); s++) {
          hasJump |= f.jumpBytes(s).length > 1;
        }
        if (hasJump) {
          regexes.add(r);
          random++;
        }
      } catch (ConstraintException e) {
        // skip
      }
    }
    for (String regex : regexes) {
      CompressedFsm fsm = CompressedFsm.compile(regex);
      TokenIndex index = TokenIndex.of(fsm.dfa(), tok);
      int samples = regex.length() > 100 ? 60 : 15;
      for (int i = 0; i < samples; i++) {
        String text = gen.sampleMatch(walk(fsm.dfa()), 400);
        if (text == null) {
          continue;
        }
        replay(
            tok, fsm, index, text, healing, tally, "seed " + seed + " /" + regex + "/ on " + text);
      }
    }
    return tally;
  }

  @Test
  void jumpScenariosKeepTheInvariantsAndMeasureCanonicalShare() {
    checkGpt2(ownRegexes(), 40, 300, "own and random regexes");
  }

  @Test
  void sglangBenchmarkRegexesKeepTheInvariants() {
    checkGpt2(sglangRegexes(), 0, 500, "SGLang's regexes");
  }

  static void checkGpt2(List<String> fixed, int randomRegexes, int minJumps, String what) {
    Tokenizer tok = Tokenizer.gpt2();
    long seed = 2024L;
    Tally on = run(tok, true, seed, fixed, randomRegexes);
    Tally off = run(tok, false, seed, fixed, randomRegexes);
    System.out.printf(
        "jump retokenization (GPT-2, %s): %d jumps; planned %d with healing, %d without;"
            + " canonical %.1f%% with healing, %.1f%% without; window agrees with full re-encode in %d of %d%n",
        what,
        on.jumps,
        on.planned,
        off.planned,
        100.0 * on.canonical / on.planned,
        100.0 * off.canonical / off.planned,
        off.windowAgrees,
        off.jumps);
    assertTrue(on.jumps > minJumps, "too few jump cases: " + on.jumps);
    assertEquals(off.jumps, off.windowAgrees, "bounded window disagrees with the full re-encode");
    assertTrue(share(on) > share(off), "healing did not make forced tokens more canonical");
  }

  @Test
  void jumpScenariosOnLlama3() {
    Tokenizer tok = HfTokenizer.load(Shared.require("tokenizers/llama3/tokenizer.json"));
    long seed = 7L;
    List<String> fixed = new ArrayList<>(sglangRegexes());
    fixed.addAll(ownRegexes());
    Tally on = run(tok, true, seed, fixed, 40);
    Tally off = run(tok, false, seed, fixed, 40);
    System.out.printf(
        "jump retokenization (Llama 3): %d jumps; canonical %.1f%% with healing, %.1f%% without;"
            + " window agrees with full re-encode in %d of %d%n",
        on.jumps,
        100.0 * on.canonical / on.planned,
        100.0 * off.canonical / off.planned,
        off.windowAgrees,
        off.jumps);
    assertEquals(off.jumps, off.windowAgrees, "bounded window disagrees with the full re-encode");
    assertTrue(share(on) > share(off), "healing did not make forced tokens more canonical");
  }

  /** The DFA as testkit's random walk sees it. */
  static RandomRegex.Automaton walk(Dfa dfa) {
    return RandomRegex.automaton(dfa.initialState(), dfa::isAccepting, dfa::step);
  }
}
