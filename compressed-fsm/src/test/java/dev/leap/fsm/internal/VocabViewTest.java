package dev.leap.fsm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

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
 * {@link VocabView#without} (one pass, common prefixes from the full order's) against its naive
 * twin: filter the sorted ids token by token, then compute the links by comparing neighbours' bytes
 * ({@link SkipLinks#of}). Real vocabularies, seeded random byte sets of every density, the sets the
 * compiler asks for (a JSON string's body, ASCII letters and digits) and their complements (as
 * {@link VocabView#holding} builds them).
 */
class VocabViewTest {

  static VocabView naiveWithout(SortedVocabulary v, long[] loop, int vocabSize) {
    byte[][] bytes = v.tokenBytes();
    long[] left = new long[(vocabSize + 63) >>> 6];
    IntArrayList kept = new IntArrayList();
    for (int id : v.ids()) {
      boolean inLoop = true;
      for (byte b : bytes[id]) {
        if ((loop[(b & 0xFF) >>> 6] & (1L << b)) == 0) {
          inLoop = false;
          break;
        }
      }
      if (inLoop) {
        left[id >>> 6] |= 1L << id;
      } else {
        kept.add(id);
      }
    }
    int[] ids = kept.toIntArray();
    return new VocabView(SortedTokens.of(ids, bytes, SkipLinks.of(ids, bytes)), left);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gpt2", "llama3", "qwen3"})
  void equalsTheNaiveFilter(String name) {
    TokenizerJsonVocabulary v =
        TokenizerJsonVocabulary.load(Shared.require("tokenizers/" + name + "/tokenizer.json"));
    SortedVocabulary sorted = SortedVocabulary.of(v);
    SplittableRandom random = new SplittableRandom(27);
    for (int c = 0; c < 24; c++) {
      long[] set = new long[4];
      if (c == 0) {
        // A JSON string's body: every byte but the quote, the backslash and controls.
        set = new long[] {~0L & ~0xFFFFFFFFL & ~(1L << '"'), ~(1L << ('\\' - 64)), ~0L, ~0L};
      } else if (c == 1) {
        for (char ch :
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".toCharArray()) {
          set[ch >>> 6] |= 1L << ch;
        }
      } else {
        int density = random.nextInt(1, 16);
        for (int b = 0; b < 256; b++) {
          if (random.nextInt(16) < density) {
            set[b >>> 6] |= 1L << b;
          }
        }
      }
      for (long[] s : new long[][] {set, {~set[0], ~set[1], ~set[2], ~set[3]}}) {
        VocabView fast = VocabView.without(sorted, s, v.size());
        VocabView naive = naiveWithout(sorted, s, v.size());
        assertArrayEquals(naive.tokens.ids(), fast.tokens.ids(), name + " set " + c);
        assertArrayEquals(naive.loopOnly, fast.loopOnly, name + " set " + c);
        assertArrayEquals(
            naive.tokens.links().lcp(), fast.tokens.links().lcp(), name + " set " + c);
        assertArrayEquals(
            naive.tokens.links().skip1(), fast.tokens.links().skip1(), name + " set " + c);
        assertArrayEquals(
            naive.tokens.links().skip2(), fast.tokens.links().skip2(), name + " set " + c);
        assertArrayEquals(naive.tokens.bytes(), fast.tokens.bytes(), name + " set " + c);
        assertArrayEquals(naive.tokens.start(), fast.tokens.start(), name + " set " + c);
      }
    }
  }
}
