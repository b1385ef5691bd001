/**
 * The Llama-family model on DJL, the KV pool, the scheduler and its roles, and the public API
 * ({@code dev.leap.runtime}: {@code LeapRuntime}, {@code Constraint}, {@code Generation}).
 *
 * <p>Not exported: {@code dev.leap.runtime.internal} and {@code .internal.engine}. {@code
 * .internal.model} (the forward pass, its config, safetensors reading and writing, rotary tables)
 * is exported only to {@code train}, which trains and writes models of the same shape, and to
 * {@code bench}, which times it; it becomes a model module of its own next.
 */
@SuppressWarnings("module") // the qualified export names train, compiled after this module
module dev.leap.runtime {
  requires transitive dev.leap.fsm;
  requires transitive dev.leap.retokenize;
  requires dev.leap.radix;
  requires ai.djl.api;
  requires com.fasterxml.jackson.databind;
  requires it.unimi.dsi.fastutil;
  requires jdk.management; // free physical memory, for the CPU's float32 weight copies
  requires org.slf4j;

  exports dev.leap.runtime;
  exports dev.leap.runtime.internal.model to
      dev.leap.train;
}
