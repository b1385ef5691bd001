package dev.leap.train.tokenizer;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.Character;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The text the project's tokenizer is trained on, all of it made by the project: the 50 character
 * sheets with their prompt, and city articles with SGLang's city prompt, a question and the answer.
 * Cities come from training seeds (below {@link City#EVAL_SEED_BASE}). Deterministic for its seed.
 */
public final class TokenizerCorpus {
  private TokenizerCorpus() {}

  /**
   * @param articles city articles (200 to 1,500 GPT-2 tokens each)
   * @param cards short texts per article (answers alone)
   */
  public static List<String> texts(long seed, int articles, int cards) {
    SplittableRandom r = new SplittableRandom(seed * 31 + 7);
    HfTokenizer gpt2 = HfTokenizer.gpt2();
    List<String> out = new ArrayList<>();
    for (Character c : Character.all()) {
      out.add(c.prompt() + c.sheet());
    }
    List<String> questions = CityDocument.questions();
    for (int i = 0; i < articles; i++) {
      long citySeed = r.nextLong(City.EVAL_SEED_BASE);
      City city = City.of(citySeed);
      String doc = CityDocument.text(city, r.nextLong(), 200 + r.nextInt(1300), gpt2);
      out.add(CityDocument.prompt(doc, questions.get(r.nextInt(questions.size()))) + city.answer());
    }
    for (int i = 0; i < cards; i++) {
      out.add(City.of(r.nextLong(City.EVAL_SEED_BASE)).answer());
    }
    return out;
  }
}
