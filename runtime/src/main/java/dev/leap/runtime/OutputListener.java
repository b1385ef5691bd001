package dev.leap.runtime;

/**
 * Receives a request's output as it grows ({@link LeapRuntime#submit(GenerationRequest,
 * OutputListener)}), for streaming. Invariants: the deltas, concatenated, are a prefix of the final
 * {@link Generation#text()} (text a jump forced arrives in one delta; text that could still start a
 * stop string, or end in the middle of a character, is held back until it cannot); the caller
 * appends the final text's remainder when the result completes. Called on the runtime's scheduler
 * thread, so it must return at once: buffer, never block or call back into the runtime.
 */
@FunctionalInterface
public interface OutputListener {
  void onText(String delta);
}
