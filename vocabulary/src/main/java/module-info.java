/**
 * A model's vocabulary as byte strings: {@code Vocabulary} (each token's exact bytes, EOS ids),
 * read from a Hugging Face {@code tokenizer.json} ({@code TokenizerJsonVocabulary}); {@code Utf8},
 * the one place that knows UTF-8; {@code SortedVocabulary}, the tokens in byte order with the skip
 * links ({@code SkipLinks}) that let a mask walk visit a shared prefix once. Plain Java (Jackson).
 */
module dev.leap.vocab {
  requires com.fasterxml.jackson.databind;

  exports dev.leap.vocab;
}
