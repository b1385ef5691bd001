package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Streamed output ({@link LeapRuntime#submit(GenerationRequest, OutputListener)}) against the final
 * result, over the seeded random constrained cases (jumps, retokenization, healing) with random
 * stop strings: the deltas never run ahead of the final text (their concatenation is a prefix of
 * it), a streamed request's result equals the unstreamed one, and most of the text arrives before
 * the end.
 */
class StreamingTest {

  @Test
  void deltasArePrefixesOfTheFinalTextAndStreamingChangesNothing() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(5);
    List<ConstrainedGenerationTest.Case> cases = ConstrainedGenerationTest.cases(5, 30);
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      List<GenerationRequest> requests = new ArrayList<>();
      for (ConstrainedGenerationTest.Case c : cases) {
        SamplingParams p = c.request().params();
        List<String> stops =
            rnd.nextBoolean()
                ? List.of()
                : List.of(String.valueOf((char) ('a' + rnd.nextInt(26))), "\"}");
        requests.add(
            GenerationRequest.of(
                c.request().prompt(),
                c.request().constraint(),
                SamplingParams.builder().maxTokens(p.maxTokens()).stop(stops).build()));
      }
      List<Generation> plain = rt.generateAll(requests);
      List<StringBuilder> streamed = new ArrayList<>();
      List<GenerationHandle> handles = new ArrayList<>();
      for (GenerationRequest r : requests) {
        StringBuilder sb = new StringBuilder();
        streamed.add(sb);
        handles.add(
            rt.submit(
                r,
                delta -> {
                  assertTrue(!delta.isEmpty(), "no empty delta");
                  synchronized (sb) {
                    sb.append(delta);
                  }
                }));
      }
      long total = 0;
      long early = 0;
      for (int i = 0; i < requests.size(); i++) {
        Generation g = handles.get(i).join();
        assertEquals(
            plain.get(i).text(), g.text(), "streaming changes nothing: " + requests.get(i));
        String sent;
        synchronized (streamed.get(i)) {
          sent = streamed.get(i).toString();
        }
        assertTrue(
            g.text().startsWith(sent),
            "case " + i + ": streamed '" + sent + "' is not a prefix of '" + g.text() + "'");
        total += g.text().length();
        early += sent.length();
      }
      assertTrue(
          early * 2 > total,
          "most text streamed before the end: " + early + " of " + total + " characters");
    }
  }
}
