package dev.leap.train.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Digit groups added to a trained tokenizer, read through {@code HfTokenizer.load} (the Rust
 * Hugging Face tokenizer): every number of generated articles (both generators, closed and open
 * values) encodes as its groups of up to three digits from the left, each one token, and everything
 * between numbers as before; every field is still the same tokens in its article and its answer;
 * text without digits encodes to exactly the old ids; EOS moves to the new last id.
 */
class VocabularyExtensionTest {
  static HfTokenizer old;
  static BpeTrainer.Merges oldMerges;
  static VocabularyExtension.Extension ext;
  static HfTokenizer tok;

  @BeforeAll
  static void extend(@TempDir Path dir) throws Exception {
    old = SmallTokenizer.get();
    oldMerges = SmallTokenizer.merges();
    Path oldDir = dir.resolve("old");
    BpeTrainer.write(oldMerges, oldDir);
    BpeTrainer.Merges read = VocabularyExtension.read(oldDir.resolve("tokenizer.json"));
    assertEquals(oldMerges.tokens(), read.tokens());
    assertEquals(oldMerges.pairs().size(), read.pairs().size());
    for (int i = 0; i < read.pairs().size(); i++) {
      assertArrayEquals(oldMerges.pairs().get(i), read.pairs().get(i), "merge " + i);
    }
    ext = VocabularyExtension.digitGroups(read, 3);
    VocabularyExtension.write(ext, dir.resolve("new"));
    tok = HfTokenizer.load(dir.resolve("new").resolve("tokenizer.json"));
  }

  @Test
  void oldIdsAndRanksStayAndEosMovesLast() {
    int n = oldMerges.tokens().size();
    assertEquals(n, ext.oldEos());
    assertEquals(n + 100 + 1000, ext.newEos(), "100 pairs and 1,000 triples");
    assertEquals(ext.newEos() + 1, tok.size());
    assertArrayEquals(new int[] {ext.newEos()}, tok.eosIds());
    assertEquals(oldMerges.tokens(), ext.merges().tokens().subList(0, n));
    for (int i = 0; i < oldMerges.pairs().size(); i++) {
      assertArrayEquals(oldMerges.pairs().get(i), ext.merges().pairs().get(i), "merge " + i);
    }
    assertEquals(oldMerges.pairs().size() + 100 + 2000, ext.merges().pairs().size());
    for (int id = 0; id < n; id++) {
      assertArrayEquals(old.tokenBytes(id), tok.tokenBytes(id), "token " + id);
    }
    assertEquals("07", new String(tok.tokenBytes(n + 7)));
    assertEquals("000", new String(tok.tokenBytes(n + 100)));
    assertEquals("999", new String(tok.tokenBytes(n + 1099)));
    assertArrayEquals(
        new int[] {old.encode("9")[0], old.encode("4")[0], old.encode("1")[0]},
        ext.digits().get(100 + 941));
    assertEquals(ext.newEos(), ext.newId(ext.oldEos()));
    assertEquals(5, ext.newId(5));
    assertThrows(IllegalArgumentException.class, () -> ext.newId(ext.oldEos() + 1));
  }

  @Test
  void everyNumberIsItsGroupsOfThreeAndTheRestIsEncodedAsBefore() {
    SplittableRandom r = new SplittableRandom(11);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      long seed = City.EVAL_SEED_BASE + r.nextInt(1_000_000);
      City c = i % 3 == 0 ? City.of(seed) : City.open(seed);
      int target = 150 + r.nextInt(900);
      texts.add(
          i % 3 == 2
              ? GazetteerDocument.text(c, seed, target, tok)
              : CityDocument.text(c, seed, target, tok, i % 3 == 1));
      texts.add(c.answer());
    }
    // Random digit strings of every length up to 12, glued to words, decimals and signs.
    for (int i = 0; i < 200; i++) {
      StringBuilder b = new StringBuilder("x");
      for (int k = 0; k < 4; k++) {
        b.append(" ");
        int len = 1 + r.nextInt(12);
        for (int d = 0; d < len; d++) {
          b.append((char) ('0' + r.nextInt(10)));
        }
        b.append(new String[] {"", ".", "km", "-", ",", " Tor"}[r.nextInt(6)]);
      }
      texts.add(b.toString());
    }
    int numbers = 0;
    for (String t : texts) {
      assertArrayEquals(naiveEncode(t), tok.encode(t), () -> t);
      assertEquals(t, tok.decode(tok.encode(t)));
      Matcher m = Pattern.compile("[0-9]+").matcher(t);
      while (m.find()) {
        numbers++;
      }
    }
    assertTrue(numbers > 1000, "numbers seen: " + numbers);
  }

  /**
   * The twin: the text cut at digit runs; each run encodes as its groups of three from the left
   * (each the id of that digit string in the extended vocabulary), each piece between runs as the
   * old tokenizer encodes it.
   */
  static int[] naiveEncode(String text) {
    IntArrayList out = new IntArrayList();
    Matcher m = Pattern.compile("\\p{N}+").matcher(text);
    int at = 0;
    while (m.find()) {
      if (m.start() > at) {
        out.addElements(out.size(), old.encode(text.substring(at, m.start())));
      }
      String run = m.group();
      for (int i = 0; i < run.length(); i += 3) {
        String g = run.substring(i, Math.min(run.length(), i + 3));
        int id = g.length() == 1 ? old.encode(g)[0] : ext.merges().tokens().indexOf(g);
        assertTrue(id >= 0, g);
        out.add(id);
      }
      at = m.end();
    }
    if (at < text.length()) {
      out.addElements(out.size(), old.encode(text.substring(at)));
    }
    return out.toIntArray();
  }

  @Test
  void textWithoutDigitsEncodesToTheOldIds() {
    List<String> texts = new ArrayList<>(TokenizerCorpus.texts(77, 6, 12));
    texts.add("Ünïcödé ✓ and 東京, tabs\tand  double  spaces, CAPS, McDonald \"quoted\"\n\n");
    int chars = 0;
    for (String t : texts) {
      String noDigits = t.replaceAll("\\p{N}", "");
      chars += noDigits.length();
      assertArrayEquals(old.encode(noDigits), tok.encode(noDigits));
    }
    assertTrue(chars > 10_000, "characters compared: " + chars);
  }

  /** The test again, on the extended tokenizer; a population is its groups of three. */
  @Test
  void everyFieldIsTheSameTokensInTheArticleAndTheAnswer() {
    for (City c : BpeTrainerTest.assertFieldsVerbatim(tok)) {
      int[] pop = tok.encode(Long.toString(c.population()));
      assertEquals((Long.toString(c.population()).length() + 2) / 3, pop.length);
    }
  }

  @Test
  void badInputIsAClearError(@TempDir Path dir) throws Exception {
    assertEquals(
        " ?\\p{Ll}+|\\p{Lu}\\p{Ll}*|\\p{N}{1,2}| ?[^\\s\\p{L}\\p{N}]+|\\s+",
        VocabularyExtension.pattern(2));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> VocabularyExtension.digitGroups(ext.merges(), 3));
    assertTrue(e.getMessage().contains("already"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> VocabularyExtension.digitGroups(oldMerges, 1));
    VocabularyExtension.write(ext, dir);
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> VocabularyExtension.read(dir.resolve("tokenizer.json")));
    assertTrue(e.getMessage().contains("single digits"), e.getMessage());
    Files.writeString(dir.resolve("x.json"), "{}");
    assertThrows(
        IllegalArgumentException.class, () -> VocabularyExtension.read(dir.resolve("x.json")));
  }
}
