/**
 * Runnable examples of the public API: a library call, character sheets, long-document extraction,
 * an OpenAI client against {@code leap serve}.
 */
module dev.leap.examples {
  requires dev.leap.runtime;
  requires dev.leap.server;
  requires openai.java.client.okhttp;
  requires openai.java.core;
}
