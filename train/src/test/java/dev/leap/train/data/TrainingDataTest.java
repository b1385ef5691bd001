package dev.leap.train.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.testkit.Shared;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The generated training data keeps SGLang's formats exactly: every character sheet and every city
 * answer matches the benchmark's regex (the copies shipped in {@link SglangInputs}, checked against
 * {@code ../shared}), the fact table covers the benchmark's 50 names in order, documents state
 * their city's facts, fall in the asked length, and training never draws an evaluation seed.
 */
class TrainingDataTest {
  static final HfTokenizer GPT2 = HfTokenizer.gpt2();

  static String sglang(String name) {
    return SglangInputs.jumpForward(name).get("pattern").asText();
  }

  @Test
  void shippedSglangInputsEqualTheSharedCorpus() throws Exception {
    for (String file : List.of("regexes.json", "dataset.txt")) {
      Path shared = Shared.require("corpora/sglang-json-bench/" + file);
      assertArrayEquals(Files.readAllBytes(shared), SglangInputs.read(file), file);
    }
    assertEquals(50, SglangInputs.characterNames().size());
    assertTrue(SglangInputs.characterPromptTemplate().contains("{name}"));
    assertTrue(SglangInputs.cityPromptTemplate().contains("{document}"));
  }

  @Test
  void characterSheetsMatchTheBenchmarkRegexAndCoverItsNames() throws Exception {
    Pattern p = Pattern.compile(sglang("character_regex"));
    List<Character> all = Character.all();
    assertEquals(50, all.size());
    for (Character c : all) {
      assertTrue(p.matcher(c.sheet()).matches(), c.benchmarkName() + ":\n" + c.sheet());
      assertTrue(c.prompt().startsWith(c.benchmarkName() + " is a character in Harry Potter."));
    }
    assertEquals(
        SglangInputs.characterNames(), all.stream().map(Character::benchmarkName).toList());
    assertTrue(
        all.get(4).ownChoices().contains("wood"),
        "Snape's wand wood is marked as the project's choice");
    assertFalse(all.get(0).ownChoices().contains("wood"), "Harry's holly wand is from the books");
  }

  @Test
  void cityAnswersMatchTheRegexAndDocumentsStateTheirFacts() throws Exception {
    Pattern p = Pattern.compile(sglang("city_regex"));
    Set<String> names = new HashSet<>();
    for (long seed = 0; seed < 40; seed++) {
      City c = City.of(seed);
      assertTrue(p.matcher(c.answer()).matches(), c.answer());
      names.add(c.name());
      int target = 200 + (int) (seed * 80);
      String doc = CityDocument.text(c, seed, target, GPT2);
      int tokens = GPT2.encode(doc).length;
      assertTrue(doc.startsWith(c.name() + " is "), "the article opens with the city's name");
      for (String fact :
          List.of(
              c.country(),
              c.latitude(),
              Long.toString(c.population()),
              c.landmarks().get(0),
              c.landmarks().get(1),
              c.landmarks().get(2))) {
        assertTrue(doc.contains(fact), "document " + seed + " states " + fact);
      }
      assertTrue(
          doc.contains(
              c.landmarks().get(0)
                  + ", the "
                  + c.landmarks().get(1)
                  + " and the "
                  + c.landmarks().get(2)),
          "the three landmarks are listed together, in answer order");
      assertTrue(
          tokens >= target && tokens <= Math.max(target + 200, 800),
          "document " + seed + ": " + tokens + " tokens for " + target);
    }
    assertTrue(names.size() > 30, "cities differ from seed to seed");
  }

  @Test
  void trainingDrawsNoEvaluationSeedAndIsDeterministic() {
    TrainingMix mix = new TrainingMix(GPT2, 3, 800, 2, 100, 400);
    List<Example> a = mix.step(5);
    List<Example> b = mix.step(5);
    assertEquals(a.size(), b.size());
    for (int i = 0; i < a.size(); i++) {
      assertTrue(java.util.Arrays.equals(a.get(i).tokens(), b.get(i).tokens()));
      Example e = a.get(i);
      assertEquals(GPT2.eosIds()[0], e.tokens()[e.tokens().length - 1], "answers end with EOS");
    }
    Set<String> evalNames = new HashSet<>();
    for (long s = 0; s < 200; s++) {
      evalNames.add(City.of(City.EVAL_SEED_BASE + s).answer());
    }
    for (int step = 0; step < 3; step++) {
      for (Example e : mix.step(step)) {
        String answer =
            GPT2.decode(
                java.util.Arrays.copyOfRange(e.tokens(), e.answerStart(), e.tokens().length - 1));
        assertFalse(evalNames.contains(answer), "a training example repeats an evaluation city");
      }
    }
  }
}
