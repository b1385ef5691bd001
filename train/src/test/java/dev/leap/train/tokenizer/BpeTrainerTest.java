package dev.leap.train.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.SmallTokenizer;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import dev.leap.train.data.GazetteerDocument;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The project's byte-level BPE: the incremental trainer gives the merges of a naive twin that
 * recounts every pair before every merge; the written {@code tokenizer.json} loads through {@code
 * HfTokenizer.load} (DJL's Hugging Face tokenizer), encodes as a naive Java BPE over the same
 * merges does, decodes byte for byte, and every field of a city answer is the same tokens in its
 * article as in the answer.
 */
class BpeTrainerTest {
  static HfTokenizer tok;
  static BpeTrainer.Merges merges;
  static List<String> corpus;

  @BeforeAll
  static void train() {
    corpus = TokenizerCorpus.texts(3, 12, 24);
    tok = SmallTokenizer.get();
    merges = SmallTokenizer.merges();
  }

  @Test
  void loadsThroughTheRuntimePathWithEosLast() {
    assertEquals(merges.vocabSize(), tok.size());
    assertEquals(900, tok.size(), "the corpus has enough pairs for 900 tokens");
    assertArrayEquals(new int[] {899}, tok.eosIds(), java.util.Arrays.toString(tok.eosIds()));
    assertTrue(tok.isSpecial(899));
    assertArrayEquals(new byte[] {' '}, tok.tokenBytes(' '), "id 32 is the space byte");
  }

  @Test
  void incrementalTrainingEqualsTheNaiveTwin() {
    List<String> small = corpus.subList(0, 6);
    BpeTrainer.Merges fast = BpeTrainer.train(small, 500);
    List<String[]> naive = naiveTrain(BpeTrainer.countWords(small), 500);
    assertEquals(naive.size(), fast.pairs().size());
    for (int i = 0; i < naive.size(); i++) {
      assertArrayEquals(naive.get(i), fast.pairs().get(i), "merge " + i);
    }
  }

  @Test
  void encodingEqualsANaiveBpeAndRoundTripsByteForByte() {
    List<String> texts = new ArrayList<>(TokenizerCorpus.texts(99, 4, 6));
    texts.add("Ünïcödé ✓ and 東京, tabs\tand  double  spaces, CAPS, McDonald 12.5% \"quoted\"\n\n");
    for (String t : texts) {
      int[] ids = tok.encode(t);
      assertArrayEquals(
          naiveEncode(t), ids, () -> "text: " + t.substring(0, Math.min(80, t.length())));
      assertEquals(t, tok.decode(ids));
    }
  }

  /** The test: for many seeds, closed and open values, both article generators. */
  @Test
  void everyFieldIsTheSameTokensInTheArticleAndTheAnswer() {
    assertFieldsVerbatim(tok);
  }

  /**
   * Asserts that every field of 90 seeded cities (closed and open values, both article generators)
   * is the same tokens of {@code tok} in its article and in its answer; returns the cities.
   */
  static List<City> assertFieldsVerbatim(HfTokenizer tok) {
    List<City> cities = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < 90; i++) {
      long seed = City.EVAL_SEED_BASE + r.nextInt(1_000_000);
      City c = i % 3 == 0 ? City.of(seed) : City.open(seed);
      int target = 150 + r.nextInt(600);
      String doc =
          i % 3 == 2
              ? GazetteerDocument.text(c, seed, target, tok)
              : CityDocument.text(c, seed, target, tok, i % 3 == 1);
      int[] article = tok.encode(doc);
      int[] answer = tok.encode(c.answer());
      for (String v : c.fields().values()) {
        int[] field = tok.encode(v);
        assertTrue(
            contains(article, field), "seed " + seed + ": " + v + " not verbatim in the article");
        assertTrue(
            contains(answer, field), "seed " + seed + ": " + v + " not verbatim in the answer");
      }
      cities.add(c);
    }
    return cities;
  }

  static boolean contains(int[] hay, int[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /**
   * BPE encoding the textbook way: per pre-token, merge the lowest-ranked adjacent pair until none
   * is left.
   */
  static int[] naiveEncode(String text) {
    Map<String, Integer> rank = new HashMap<>();
    for (int i = 0; i < merges.pairs().size(); i++) {
      rank.putIfAbsent(merges.pairs().get(i)[0] + " " + merges.pairs().get(i)[1], i);
    }
    Map<String, Integer> id = new HashMap<>();
    for (int i = 0; i < merges.tokens().size(); i++) {
      id.put(merges.tokens().get(i), i);
    }
    char[] table = BpeTrainer.byteChars();
    IntArrayList out = new IntArrayList();
    for (String piece : BpeTrainer.preTokenize(text)) {
      List<String> sym = new ArrayList<>();
      for (char ch : BpeTrainer.mapped(piece, table).toCharArray()) {
        sym.add(String.valueOf(ch));
      }
      while (true) {
        int best = -1;
        int bestRank = Integer.MAX_VALUE;
        for (int i = 0; i + 1 < sym.size(); i++) {
          Integer rk = rank.get(sym.get(i) + " " + sym.get(i + 1));
          if (rk != null && rk < bestRank) {
            bestRank = rk;
            best = i;
          }
        }
        if (best < 0) {
          break;
        }
        sym.set(best, sym.get(best) + sym.remove(best + 1));
      }
      for (String s : sym) {
        out.add(id.get(s));
      }
    }
    return out.toIntArray();
  }

  /** BPE training the textbook way: recount every pair before every merge. */
  static List<String[]> naiveTrain(Map<String, Integer> counts, int vocabSize) {
    List<List<String>> words = new ArrayList<>();
    List<Integer> freq = new ArrayList<>();
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      List<String> w = new ArrayList<>();
      for (char ch : e.getKey().toCharArray()) {
        w.add(String.valueOf(ch));
      }
      words.add(w);
      freq.add(e.getValue());
    }
    List<String[]> merges = new ArrayList<>();
    java.util.Set<String> vocab = new java.util.HashSet<>();
    for (char ch : BpeTrainer.byteChars()) {
      vocab.add(String.valueOf(ch));
    }
    while (vocab.size() < vocabSize - 1) {
      Map<List<String>, Long> pc = new HashMap<>();
      for (int i = 0; i < words.size(); i++) {
        List<String> w = words.get(i);
        for (int j = 0; j + 1 < w.size(); j++) {
          pc.merge(List.of(w.get(j), w.get(j + 1)), (long) freq.get(i), Long::sum);
        }
      }
      List<String> best = null;
      long bestCount = 1;
      for (Map.Entry<List<String>, Long> e : pc.entrySet()) {
        List<String> p = e.getKey();
        long c = e.getValue();
        if (c > bestCount
            || (c == bestCount
                && best != null
                && (p.get(0).compareTo(best.get(0)) < 0
                    || (p.get(0).equals(best.get(0)) && p.get(1).compareTo(best.get(1)) < 0)))) {
          best = p;
          bestCount = c;
        }
      }
      if (best == null) {
        break;
      }
      merges.add(new String[] {best.get(0), best.get(1)});
      vocab.add(best.get(0) + best.get(1));
      for (List<String> w : words) {
        for (int j = 0; j + 1 < w.size(); j++) {
          if (w.get(j).equals(best.get(0)) && w.get(j + 1).equals(best.get(1))) {
            w.set(j, best.get(0) + best.get(1));
            w.remove(j + 1);
          }
        }
      }
    }
    return merges;
  }

  @Test
  void theFileIsSmall(@TempDir Path dir) throws Exception {
    BpeTrainer.write(merges, dir);
    assertTrue(
        Files.size(dir.resolve("tokenizer.json")) < 100_000,
        "tokenizer.json of 900 tokens under 100 KB");
  }
}
