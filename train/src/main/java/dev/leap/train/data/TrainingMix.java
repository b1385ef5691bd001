package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The examples of each training step, drawn deterministically from (seed, step) so that a resumed
 * run sees exactly the examples it would have seen: character sheets of SGLang's 50 names (the
 * benchmark's prompt, then the sheet and EOS) and extraction over fictional cities (SGLang's city
 * prompt around a document of a few hundred to about 3,500 tokens — a quarter of them in the top
 * three eighths of that range — then the answer and EOS).
 * City seeds are below {@link City#EVAL_SEED_BASE}: evaluation documents are never trained on.
 */
public final class TrainingMix {
  private final Tokenizer tokenizer;
  private final long seed;
  private final int stepTokens;
  private final int charactersPerStep;
  private final int minDocTokens;
  private final int maxDocTokens;
  private final List<Character> characters = Character.all();
  private final int eos;

  /**
   * @param stepTokens tokens of city examples per step (at least one document)
   * @param charactersPerStep character sheets per step
   * @param minDocTokens shortest document
   * @param maxDocTokens longest document
   */
  public TrainingMix(Tokenizer tokenizer, long seed, int stepTokens, int charactersPerStep, int minDocTokens,
      int maxDocTokens) {
    this.tokenizer = tokenizer;
    this.seed = seed;
    this.stepTokens = stepTokens;
    this.charactersPerStep = charactersPerStep;
    this.minDocTokens = minDocTokens;
    this.maxDocTokens = maxDocTokens;
    this.eos = tokenizer.eosIds()[0];
  }

  /** The examples of step {@code step} (0-based). */
  public List<Example> step(int step) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + step);
    List<Example> out = new ArrayList<>();
    for (int i = 0; i < charactersPerStep; i++) {
      Character c = characters.get(r.nextInt(characters.size()));
      out.add(example(c.prompt(), c.sheet()));
    }
    int tokens = 0;
    while (tokens < stepTokens) {
      long citySeed = r.nextLong(City.EVAL_SEED_BASE);
      City city = City.of(citySeed);
      // A quarter long (the benchmark's range, positions up to the context's end), the rest uniform in
      // log space below that: many short documents (cheap examples) and enough long ones.
      int longFrom = Math.max(minDocTokens, maxDocTokens * 5 / 8);
      int target;
      if (r.nextInt(4) == 0) {
        target = longFrom + r.nextInt(maxDocTokens - longFrom + 1);
      } else {
        target = (int) Math.round(minDocTokens * Math.pow((double) longFrom / minDocTokens, r.nextDouble()));
      }
      String doc = CityDocument.text(city, r.nextLong(), target, tokenizer);
      List<String> qs = CityDocument.questions();
      Example e = example(CityDocument.prompt(doc, qs.get(r.nextInt(qs.size()))), city.answer());
      out.add(e);
      tokens += e.tokens().length;
    }
    return out;
  }

  private Example example(String prompt, String answer) {
    int[] p = tokenizer.encode(prompt);
    int[] a = tokenizer.encode(answer);
    int[] all = new int[p.length + a.length + 1];
    System.arraycopy(p, 0, all, 0, p.length);
    System.arraycopy(a, 0, all, p.length, a.length);
    all[all.length - 1] = eos;
    return new Example(all, p.length);
  }
}
