package dev.leap.vocab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The shared sorted vocabulary against the definitions of its order, prefix lengths, skip links and
 * ranges, checked naively.
 */
class SortedVocabularyTest {

  /**
   * A random vocabulary over a few byte values (so prefixes are shared often), with holes and
   * duplicates.
   */
  private static Vocabulary random(SplittableRandom r) {
    int n = 1 + r.nextInt(300);
    byte[][] tokens = new byte[n][];
    for (int i = 0; i < n; i++) {
      if (r.nextInt(10) == 0) {
        continue; // a token without bytes
      }
      byte[] b = new byte[1 + r.nextInt(5)];
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) new int[] {0x00, 0x41, 0x42, 0x7F, 0x80, 0xC3, 0xFF}[r.nextInt(7)];
      }
      tokens[i] = b;
    }
    return new Vocabulary() {
      @Override
      public int size() {
        return n;
      }

      @Override
      public byte[] tokenBytes(int id) {
        return tokens[id];
      }

      @Override
      public int[] eosIds() {
        return new int[0];
      }
    };
  }

  @Test
  void matchesNaiveDefinitions() {
    SplittableRandom r = new SplittableRandom(2026);
    for (int round = 0; round < 200; round++) {
      Vocabulary v = random(r);
      SortedVocabulary s = SortedVocabulary.of(v);
      assertSame(s, SortedVocabulary.of(v), "one sorted form per vocabulary");
      List<Integer> live = new ArrayList<>();
      for (int i = 0; i < v.size(); i++) {
        if (v.tokenBytes(i) != null && v.tokenBytes(i).length > 0) {
          live.add(i);
        }
      }
      assertEquals(live.size(), s.size());
      int[] ids = s.ids();
      int[] sortedCopy = ids.clone();
      Arrays.sort(sortedCopy);
      assertArrayEquals(
          live.stream().mapToInt(Integer::intValue).toArray(), sortedCopy, "every live token once");
      int longest = 0;
      for (int j = 0; j < ids.length; j++) {
        byte[] b = s.bytesAt(j);
        longest = Math.max(longest, b.length);
        if (j > 0) {
          byte[] p = s.bytesAt(j - 1);
          int c = Arrays.compareUnsigned(p, b);
          assertTrue(c < 0 || c == 0 && ids[j - 1] < ids[j], "byte order, equal bytes by id");
          int common = 0;
          while (common < Math.min(p.length, b.length) && p[common] == b[common]) {
            common++;
          }
          assertEquals(common, s.lcp()[j], "lcp at " + j);
        }
        SortedTokens t = s.tokens();
        assertEquals(ids[j], t.ids()[j]);
        assertArrayEquals(
            b, Arrays.copyOfRange(t.bytes(), t.start()[j], t.start()[j + 1]), "bytes end to end");
        assertEquals(naiveSkip(s, j, 1), s.skip1()[j], "skip1 at " + j);
        assertEquals(naiveSkip(s, j, 2), s.skip2()[j], "skip2 at " + j);
      }
      assertEquals(longest, s.maxLength());
      checkBlocks(s, r);
      for (int q = 0; q < 20; q++) {
        byte[] key = new byte[r.nextInt(4)];
        for (int k = 0; k < key.length; k++) {
          key[k] = (byte) new int[] {0x00, 0x41, 0x42, 0x80, 0xFF}[r.nextInt(5)];
        }
        int expected = 0;
        while (expected < ids.length && Arrays.compareUnsigned(s.bytesAt(expected), key) < 0) {
          expected++;
        }
        assertEquals(expected, s.lowerBound(key));
        // The tokens starting with the key are exactly the run from the lower bound.
        int j = expected;
        while (j < ids.length && SortedVocabulary.startsWith(s.bytesAt(j), key)) {
          j++;
        }
        for (int k = 0; k < ids.length; k++) {
          assertEquals(k >= expected && k < j, SortedVocabulary.startsWith(s.bytesAt(k), key));
        }
      }
    }
  }

  /**
   * {@link SortedTokens#blockStart} against its definition (the first position whose first byte is
   * at least {@code b}), and {@link SortedWalk#walkBlocks} with a random first-byte set against the
   * tokens of those first bytes, filtered naively: every one read whole, in order, no other.
   */
  private static void checkBlocks(SortedVocabulary s, SplittableRandom r) {
    SortedTokens t = s.tokens();
    for (int b = 0; b <= 256; b++) {
      int expected = 0;
      while (expected < s.size() && (s.bytesAt(expected)[0] & 0xFF) < b) {
        expected++;
      }
      assertEquals(expected, t.blockStart(b), "block of byte " + b);
    }
    long[] first = new long[4];
    for (int b : new int[] {0x00, 0x41, 0x42, 0x7F, 0x80, 0xC3, 0xFF}) {
      if (r.nextBoolean()) {
        first[b >>> 6] |= 1L << b;
      }
    }
    List<Integer> expected = new ArrayList<>();
    for (int j = 0; j < s.size(); j++) {
      int b = s.bytesAt(j)[0] & 0xFF;
      if ((first[b >>> 6] & (1L << b)) != 0) {
        expected.add(s.ids()[j]);
      }
    }
    List<Integer> read = new ArrayList<>();
    SortedWalk.walkBlocks(
        t,
        first,
        new SortedWalk.Recognizer() {
          @Override
          public boolean alive(int depth) {
            return true;
          }

          @Override
          public void push(int depth, byte b) {}

          @Override
          public void complete(int id, int length) {
            read.add(id);
          }

          @Override
          public int died(int id, int depth, byte next) {
            throw new AssertionError("nothing dies");
          }

          @Override
          public void sameAsDied(int id) {
            throw new AssertionError("nothing dies");
          }
        });
    assertEquals(expected, read, "the tokens of the chosen first bytes, in order");
  }

  /**
   * The next position after {@code j} whose first {@code depth} bytes (as many as it has) differ
   * from {@code j}'s.
   */
  private static int naiveSkip(SortedVocabulary s, int j, int depth) {
    byte[] a = s.bytesAt(j);
    for (int k = j + 1; k < s.size(); k++) {
      byte[] b = s.bytesAt(k);
      int common = 0;
      while (common < Math.min(a.length, b.length) && a[common] == b[common]) {
        common++;
      }
      // Every token between shares at least the common prefix with j's; the run ends where fewer
      // than depth bytes are shared.
      if (common < depth) {
        return k;
      }
    }
    return s.size();
  }

  /**
   * The multikey quicksort against the comparator sort (stable, so equal bytes by id) on three real
   * vocabularies.
   */
  @Test
  void realVocabulariesInTheNaiveOrder() {
    for (String name : new String[] {"gpt2", "llama3", "qwen3"}) {
      Vocabulary v =
          TokenizerJsonVocabulary.load(
              dev.leap.testkit.Shared.require("tokenizers/" + name + "/tokenizer.json"));
      List<Integer> live = new ArrayList<>();
      for (int i = 0; i < v.size(); i++) {
        if (v.tokenBytes(i) != null && v.tokenBytes(i).length > 0) {
          live.add(i);
        }
      }
      live.sort((a, b) -> Arrays.compareUnsigned(v.tokenBytes(a), v.tokenBytes(b)));
      assertArrayEquals(
          live.stream().mapToInt(Integer::intValue).toArray(), SortedVocabulary.of(v).ids(), name);
    }
  }
}
