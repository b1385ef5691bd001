package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Error messages quote at most about 200 characters of the input, around the offending position.
 */
class ExcerptTest {

  @Test
  void aHundredKilobyteRegexGivesAShortErrorWithTheCaretOnTheOffendingCharacter() {
    String pattern = "a".repeat(50_000) + ")" + "b".repeat(50_000);
    RegexSyntaxException e =
        assertThrows(RegexSyntaxException.class, () -> CompressedFsm.compile(pattern));
    assertEquals(50_000, e.getIndex());
    String line = e.oneLine();
    assertTrue(line.length() < 320, line.length() + " chars: " + line);
    assertTrue(
        line.contains("index 50000") && line.contains("100001 chars") && line.contains("a)b"),
        line);
    String[] lines = e.getMessage().split("\n");
    assertEquals(3, lines.length);
    assertTrue(lines[1].length() < 260, lines[1]);
    assertEquals(')', lines[1].charAt(lines[2].indexOf('^')));
    assertEquals(pattern, e.getPattern(), "the exception still carries the whole pattern");
  }

  @Test
  void largeAutomataAndEmptyLanguagesQuoteABoundedPrefix() {
    String big = "(a|b)*a(a|b){24}" + "c?".repeat(20_000);
    AutomatonTooLargeException e =
        assertThrows(AutomatonTooLargeException.class, () -> CompressedFsm.compile(big));
    assertTrue(e.getMessage().length() < 500, e.getMessage().length() + " chars");
    assertEquals(big, e.source());
    String empty = "[^\\x00-\\x{10FFFF}]" + "x".repeat(10_000);
    EmptyLanguageException e2 =
        assertThrows(EmptyLanguageException.class, () -> CompressedFsm.compile(empty));
    assertTrue(e2.getMessage().length() < 300, e2.getMessage());
  }

  /**
   * Against the naive twin: the quote holds the offending character at the caret, and the text
   * around it.
   */
  @Test
  void randomTextsAndPositions() {
    SplittableRandom rnd = new SplittableRandom(14);
    for (int i = 0; i < 2_000; i++) {
      int n = rnd.nextInt(1, 1_000);
      StringBuilder sb = new StringBuilder();
      while (sb.length() < n) {
        int k = rnd.nextInt(4);
        sb.append(k == 0 ? "😀" : k == 1 ? "é" : String.valueOf((char) ('a' + rnd.nextInt(26))));
      }
      String text = sb.toString();
      int index = rnd.nextInt(-1, text.length());
      Excerpt.Window w = Excerpt.of(text, index);
      String seed = "case " + i + ": " + text.length() + " chars, index " + index;
      if (text.length() <= Excerpt.DEFAULT_MAX) {
        assertEquals(text, w.quote(), seed);
        continue;
      }
      assertTrue(w.cut(), seed);
      assertTrue(w.quote().length() <= Excerpt.DEFAULT_MAX + 24, seed);
      assertTrue(w.quote().endsWith(" (" + text.length() + " chars)"), seed);
      String body = w.quote().substring(0, w.quote().lastIndexOf(" ("));
      String core = body.replace("…", "");
      assertTrue(text.contains(core) && core.length() >= Excerpt.DEFAULT_MAX - 2, seed);
      assertTrue(
          !Character.isLowSurrogate(core.charAt(0))
              && !Character.isHighSurrogate(core.charAt(core.length() - 1)),
          seed);
      if (index >= 0 && !Character.isLowSurrogate(text.charAt(index))) {
        assertEquals(text.charAt(index), w.quote().charAt(w.caret()), seed);
      }
      if (index < 0) {
        assertTrue(text.startsWith(core), seed);
      }
    }
  }
}
