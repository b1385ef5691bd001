package dev.leap.vocab;

/**
 * A model's vocabulary as the constraint sees it: token id to the exact bytes that token stands
 * for.
 *
 * <p>Invariants: ids are {@code 0 .. size()-1}; {@link #tokenBytes(int)} returns the bytes the
 * tokenizer's decoder makes of that token alone (before any whole-sequence step such as stripping a
 * leading space), or {@code null} for a token that stands for no text (a special token, or an id
 * the tokenizer does not define). A token with {@code null} or empty bytes is never allowed by a
 * constraint, except an EOS id, which is allowed exactly in accepting states.
 *
 * <p>Implementations are immutable and thread-safe; the returned arrays must not be modified.
 */
public interface Vocabulary {

  /** Number of token ids, {@code 0 .. size()-1}. */
  int size();

  /** The exact bytes of token {@code id}, or {@code null} if it stands for no text. */
  byte[] tokenBytes(int id);

  /**
   * The end-of-sequence ids (possibly several, e.g. Llama 3's {@code <|eot_id|>} and {@code
   * <|end_of_text|>}).
   */
  int[] eosIds();
}
