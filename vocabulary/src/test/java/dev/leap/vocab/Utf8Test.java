package dev.leap.vocab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Utf8} against Java's UTF-8 decoder on valid text cut at every byte. */
class Utf8Test {

  private static boolean decodes(byte[] b) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @Test
  void cutsOfValidTextAgreeWithTheDecoder() {
    SplittableRandom r = new SplittableRandom(8);
    int[] codePoints = {'a', ' ', 0xE9, 0x4E2D, 0x1F600, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000};
    for (int round = 0; round < 500; round++) {
      StringBuilder sb = new StringBuilder();
      int n = 1 + r.nextInt(6);
      for (int i = 0; i < n; i++) {
        sb.appendCodePoint(codePoints[r.nextInt(codePoints.length)]);
      }
      byte[] text = sb.toString().getBytes(StandardCharsets.UTF_8);
      assertEquals(sb.codePointCount(0, sb.length()), Utf8.codePoints(text));
      for (int cut = 0; cut <= text.length; cut++) {
        byte[] prefix = Arrays.copyOf(text, cut);
        // The longest decodable prefix of a cut of valid text.
        int complete = cut;
        while (!decodes(Arrays.copyOf(prefix, complete))) {
          complete--;
        }
        assertEquals(
            complete, Utf8.completeLength(prefix), "complete length of " + Arrays.toString(prefix));
        if (cut > 0) {
          int start = cut - 1;
          while (start > 0 && (prefix[start] & 0xC0) == 0x80) {
            start--;
          }
          assertEquals(start, Utf8.lastCodePointStart(prefix));
          int end = start + 1;
          while (end < text.length && (text[end] & 0xC0) == 0x80) {
            end++;
          }
          assertEquals(
              end - start, Utf8.sequenceLength(prefix[start]), "sequence length of the lead byte");
        }
      }
    }
  }
}
