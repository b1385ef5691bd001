package dev.leap.retokenize;

import dev.leap.vocab.Vocabulary;
import java.nio.file.Path;

/**
 * Text to token ids and back, plus the exact bytes of every token: the {@link Vocabulary} that
 * constraints index. Encoding never adds special tokens unless asked and never truncates. Decoding
 * is byte-exact: the concatenated bytes of the ids, as UTF-8 (malformed parts as U+FFFD).
 *
 * <p>Implementations are thread-safe.
 */
public interface Tokenizer extends Vocabulary {

  /** The ids of {@code text}, no special tokens added, never truncated. */
  int[] encode(String text);

  /**
   * The ids of {@code text}, with the tokenizer's special tokens (e.g. BOS) if {@code
   * addSpecialTokens}.
   */
  int[] encode(String text, boolean addSpecialTokens);

  /** The text of {@code ids}: their bytes concatenated, decoded as UTF-8. */
  String decode(int[] ids);

  /** Whether {@code id} is an added token marked special (it stands for no text). */
  boolean isSpecial(int id);

  /** The bytes of {@code ids} concatenated ({@code null}-byte tokens contribute nothing). */
  default byte[] bytes(int[] ids, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      byte[] b = tokenBytes(ids[i]);
      n += b == null ? 0 : b.length;
    }
    byte[] out = new byte[n];
    int p = 0;
    for (int i = from; i < to; i++) {
      byte[] b = tokenBytes(ids[i]);
      if (b != null) {
        System.arraycopy(b, 0, out, p, b.length);
        p += b.length;
      }
    }
    return out;
  }

  /**
   * A {@code tokenizer.json}; EOS from {@code tokenizer_config.json} / {@code
   * generation_config.json} beside it.
   */
  static Tokenizer load(Path tokenizerJson) {
    return HfTokenizer.load(tokenizerJson);
  }

  /** The tokenizer of a Hugging Face model directory ({@code tokenizer.json} and its configs). */
  static Tokenizer loadFromModelDir(Path dir) {
    return HfTokenizer.load(dir.resolve("tokenizer.json"));
  }

  /** GPT-2's tokenizer, shipped with Leap (EOS {@code <|endoftext|>}, id 50256). */
  static Tokenizer gpt2() {
    return HfTokenizer.gpt2();
  }
}
