/**
 * Tokenizers (DJL's HuggingFaceTokenizer, with each token's exact bytes) and jump retokenization.
 */
module dev.leap.retokenize {
  requires transitive dev.leap.fsm;
  requires ai.djl.tokenizers;
  requires com.fasterxml.jackson.databind;
  requires it.unimi.dsi.fastutil;

  exports dev.leap.retokenize;
}
