package dev.leap.retokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.Shared;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerTest {

  static List<String> corpus() throws IOException {
    try (InputStream in = TokenizerTest.class.getResourceAsStream("corpus.txt")) {
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      List<String> lines = new ArrayList<>(all.lines().toList());
      lines.add(all);
      return lines;
    }
  }

  static void roundTrip(Tokenizer tok, String name) throws IOException {
    for (String text : corpus()) {
      int[] ids = tok.encode(text);
      assertArrayEquals(
          text.getBytes(StandardCharsets.UTF_8), tok.bytes(ids, 0, ids.length), name + ": " + text);
      assertEquals(text, tok.decode(ids));
    }
    // Every token whose bytes are valid UTF-8 on their own: encoding its text gives back its bytes.
    int checked = 0;
    for (int id = 0; id < tok.size(); id++) {
      byte[] b = tok.tokenBytes(id);
      if (b == null) {
        assertTrue(
            tok.isSpecial(id) || id >= tok.size(),
            name + ": token " + id + " has no bytes but is not special");
        continue;
      }
      String text = strict(b);
      // Qwen's tokenizer normalizes to NFC: a token whose text is not NFC cannot come back from
      // encode.
      if (text == null || !java.text.Normalizer.isNormalized(text, java.text.Normalizer.Form.NFC)) {
        continue;
      }
      int[] ids = tok.encode(text);
      assertArrayEquals(b, tok.bytes(ids, 0, ids.length), name + ": token " + id);
      checked++;
    }
    assertTrue(checked > tok.size() / 2, name + ": only " + checked + " tokens checked");
  }

  static String strict(byte[] b) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  @Test
  void shippedGpt2RoundTrips() throws IOException {
    Tokenizer tok = Tokenizer.gpt2();
    assertEquals(50257, tok.size());
    assertArrayEquals(new int[] {50256}, tok.eosIds());
    assertArrayEquals(" the".getBytes(StandardCharsets.UTF_8), tok.tokenBytes(262));
    roundTrip(tok, "gpt2 (shipped)");
    // A long text is never truncated (DJL's default would cut it at 512 tokens).
    String longText = "word ".repeat(3000);
    assertEquals(3001, tok.encode(longText).length);
  }

  @Test
  void sharedVocabulariesRoundTrip() throws IOException {
    for (String name : new String[] {"llama3", "qwen3"}) {
      Path file = Shared.require("tokenizers/" + name + "/tokenizer.json");
      HfTokenizer tok = HfTokenizer.load(file);
      roundTrip(tok, name);
      assertTrue(tok.eosIds().length >= 1, name + " has an EOS from tokenizer_config.json");
      String eos = tok.vocabulary().tokenString(tok.eosIds()[0]);
      assertEquals(name.equals("qwen3") ? "<|im_end|>" : "<|end_of_text|>", eos);
      assertNull(tok.tokenBytes(tok.eosIds()[0]));
    }
  }

  @Test
  void eosIsTheUnionOfTokenizerConfigAndGenerationConfig(@TempDir Path dir) throws IOException {
    HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
    Files.writeString(
        dir.resolve("tokenizer_config.json"), "{\"eos_token\": {\"content\": \"<|endoftext|>\"}}");
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [50256, 198]}");
    Tokenizer tok = Tokenizer.loadFromModelDir(dir);
    assertArrayEquals(new int[] {50256, 198}, tok.eosIds());
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": 13}");
    assertArrayEquals(new int[] {50256, 13}, Tokenizer.loadFromModelDir(dir).eosIds());
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": \"x\"}");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Tokenizer.loadFromModelDir(dir));
    assertTrue(e.getMessage().contains("eos_token_id"), e.getMessage());
  }

  @Test
  void badTokenizerFilesNameTheFile(@TempDir Path dir) throws IOException {
    Path missing = dir.resolve("tokenizer.json");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Tokenizer.load(missing));
    assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    Path notTok = Files.writeString(dir.resolve("config.json"), "{\"hidden_size\": 64}");
    e = assertThrows(IllegalArgumentException.class, () -> Tokenizer.load(notTok));
    assertTrue(
        e.getMessage().contains(notTok.toString()) && e.getMessage().contains("model.vocab"),
        e.getMessage());
    Path wp =
        Files.writeString(
            dir.resolve("wp.json"),
            "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"[UNK]\": 0, \"a\": 1}}, \"decoder\": {\"type\": \"WordPiece\"}}");
    e = assertThrows(IllegalArgumentException.class, () -> Tokenizer.load(wp));
    assertTrue(
        e.getMessage().contains("WordPiece") && e.getMessage().contains("ByteLevel"),
        e.getMessage());
  }

  @Test
  void sentencePieceStyleBytes() {
    assertArrayEquals(
        " hello".getBytes(StandardCharsets.UTF_8),
        dev.leap.vocab.TokenizerJsonVocabulary.toBytes(
            "\u2581hello", dev.leap.vocab.TokenizerJsonVocabulary.Scheme.SENTENCEPIECE));
    assertArrayEquals(
        new byte[] {(byte) 0xE4},
        dev.leap.vocab.TokenizerJsonVocabulary.toBytes(
            "<0xE4>", dev.leap.vocab.TokenizerJsonVocabulary.Scheme.SENTENCEPIECE));
    assertArrayEquals(
        "  ".getBytes(StandardCharsets.UTF_8),
        dev.leap.vocab.TokenizerJsonVocabulary.toBytes(
            "\u2581\u2581", dev.leap.vocab.TokenizerJsonVocabulary.Scheme.SENTENCEPIECE));
  }
}
