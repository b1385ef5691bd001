/**
 * {@code leap serve}: the OpenAI-compatible HTTP server over the public {@code LeapRuntime} API
 * (Jetty 12 core, server-sent events, chat templates through Jinjava).
 *
 * <p>Exported: {@code dev.leap.server} ({@code LeapServer}, {@code ServeCommand}). Not exported:
 * {@code .http} (routing, body reading, errors), {@code .openai} (the request fields and responses)
 * and {@code .chat} (chat templates).
 */
module dev.leap.server {
  requires transitive dev.leap.runtime;
  requires dev.leap
      .options; // ServeCommand's --model, --dtype, --sparse-logits-limit, --cpu-f32-weights
  requires com.fasterxml.jackson.databind;
  requires info.picocli;
  requires jinjava;
  requires org.eclipse.jetty.server;
  requires org.slf4j;
  requires java.desktop; // Jinjava's ELResolver names java.beans.FeatureDescriptor

  exports dev.leap.server;

  opens dev.leap.server to
      info.picocli; // ServeCommand's options are read reflectively
}
