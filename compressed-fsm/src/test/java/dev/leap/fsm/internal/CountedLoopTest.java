package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.Shared;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.TokenizerJsonVocabulary;
import org.junit.jupiter.api.Test;

/**
 * {@link CountedLoop}: a string of at most {@code n} characters is the string body's loop with a
 * budget of {@code n, n - 1, ..., 0} along the chain, sharing the unbounded string's loop shape; a
 * loop itself and a chain that is not one loop unrolled are not counted loops; the stay set cut at
 * a budget against each token's iterations counted alone. The masks built from it are checked
 * against walking every token in {@code TokenIndexTest.countedLoopsOnRealVocabularies}.
 */
class CountedLoopTest {
  private static final String CHAR =
      "([^\"\\\\\\x00-\\x1F]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})";

  @Test
  void aBoundedStringIsTheStringLoopWithABudget() {
    Dfa counted = CompressedFsm.compile("\"" + CHAR + "{0,6}\"").dfa();
    Dfa open = CompressedFsm.compile("\"" + CHAR + "*\"").dfa();
    CountedLoop.Finder finder = CountedLoop.finder(counted);
    int q = counted.step(counted.initialState(), '"');
    LoopRegion body = LoopRegion.of(open, open.step(open.initialState(), '"'));
    assertNotNull(body);
    for (int left = 6; left >= 2; left--) {
      CountedLoop c = finder.of(q);
      assertNotNull(c, left + " characters left");
      assertEquals(left, c.budget());
      assertEquals(body, c.loop(), "the unbounded string's loop");
      // One character of each kind takes one iteration: a letter, an escape, two bytes of UTF-8.
      int next = left % 3 == 0 ? counted.walk(q, "\\n".getBytes()) : counted.step(q, 'a');
      if (left % 3 == 1) {
        next = counted.walk(q, "\u00e9".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      q = next;
    }
    // The open string's own states are loops, not counted ones.
    CountedLoop.Finder openFinder = CountedLoop.finder(open);
    for (int s = 0; s < open.stateCount(); s++) {
      assertNull(openFinder.of(s), "state " + s + " of an unbounded string");
    }
  }

  @Test
  void aChainOfDifferentStepsIsNotCounted() {
    // Letters, then digits, then letters: each state's successor has other live bytes.
    Dfa dfa = CompressedFsm.compile("\"[a-z][0-9][a-z][0-9]\"").dfa();
    CountedLoop.Finder finder = CountedLoop.finder(dfa);
    for (int s = 0; s < dfa.stateCount(); s++) {
      assertNull(finder.of(s), "state " + s);
    }
  }

  @Test
  void stayWithinABudgetAgainstCountingEachToken() {
    TokenizerJsonVocabulary v =
        TokenizerJsonVocabulary.load(Shared.require("tokenizers/llama3/tokenizer.json"));
    SortedVocabulary sv = SortedVocabulary.of(v);
    Dfa counted = CompressedFsm.compile("\"" + CHAR + "{0,40}\"").dfa();
    CountedLoop.Finder finder = CountedLoop.finder(counted);
    int q = counted.step(counted.initialState(), '"');
    for (int left = 40; left > 0; left = left > 8 ? left - 8 : left - 1) {
      CountedLoop c = finder.of(q);
      assertEquals(left, c.budget());
      long[] stay = c.loop().stay(sv, v.size());
      long[] expected = new long[stay.length];
      for (int t = 0; t < v.size(); t++) {
        byte[] b = v.tokenBytes(t);
        boolean in = (stay[t >>> 6] & (1L << t)) != 0;
        if (in && b != null && CountedLoop.iterations(c.loop(), b) <= left) {
          expected[t >>> 6] |= 1L << t;
        }
      }
      assertArrayEquals(expected, c.stay(sv, v.size()), left + " characters left");
      for (int i = 0; i < (left > 8 ? 8 : 1); i++) {
        q = counted.step(q, 'x');
      }
    }
  }
}
