package dev.leap.bench.serve;

/**
 * The request bodies that {@code leap bench abuse} sends to {@code /v1/completions}, as JSON text:
 * the small regex-constrained completion its scenarios time, and the big request of the heavy
 * scenario. The hostile cases are written where they are sent ({@link HostileInput}).
 */
final class AbuseRequests {
  private AbuseRequests() {}

  /** The small requests' regex: a US phone number, fully forced after its digits. */
  static final String PHONE = "\\([0-9]{3}\\) [0-9]{3}-[0-9]{4}";

  /** A greedy 20-token completion of "Phone: " constrained by {@code regex} (SGLang's field). */
  static String phoneBody(String regex) {
    return "{\"prompt\":\"Phone: \",\"max_tokens\":20,\"temperature\":0,\"regex\":\""
        + regex.replace("\\", "\\\\")
        + "\"}";
  }

  /**
   * A prompt of 2,000 tokens (id 198 each), {@code n} sequences of up to {@code maxTokens}, sampled
   * at temperature 1 under a regex of 3,000 digit pairs.
   */
  static String bigBody(int n, int maxTokens) {
    StringBuilder p = new StringBuilder("[");
    for (int i = 0; i < 2000; i++) {
      p.append(i == 0 ? "" : ",").append(198);
    }
    p.append(']');
    return "{\"prompt\":"
        + p
        + ",\"n\":"
        + n
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"temperature\":1,"
        + "\"structured_outputs\":{\"regex\":\"([0-9] ){1000}([0-9] ){1000}([0-9] ){1000}\"}}";
  }
}
