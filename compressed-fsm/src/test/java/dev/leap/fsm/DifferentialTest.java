package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.RandomRegex;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The DFA's full-match answer equals {@code java.util.regex}'s {@code matches()} on thousands of
 * random regexes over the whole dialect, with strings drawn from the DFA (matches), mutated from
 * those, and drawn at random. Dialect translation: see {@link RandomRegex#toJava}.
 */
class DifferentialTest {

  /** Bounds Java's backtracking: throws after too many character reads. */
  static final class Budget implements CharSequence {
    final String s;
    final int[] left;

    Budget(String s, int[] left) {
      this.s = s;
      this.left = left;
    }

    @Override
    public int length() {
      return s.length();
    }

    @Override
    public char charAt(int i) {
      if (--left[0] < 0) {
        throw new IllegalStateException("budget");
      }
      return s.charAt(i);
    }

    @Override
    public CharSequence subSequence(int a, int b) {
      return new Budget(s.substring(a, b), left);
    }

    @Override
    public String toString() {
      return s;
    }
  }

  @Test
  void dfaAgreesWithJavaRegexOnRandomRegexes() {
    long seed = 0x1EA9L;
    RandomRegex gen = new RandomRegex(seed);
    int regexes = 0;
    int checks = 0;
    int matches = 0;
    int skipped = 0;
    int tooLarge = 0;
    while (regexes < 2500) {
      String regex = gen.next(1 + gen.random().nextInt(3));
      regexes++;
      CompressedFsm fsm;
      try {
        fsm = CompressedFsm.compile(regex, 5_000);
      } catch (EmptyLanguageException e) {
        continue;
      } catch (AutomatonTooLargeException e) {
        tooLarge++;
        continue;
      }
      Pattern java = RandomRegex.toJava(regex);
      for (int i = 0; i < 12; i++) {
        String s;
        if (i < 5) {
          s = gen.sampleMatch(walk(fsm.dfa()), 40);
          if (s == null) {
            continue;
          }
        } else if (i < 8) {
          String m = gen.sampleMatch(walk(fsm.dfa()), 40);
          s = gen.mutate(m == null ? "" : m);
        } else {
          s = gen.sampleRandom(8);
        }
        boolean expected;
        try {
          expected = java.matcher(new Budget(s, new int[] {2_000_000})).matches();
        } catch (IllegalStateException e) {
          skipped++;
          continue;
        }
        boolean actual = fsm.dfa().matches(s.getBytes(StandardCharsets.UTF_8));
        assertEquals(
            expected, actual, () -> "seed " + seed + ": regex /" + regex + "/ on \"" + s + "\"");
        checks++;
        matches += actual ? 1 : 0;
      }
    }
    System.out.printf(
        "differential: %d regexes, %d checks (%d matches), %d skipped (Java backtracking budget), %d over the state limit%n",
        regexes, checks, matches, skipped, tooLarge);
    assertTrue(matches > checks / 4, "too few matches drawn: " + matches + " of " + checks);
  }

  /** The DFA as testkit's random walk sees it. */
  static RandomRegex.Automaton walk(Dfa dfa) {
    return RandomRegex.automaton(dfa.initialState(), dfa::isAccepting, dfa::step);
  }
}
