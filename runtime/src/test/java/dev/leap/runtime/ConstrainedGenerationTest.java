package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.runtime.testing.TestModels;
import dev.leap.testkit.RandomRegex;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Constrained generation is always valid: seeded random regexes (the compressed-fsm test
 * generator), random small models built by the project's code with GPT-2's tokenizer, random
 * sampling parameters; every result ends complete or with finish reason {@code length} (then a
 * prefix of a match), with jump-forward on and off. The runtime checks after every jump that the
 * DFA state equals the walk of all committed bytes ({@code optCheckInvariants}).
 */
class ConstrainedGenerationTest {

  record Case(String regex, GenerationRequest request) {}

  static List<Case> cases(long seed, int n) {
    RandomRegex gen = new RandomRegex(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Case> out = new ArrayList<>();
    String[] prompts = {"Answer:", "The value is", "JSON:\n", "名前は", "x"};
    String[] templates = {
      "\\{\"id\": [0-9]{1,4}, \"name\": \"[a-z ]{1,8}\", \"ok\": (true|false)\\}",
      "(SELECT|UPDATE) [a-z_]{1,6} FROM users WHERE id = [0-9]{1,3};",
      "Date: [0-9]{4}-[0-9]{2}-[0-9]{2}, weather: (sunny|rainy|cloudy)",
      "<(item|entry)>[A-Za-z]{1,6}</(item|entry)>",
      "\\[\"[\\w]{1,5}\", \"[\\w]{1,5}\"\\]",
      "(東京|大阪)は日本の都市です。"
    };
    while (out.size() < n) {
      String regex =
          out.size() % 3 == 0
              ? templates[rnd.nextInt(templates.length)]
              : gen.next(1 + rnd.nextInt(2));
      try {
        CompressedFsm.compile(regex, 2000);
      } catch (ConstraintException e) {
        continue;
      }
      SamplingParams.Builder p =
          SamplingParams.builder().maxTokens(4 + rnd.nextInt(28)).seed(rnd.nextLong());
      if (rnd.nextBoolean()) {
        p.temperature(0.3 + rnd.nextDouble() * 1.5);
        if (rnd.nextBoolean()) {
          p.topK(1 + rnd.nextInt(50));
        }
        if (rnd.nextBoolean()) {
          p.topP(0.2 + 0.8 * rnd.nextDouble());
        }
      }
      out.add(
          new Case(
              regex,
              GenerationRequest.of(
                  prompts[rnd.nextInt(prompts.length)], Constraint.regex(regex), p.build())));
    }
    return out;
  }

  static void check(Case c, Generation g, String what) {
    assertTrue(!g.isError(), what + ": error " + g.error() + " for /" + c.regex() + "/");
    Dfa dfa = CompressedFsm.compile(c.regex(), 2000).dfa();
    byte[] bytes = g.text().getBytes(StandardCharsets.UTF_8);
    int state = dfa.walk(dfa.initialState(), bytes);
    if (g.finishReason() == FinishReason.LENGTH) {
      assertTrue(
          state != Dfa.DEAD,
          what + ": /" + c.regex() + "/ output is not a prefix of a match: " + g.text());
      assertTrue(g.tokenIds().length <= c.request().params().maxTokens());
    } else {
      assertTrue(g.isComplete(), what + ": /" + c.regex() + "/ stopped incomplete: " + g.text());
      assertTrue(dfa.isAccepting(state));
    }
    assertEquals(g.isComplete(), dfa.isAccepting(state), what + ": complete flag");
  }

  @Test
  void randomConstrainedGenerationsAreAlwaysValid() {
    long seed = 31337L;
    String[] models = {"llama", "qwen2", "qwen3"};
    int total = 0;
    int complete = 0;
    int jumps = 0;
    for (int m = 0; m < models.length; m++) {
      Path dir =
          TestModels.dir(
              models[m],
              switch (m) {
                case 0 -> TestModels.llama();
                case 1 -> TestModels.qwen2();
                default -> TestModels.qwen3();
              });
      List<Case> cases = cases(seed + m, 150);
      for (boolean jump : new boolean[] {true, false}) {
        try (LeapRuntime rt =
            LeapRuntime.builder()
                .setModelDir(dir)
                .optJumpForward(jump)
                .optCheckInvariants(true)
                .optKvCapacity(16_384)
                .build()) {
          List<GenerationRequest> reqs = new ArrayList<>();
          for (Case c : cases) {
            reqs.add(c.request());
          }
          List<Generation> results = rt.generateAll(reqs);
          for (int i = 0; i < cases.size(); i++) {
            Generation g = results.get(i);
            check(
                cases.get(i),
                g,
                "seed " + (seed + m) + " model " + models[m] + " jump " + jump + " case " + i);
            total++;
            complete += g.isComplete() ? 1 : 0;
            jumps += g.stats().jumps();
          }
          assertEquals(rt.kvCapacity(), rt.freeKvSlots() + rt.cachedKvSlots(), "KV slots leaked");
        }
      }
    }
    System.out.printf(
        "random constrained generation: %d cases, %d complete, the rest stopped at maxTokens; %d jumps%n",
        total, complete, jumps);
    assertTrue(jumps > 300, "jump-forward was barely exercised: " + jumps);
    assertTrue(complete > total / 4, "too few complete: " + complete);
  }

  /**
   * A constraint whose start is forced jumps at admission: the forced tokens are prefilled with the
   * prompt, so a request takes one forward pass per sampled token (the last sampled token ends it
   * without another pass), and an output forced entirely takes none.
   */
  @Test
  void aForcedStartIsJumpedAtAdmission() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      Generation all = rt.generate("Say:", Constraint.regex("hello, world"));
      assertEquals("hello, world", all.text());
      assertEquals(FinishReason.STOP, all.finishReason());
      assertEquals(
          0, all.stats().forwardPasses(), "an output forced entirely needs no forward pass");
      assertEquals(0, all.stats().tokensSampled());

      Generation cut =
          rt.generate(
              "Say:",
              Constraint.regex("hello, world"),
              SamplingParams.builder().maxTokens(1).build());
      assertEquals(FinishReason.LENGTH, cut.finishReason());
      assertEquals(1, cut.tokenIds().length);
      assertTrue("hello, world".startsWith(cut.text()) && !cut.text().isEmpty(), cut.text());

      Generation some = rt.generate("Record:", Constraint.regex("\\{\"id\": [0-9]{3}\\}"));
      assertTrue(some.isComplete(), some.toString());
      assertTrue(some.text().startsWith("{\"id\": "), some.text());
      assertTrue(
          some.stats().tokensJumped() > 0 && some.stats().tokensSampled() > 0,
          some.stats().toString());
      assertEquals(
          some.stats().tokensSampled(), some.stats().forwardPasses(), some.stats().toString());
    }
  }

  @Test
  void textEqualsTheBytesOfTheTokens() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      Generation g = rt.generate("Name:", Constraint.regex("[A-Z][a-z]{2,8} (Smith|Jones)"));
      assertTrue(g.isComplete(), g.toString());
      assertEquals(g.text(), rt.tokenizer().decode(g.tokenIds()));
      Generation c = rt.generate("Pick:", Constraint.choice("red", "green", "blue"));
      assertTrue(List.of("red", "green", "blue").contains(c.text()), c.text());
      assertEquals(FinishReason.STOP, c.finishReason());
      Generation none =
          rt.generate("Hello", Constraint.none(), SamplingParams.builder().maxTokens(5).build());
      assertEquals(5, none.tokenIds().length);
      assertEquals(FinishReason.LENGTH, none.finishReason());
      assertArrayEquals(rt.tokenizer().encode("Hello"), rt.tokenizer().encode("Hello"));
    }
  }
}
