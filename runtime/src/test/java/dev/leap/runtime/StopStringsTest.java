package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Stop strings, matched incrementally as the output grows and shrinks (jumps retract tokens), give
 * what the naive rule gives: greedy, the output with stop strings is the output without them cut
 * where a stop string first appears (seeded random stop strings taken from the unstopped outputs).
 */
class StopStringsTest {

  @Test
  void stoppedOutputsAreTheUnstoppedOnesCutAtTheFirstStopString() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(77);
    List<ConstrainedGenerationTest.Case> cases = ConstrainedGenerationTest.cases(77, 30);
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      List<GenerationRequest> plain = new ArrayList<>();
      for (ConstrainedGenerationTest.Case c : cases) {
        SamplingParams p = c.request().params();
        plain.add(
            GenerationRequest.of(
                c.request().prompt(),
                c.request().constraint(),
                SamplingParams.builder().maxTokens(p.maxTokens()).build()));
      }
      List<Generation> full = rt.generateAll(plain);
      List<GenerationRequest> stopped = new ArrayList<>();
      List<List<String>> stopLists = new ArrayList<>();
      for (int i = 0; i < cases.size(); i++) {
        String text = full.get(i).text();
        List<String> stops = new ArrayList<>();
        for (int k = 0; k < 1 + rnd.nextInt(2); k++) {
          if (text.length() > 1 && rnd.nextInt(4) > 0) {
            int from = rnd.nextInt(text.length() - 1);
            stops.add(text.substring(from, Math.min(text.length(), from + 1 + rnd.nextInt(4))));
          } else {
            stops.add("#never#" + k);
          }
        }
        stopLists.add(stops);
        stopped.add(
            GenerationRequest.of(
                plain.get(i).prompt(),
                plain.get(i).constraint(),
                SamplingParams.builder()
                    .maxTokens(plain.get(i).params().maxTokens())
                    .stop(stops)
                    .build()));
      }
      List<Generation> cut = rt.generateAll(stopped);
      int cutShort = 0;
      for (int i = 0; i < cases.size(); i++) {
        Generation f = full.get(i);
        Generation c = cut.get(i);
        if (f.isError()) {
          continue;
        }
        assertFalse(c.isError(), c.toString());
        int at = -1;
        for (String s : stopLists.get(i)) {
          int j = f.text().indexOf(s);
          if (j >= 0 && (at < 0 || j < at)) {
            at = j;
          }
        }
        String what = "case " + i + " (seed 77), stops " + stopLists.get(i) + ", full " + f;
        if (at < 0) {
          assertEquals(f.text(), c.text(), what);
          assertArrayEquals(f.tokenIds(), c.tokenIds(), what);
        } else {
          assertEquals(f.text().substring(0, at), c.text(), what);
          assertEquals(FinishReason.STOP, c.finishReason(), what);
          cutShort++;
        }
      }
      assertTrue(
          cutShort > 5, "only " + cutShort + " outputs met a stop string: the test checks little");
    }
  }
}
