package dev.leap.train.tokenizer;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.Character;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import dev.leap.train.data.FactCard;
import dev.leap.train.data.GazetteerDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The text the project's tokenizer is trained on, all of it made by the project: the 50 character
 * sheets with their prompt; city articles with SGLang's city prompt, a question and the answer,
 * from both article generators ({@link CityDocument} with closed and open values, and the held-out
 * {@link GazetteerDocument}: the tokenizer is no model and must not split the second style into
 * crumbs); and fact cards. Cities come from training seeds (below {@link City#EVAL_SEED_BASE}).
 * Deterministic for its seed.
 */
public final class TokenizerCorpus {
  private TokenizerCorpus() {}

  /**
   * @param articles city articles (200 to 1,500 GPT-2 tokens each)
   * @param cards fact cards with their answers
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
      int kind = i % 3;
      City city = kind == 0 ? City.of(citySeed) : City.open(citySeed);
      int target = 200 + r.nextInt(1300);
      String doc =
          kind == 2
              ? GazetteerDocument.text(city, r.nextLong(), target, gpt2)
              : CityDocument.text(city, r.nextLong(), target, gpt2, kind == 1);
      out.add(CityDocument.prompt(doc, questions.get(r.nextInt(questions.size()))) + city.answer());
    }
    FactCard.Kind[] kinds = FactCard.Kind.values();
    for (int i = 0; i < cards; i++) {
      City city = City.open(r.nextLong(City.EVAL_SEED_BASE));
      City other = r.nextBoolean() ? City.open(r.nextLong(City.EVAL_SEED_BASE)) : null;
      String card = FactCard.text(city, other, kinds[r.nextInt(kinds.length)], r);
      out.add(
          CityDocument.prompt(card, questions.get(r.nextInt(questions.size()))) + city.answer());
    }
    return out;
  }
}
