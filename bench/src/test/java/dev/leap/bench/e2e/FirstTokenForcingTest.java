package dev.leap.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.bench.BenchData;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.runtime.DemoModel;
import dev.leap.train.data.City;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The forced regex of {@code --force-first-token}, with the demo model's tokenizer. */
class FirstTokenForcingTest {
  @Test
  void theForcedRegexAcceptsTheTruthAndNothingWithAnotherFirstToken() throws IOException {
    HfTokenizer tok = HfTokenizer.load(DemoModel.ensure().resolve("tokenizer.json"));
    String base = BenchData.cityRegex();
    Pattern plain = Pattern.compile(base);
    SplittableRandom r = new SplittableRandom(27);
    for (int round = 0; round < 200; round++) {
      City c = City.open(r.nextLong(1L << 40));
      List<String> starts = FirstTokenForcing.firstTokens(c, tok);
      List<String> values = new ArrayList<>(c.fields().values());
      assertEquals(values.size(), starts.size());
      for (int f = 0; f < values.size(); f++) {
        assertTrue(values.get(f).startsWith(starts.get(f)), starts.get(f) + " of " + values.get(f));
        assertFalse(starts.get(f).isEmpty());
      }
      // The regex is for Leap's dialect; its value patterns read the same in java.util.regex.
      String regex = FirstTokenForcing.regex(base, c, tok);
      Pattern forced = Pattern.compile(regex);
      String truth = c.answer().strip();
      assertTrue(forced.matcher(truth).matches(), truth);
      Dfa leap = CompressedFsm.compile(regex).dfa();
      assertTrue(leap.matches(truth.getBytes(StandardCharsets.UTF_8)), regex);
      assertTrue(plain.matcher(truth).matches(), truth);
      // Another first character in any one value: the plain regex takes it, the forced one not.
      int f = r.nextInt(values.size());
      String v = values.get(f);
      char other =
          f == 2 || f == 3 ? (v.charAt(0) == '9' ? '1' : '9') : (v.charAt(0) == 'Q' ? 'Z' : 'Q');
      String needle = f == 2 || f == 3 ? ": " + v : "\"" + v + "\"";
      int at = truth.indexOf(needle) + (f == 2 || f == 3 ? 2 : 1);
      String changed = truth.substring(0, at) + other + truth.substring(at + 1);
      assertTrue(plain.matcher(changed).matches(), changed);
      assertFalse(forced.matcher(changed).matches(), changed);
      assertFalse(leap.matches(changed.getBytes(StandardCharsets.UTF_8)), changed);
    }
  }

  @Test
  void aRegexWithoutTheValuePatternsIsAClearError() throws IOException {
    HfTokenizer tok = HfTokenizer.load(DemoModel.ensure().resolve("tokenizer.json"));
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> FirstTokenForcing.regex("\\{\"name\": \"[a-z]+\"\\}", City.open(3), tok));
    assertTrue(e.getMessage().contains("no pattern"), e.getMessage());
  }
}
