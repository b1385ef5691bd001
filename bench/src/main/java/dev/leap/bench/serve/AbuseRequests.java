package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;

/**
 * The request bodies that {@code leap bench abuse} sends to {@code /v1/completions}, as JSON text:
 * the small regex-constrained completion its scenarios time, the big request of the heavy scenario
 * and the slow-compiling grammar. The hostile cases are written where they are sent ({@link
 * HostileInput}).
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

  /**
   * A GBNF grammar that only a compile time limit can end: 900 rules, each called through the stack
   * ({@code root ::= r0 | r1 | ...}, and each rule optionally calls itself) and each with its own
   * bounded repetition of 4,000+ letters ({@code ri ::= "ki" [a-z]{0,4000+i} "x" ri?}). Every
   * rule's automaton is far inside the NFA and DFA state limits, so no size limit stops it early;
   * together they take seconds to compile. The same grammar as the runtime's {@code
   * FairnessAndCompileLimitsTest.slowGrammar()} (since issue 27 a schema of 300 strings of {@code
   * maxLength} 1,000, which played this part before, fails quickly at the NFA state limit).
   */
  static String slowGrammar() {
    StringBuilder g = new StringBuilder("root ::= r0");
    for (int i = 1; i < 900; i++) {
      g.append(" | r").append(i);
    }
    g.append('\n');
    for (int i = 0; i < 900; i++) {
      g.append('r').append(i).append(" ::= \"k").append(i).append("\" [a-z]{0,");
      g.append(4000 + i).append("} \"x\" r").append(i).append("?\n");
    }
    return g.toString();
  }

  /** A 4-token completion of "a" constrained by {@link #slowGrammar()} (vLLM's field). */
  static String slowGrammarBody() {
    ObjectNode b = Json.MAPPER.createObjectNode();
    b.put("prompt", "a");
    b.put("max_tokens", 4);
    b.putObject("structured_outputs").put("grammar", slowGrammar());
    return b.toString();
  }
}
