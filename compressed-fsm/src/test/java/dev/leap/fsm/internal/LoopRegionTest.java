package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.Shared;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopRegion}: its stay set against a naive twin (each token walked alone through the
 * region's own table), its shape shared by states with the same loops in different DFAs, and its
 * exit bytes. The masks built from it are checked against walking every token in {@code
 * TokenIndexTest.loopRegionsOnRealVocabularies}.
 */
class LoopRegionTest {
  private static final String STR =
      "\"([^\"\\\\\\x00-\\x1F]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*\"";

  /** The naive twin of {@link LoopRegion#computeStay}: every token walked alone. */
  static long[] naiveStay(LoopRegion r, TokenizerJsonVocabulary v) {
    long[] m = new long[(v.size() + 63) >>> 6];
    for (int t = 0; t < v.size(); t++) {
      byte[] b = v.tokenBytes(t);
      if (b == null || b.length == 0) {
        continue;
      }
      int q = 0;
      for (int i = 0; i < b.length && q >= 0; i++) {
        q = r.target(q, b[i] & 0xFF);
      }
      if (q >= 0) {
        m[t >>> 6] |= 1L << t;
      }
    }
    return m;
  }

  @Test
  void stringBodiesShareOneRegionAcrossDfas() {
    TokenizerJsonVocabulary v =
        TokenizerJsonVocabulary.load(Shared.require("tokenizers/llama3/tokenizer.json"));
    SortedVocabulary sorted = SortedVocabulary.of(v);
    Dfa a = CompressedFsm.compile("\\{\"a\":" + STR + ",\"b\":[0-9]+\\}").dfa();
    Dfa b = CompressedFsm.compile("\\[(" + STR + "(," + STR + ")*)?\\]x").dfa();
    int inA = a.walk(0, "{\"a\":\"h".getBytes(StandardCharsets.UTF_8));
    int inB = b.walk(0, "[\"h".getBytes(StandardCharsets.UTF_8));
    LoopRegion ra = LoopRegion.of(a, inA);
    LoopRegion rb = LoopRegion.of(b, inB);
    assertNotNull(ra);
    assertNotNull(rb);
    // Inside a string the only exit is the closing quote, in an object or an array of strings
    // alike: the array's loop passes through quotes and is not part of the region.
    assertArrayEquals(new long[] {1L << '"', 0, 0, 0}, ra.exits());
    assertArrayEquals(new long[] {1L << '"', 0, 0, 0}, rb.exits());
    assertEquals(ra, rb);
    assertTrue(ra.size() >= 8, "the body, UTF-8 and escape states: " + ra.size());
    // The same string body in another object: the same shape, the same shared stay set.
    Dfa c = CompressedFsm.compile("\\{\"zz\":" + STR + "\\}").dfa();
    LoopRegion rc = LoopRegion.of(c, c.walk(0, "{\"zz\":\"".getBytes(StandardCharsets.UTF_8)));
    LoopRegion rc2 =
        LoopRegion.of(c, c.walk(0, "{\"zz\":\"\u00e9".getBytes(StandardCharsets.UTF_8)));
    assertEquals(ra, rc2);
    assertSame(ra.stay(sorted, v.size()), rc2.stay(sorted, v.size()));
    // Right after the opening quote the minimal DFA is already in the body's loop state.
    assertEquals(ra, rc);
    // With a minimum length the state after the quote is outside the loop: it and the body.
    Dfa m = CompressedFsm.compile("\"[^\"]{2,}\"").dfa();
    LoopRegion rm = LoopRegion.of(m, m.walk(0, "\"a".getBytes(StandardCharsets.UTF_8)));
    assertNotNull(rm);
    assertEquals(-1, rm.target(0, '"'), "a quote after one character is not in the region");
    for (LoopRegion r : new LoopRegion[] {ra, rb, rc, rm}) {
      assertArrayEquals(naiveStay(r, v), r.computeStay(sorted, v.size()));
    }
  }

  @Test
  void noRegionWithoutALoopNearby() {
    Dfa d = CompressedFsm.compile("abcdef[0-9]{2}x*").dfa();
    assertNull(LoopRegion.of(d, 0), "no loop within one step of the start, nor five sole steps");
    int nearLoop = d.walk(0, "abcdef12".getBytes(StandardCharsets.UTF_8));
    assertNotNull(LoopRegion.of(d, nearLoop));
    int chainToLoop = d.walk(0, "abcde".getBytes(StandardCharsets.UTF_8));
    assertNotNull(LoopRegion.of(d, chainToLoop), "f, then a digit: two sole steps to the loop");
  }

  /**
   * Inside a JSON Unicode escape each digit's state leads to one state only: its region is that
   * chain and the string's body, left on the closing quote alone.
   */
  @Test
  void escapeDigitsTakeTheStringBody() {
    Dfa d = CompressedFsm.compile(STR).dfa();
    int[] at = {
      d.walk(0, "\"ab\\u".getBytes(StandardCharsets.UTF_8)),
      d.walk(0, "\"ab\\u0".getBytes(StandardCharsets.UTF_8)),
      d.walk(0, "\"ab\\u00e".getBytes(StandardCharsets.UTF_8))
    };
    for (int s : at) {
      LoopRegion r = LoopRegion.of(d, s);
      assertNotNull(r, "state " + s);
      long[] quote = new long[4];
      quote['"' >>> 6] |= 1L << '"';
      assertArrayEquals(quote, r.exits(), "state " + s);
    }
  }

  /**
   * The canonical form against the DFA it came from, for every state of seeded random regexes with
   * loops: numbering region states breadth first over bytes 0-255 from 0 (as the form says), each
   * byte's target is the DFA's step mapped to that numbering, -1 exactly where the DFA leaves the
   * region (dead, or live outside it: then the byte is an exit); and two regions are equal exactly
   * when their tables are.
   */
  @Test
  void canonicalFormAgreesWithTheDfa() {
    SplittableRandom rnd = new SplittableRandom(2711);
    String[] parts = {"[a-z]", "[0-9]", "x", "\\\\", "[^\"]", "é", "(ab|c)", "[a-f0-9]"};
    List<LoopRegion> seen = new ArrayList<>();
    int checked = 0;
    for (int k = 0; k < 40; k++) {
      StringBuilder re = new StringBuilder("\"");
      for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
        re.append('(').append(parts[rnd.nextInt(parts.length)]);
        re.append('|').append(parts[rnd.nextInt(parts.length)]).append(")*");
        re.append(parts[rnd.nextInt(parts.length)]);
      }
      re.append("\"").append(rnd.nextBoolean() ? "," + STR : "");
      Dfa d = CompressedFsm.compile(re.toString()).dfa();
      LoopRegion.Finder f = LoopRegion.finder(d);
      for (int s = 0; s < d.stateCount(); s++) {
        LoopRegion r = f.of(s);
        if (r == null) {
          continue;
        }
        int[] state = new int[r.size()];
        Arrays.fill(state, -1);
        state[0] = s;
        int numbered = 1;
        for (int q = 0; q < numbered; q++) {
          for (int b = 0; b < 256; b++) {
            int t = r.target(q, b);
            int real = d.step(state[q], b);
            if (t < 0) {
              boolean exit = (r.exits()[b >>> 6] & (1L << b)) != 0;
              boolean inside = false;
              for (int x = 0; x < numbered; x++) {
                inside |= state[x] == real;
              }
              assertTrue(real == Dfa.DEAD || exit, "state " + s + " byte " + b);
              assertTrue(!inside || real == Dfa.DEAD || exit, "state " + s + " byte " + b);
            } else {
              if (t == numbered) {
                state[numbered++] = real;
              }
              assertTrue(t < numbered, "breadth-first numbering, state " + s + " byte " + b);
              assertEquals(state[t], real, "state " + s + " byte " + b);
            }
          }
        }
        assertEquals(r.size(), numbered, "every region state numbered, state " + s);
        for (LoopRegion o : seen) {
          assertEquals(sameTable(o, r), o.equals(r), "equality is the table's, state " + s);
        }
        if (seen.size() < 200) {
          seen.add(r);
        }
        checked++;
      }
    }
    assertTrue(checked > 100, "regions checked: " + checked);
  }

  private static boolean sameTable(LoopRegion a, LoopRegion b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int q = 0; q < a.size(); q++) {
      for (int x = 0; x < 256; x++) {
        if (a.target(q, x) != b.target(q, x)) {
          return false;
        }
      }
    }
    return true;
  }
}
