/**
 * Leap's own training code and the data it generates (it writes the demo model).
 *
 * <p>Exported: {@code dev.leap.train} ({@code Trainer}, {@code TrainCommand}) and {@code
 * dev.leap.train.data} (the generators the benchmarks draw their inputs from). Not exported: {@code
 * .model} (the trainable forward pass, AdamW) and {@code .tokenizer} (the copy recipe's BPE), used
 * by this module only.
 */
module dev.leap.train {
  requires transitive dev.leap.runtime; // the generators take a Tokenizer
  requires transitive dev.leap.model; // TrainCommand.shape answers a ModelConfig
  requires transitive com.fasterxml.jackson.databind; // SglangInputs hands out JsonNode
  requires info.picocli;
  requires it.unimi.dsi.fastutil;
  requires xchart;

  exports dev.leap.train;
  exports dev.leap.train.data;

  opens dev.leap.train to
      info.picocli; // TrainCommand's options are read reflectively
}
