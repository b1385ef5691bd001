/**
 * The Llama-family decoder on DJL and what it reads and writes: {@code LlamaModel} (the forward
 * pass over ragged batches, sparse logits), {@code KvPool}, {@code ModelConfig} ({@code
 * config.json}), {@code Precision}, {@code SafeTensors} (reading), {@code HfModelWriter} (writing),
 * {@code Rope}.
 *
 * <p>Exported: {@code dev.leap.model}, to {@code runtime} (which runs the model), {@code train}
 * (which trains and writes models of the same shape) and {@code bench} (which times it). Its
 * helpers ({@code LayerWeights}, {@code WeightReader}, {@code AttentionGroup}, {@code Json}) are
 * package-private: {@code LlamaModel} reads their fields and they read its constants, so they stay
 * in its package rather than in an {@code internal} one.
 */
module dev.leap.model {
  requires transitive ai.djl.api; // LlamaModel's methods take and return NDArrays
  requires transitive com.fasterxml.jackson.databind; // ModelConfig.parse / toJson
  requires jdk.management; // free physical memory, for the CPU's float32 weight copies

  exports dev.leap.model;
}
