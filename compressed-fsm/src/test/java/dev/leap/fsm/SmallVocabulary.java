package dev.leap.fsm;

import dev.leap.vocab.Vocabulary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A small built-in vocabulary for logic tests that always run: every single byte (as byte-level
 * vocabularies have), common multi-byte pieces including JSON punctuation, partial UTF-8 sequences,
 * a special token with no text, and an EOS id. Public for later modules' tests.
 */
public final class SmallVocabulary implements Vocabulary {
  private final byte[][] tokens;
  private final int eos;

  private SmallVocabulary(byte[][] tokens, int eos) {
    this.tokens = tokens;
    this.eos = eos;
  }

  public static SmallVocabulary create() {
    List<byte[]> t = new ArrayList<>();
    for (int b = 0; b < 256; b++) {
      t.add(new byte[] {(byte) b});
    }
    String[] pieces = {
      "ab", "abc", "cd", "\"", "\",", "\":", "\": ", "{\"", "\"}", "true", "false", "tr", "ue",
          "fal", "se",
      "12", "123", "00", ", \"", "\"a", "a\"", " \"", "name", "na", "me", "é", "中文", "😀", "xyz",
          "yz",
      "{\n", "\n}", "    ", "  ", "\n    \"", "[0", "a b", " a"
    };
    for (String p : pieces) {
      t.add(p.getBytes(StandardCharsets.UTF_8));
    }
    t.add(new byte[] {(byte) 0xE4, (byte) 0xB8}); // first two bytes of 中
    t.add(new byte[] {(byte) 0x87, (byte) 0xE6}); // a continuation byte, then a lead byte
    t.add(null); // a special token
    int eos = t.size();
    t.add(null); // EOS
    return new SmallVocabulary(t.toArray(new byte[0][]), eos);
  }

  @Override
  public int size() {
    return tokens.length;
  }

  @Override
  public byte[] tokenBytes(int id) {
    return id >= 0 && id < tokens.length ? tokens[id] : null;
  }

  @Override
  public int[] eosIds() {
    return new int[] {eos};
  }
}
