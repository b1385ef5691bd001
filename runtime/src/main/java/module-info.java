/**
 * The scheduler and its roles over the model of {@code dev.leap.model}, and the public API ({@code
 * dev.leap.runtime}: {@code LeapRuntime}, {@code Constraint}, {@code Generation}).
 *
 * <p>Not exported: {@code .internal.engine}, and {@code dev.leap.runtime.internal} but to {@code
 * cli}, whose error line is {@code internal.Errors.oneLine}, as a {@code Generation}'s error is.
 */
@SuppressWarnings("module") // the qualified export names cli, compiled after this module
module dev.leap.runtime {
  requires transitive dev.leap.fsm;
  requires transitive dev.leap.retokenize;
  requires dev.leap.radix;
  requires dev.leap.model;
  requires ai.djl.api;
  requires com.fasterxml.jackson.databind;
  requires it.unimi.dsi.fastutil;
  requires org.slf4j;

  exports dev.leap.runtime;
  exports dev.leap.runtime.internal to
      dev.leap.cli;
}
