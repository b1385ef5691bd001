package dev.leap.retokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A small SentencePiece-style tokenizer (Llama 2 layout: {@code ▁} for spaces, a normalizer that
 * prepends {@code ▁}, byte-fallback tokens {@code <0xNN>}) written for this test.
 */
class SentencePieceTest {

  static Path file() throws URISyntaxException {
    return Path.of(SentencePieceTest.class.getResource("sp/tokenizer.json").toURI());
  }

  @Test
  void bytesAndEncodingFollowTheSentencePieceScheme() throws Exception {
    HfTokenizer tok = HfTokenizer.load(file());
    assertEquals(TokenizerJsonVocabulary.Scheme.SENTENCEPIECE, tok.vocabulary().scheme());
    assertNull(tok.tokenBytes(1), "<s> is special");
    assertArrayEquals(new byte[] {(byte) 0xE4}, tok.tokenBytes(tok.vocabulary().idOf("<0xE4>")));
    assertArrayEquals(
        " hello".getBytes(StandardCharsets.UTF_8), tok.tokenBytes(tok.vocabulary().idOf("▁hello")));
    // The normalizer prepends ▁: the bytes of an encoding are the text with a leading space.
    int[] ids = tok.encode("hello world 中");
    assertEquals(" hello world 中", tok.decode(ids));
    assertTrue(tok.encode("中").length >= 3, "CJK falls back to byte tokens");
  }

  @Test
  void jumpsThatCannotBeReencodedExactlyAreDeclinedNotCorrupted() throws Exception {
    HfTokenizer tok = HfTokenizer.load(file());
    CompressedFsm fsm = CompressedFsm.compile("\\{\"name\": \"(hello|world)\"\\}");
    Dfa dfa = fsm.dfa();
    JumpRetokenizer retok = new JumpRetokenizer(tok, dfa, true);
    // At the start the jump is {"name": " but encoding it prepends a space: the planner declines.
    JumpPlan plan =
        retok.plan(
            new int[0], 0, new int[] {dfa.initialState()}, fsm.jumpBytes(dfa.initialState()));
    assertNull(plan, "an encoding that adds a leading space must not be committed");
  }
}
