package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.Shared;
import dev.leap.vocab.SkipLinks;
import dev.leap.vocab.SortedTokens;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.TokenizerJsonVocabulary;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BlockView}: every block's range holds exactly the tokens with that first byte, and a split
 * (one pass) equals its naive twin: the block's tokens filtered one by one on their bytes after the
 * first, the rest's links computed from neighbours' bytes ({@link SkipLinks#of}). Real
 * vocabularies, the identifier set and seeded random sets of every density.
 */
class BlockViewTest {

  @ParameterizedTest
  @ValueSource(strings = {"gpt2", "llama3", "qwen3"})
  void splitsEqualTheNaiveFilter(String name) {
    TokenizerJsonVocabulary v =
        TokenizerJsonVocabulary.load(Shared.require("tokenizers/" + name + "/tokenizer.json"));
    SortedVocabulary sorted = SortedVocabulary.of(v);
    int covered = 0;
    for (int b = 0; b < 256; b++) {
      BlockView r = BlockView.range(sorted, b);
      for (int j = r.lo; j < r.hi; j++) {
        assertEquals(b, sorted.bytesAt(j)[0] & 0xFF);
      }
      covered += r.hi - r.lo;
    }
    assertEquals(sorted.size(), covered, "the blocks cover the sorted vocabulary");
    SplittableRandom random = new SplittableRandom(25);
    for (int c = 0; c < 40; c++) {
      long[] set = new long[4];
      if (c == 0) {
        for (char ch :
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".toCharArray()) {
          set[ch >>> 6] |= 1L << ch;
        }
      } else {
        int density = random.nextInt(2, 16);
        for (int x = 0; x < 256; x++) {
          if (random.nextInt(16) < density) {
            set[x >>> 6] |= 1L << x;
          }
        }
      }
      int first = c < 4 ? " \"ab".charAt(c) : random.nextInt(256);
      BlockView r = BlockView.range(sorted, first);
      if (r.lo == r.hi) {
        continue;
      }
      BlockView fast = BlockView.split(sorted, r, set);
      IntArrayList in = new IntArrayList();
      IntArrayList rest = new IntArrayList();
      for (int j = r.lo; j < r.hi; j++) {
        byte[] t = sorted.bytesAt(j);
        boolean all = true;
        for (int i = 1; i < t.length && all; i++) {
          all = (set[(t[i] & 0xFF) >>> 6] & (1L << t[i])) != 0;
        }
        (all ? in : rest).add(sorted.ids()[j]);
      }
      String where = name + " first byte " + first + " set " + c;
      assertArrayEquals(in.toIntArray(), fast.loopOnly, where);
      assertArrayEquals(rest.toIntArray(), fast.tokens.ids(), where);
      SkipLinks naive = SkipLinks.of(rest.toIntArray(), sorted.tokenBytes());
      assertArrayEquals(naive.lcp(), fast.tokens.links().lcp(), where);
      assertArrayEquals(naive.skip1(), fast.tokens.links().skip1(), where);
      assertArrayEquals(naive.skip2(), fast.tokens.links().skip2(), where);
      SortedTokens naiveTokens = SortedTokens.of(rest.toIntArray(), sorted.tokenBytes(), naive);
      assertArrayEquals(naiveTokens.bytes(), fast.tokens.bytes(), where);
      assertArrayEquals(naiveTokens.start(), fast.tokens.start(), where);
      long[] mask = new long[(v.size() + 63) >>> 6];
      fast.addLoopOnly(mask);
      int bits = 0;
      for (long w : mask) {
        bits += Long.bitCount(w);
      }
      assertEquals(in.size(), bits, where);
      for (int id : in) {
        assertTrue((mask[id >>> 6] & (1L << id)) != 0, where);
      }
    }
  }
}
