package dev.leap.bench.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.bench.Json;
import org.junit.jupiter.api.Test;

/** The abuse benchmark's request bodies are the JSON the server is meant to receive. */
class AbuseRequestsTest {

  @Test
  void theSlowGrammarBodyCarriesTheGrammarTextUnchanged() throws Exception {
    JsonNode b = Json.MAPPER.readTree(AbuseRequests.slowGrammarBody());
    assertEquals("a", b.get("prompt").asText());
    assertEquals(4, b.get("max_tokens").asInt());
    String g = b.at("/structured_outputs/grammar").asText();
    assertEquals(AbuseRequests.slowGrammar(), g);
    String[] lines = g.split("\n");
    assertEquals(901, lines.length, "root and 900 rules");
    assertTrue(lines[0].startsWith("root ::= r0 | r1 | "), lines[0]);
    assertTrue(lines[0].endsWith(" | r899"), lines[0]);
    assertEquals("r0 ::= \"k0\" [a-z]{0,4000} \"x\" r0?", lines[1]);
    assertEquals("r899 ::= \"k899\" [a-z]{0,4899} \"x\" r899?", lines[900]);
  }

  @Test
  void thePhoneBodyEscapesTheRegexForJson() throws Exception {
    JsonNode b = Json.MAPPER.readTree(AbuseRequests.phoneBody(AbuseRequests.PHONE));
    assertEquals(AbuseRequests.PHONE, b.get("regex").asText());
    assertEquals(20, b.get("max_tokens").asInt());
  }
}
