package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The examples of each training step, drawn deterministically from (seed, step) so that a resumed
 * run sees exactly the examples it would have seen: character sheets of SGLang's 50 names (the
 * benchmark's prompt, then the sheet and EOS) and extraction over fictional cities (SGLang's city
 * prompt around a document of a few hundred to about 3,500 tokens — a quarter of them in the top
 * three eighths of that range — then the answer and EOS; the article's repeated bigrams are
 * auxiliary targets, see {@link Example#recallTargets}). City seeds are below {@link
 * City#EVAL_SEED_BASE}: evaluation documents are never trained on.
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
  public TrainingMix(
      Tokenizer tokenizer,
      long seed,
      int stepTokens,
      int charactersPerStep,
      int minDocTokens,
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
      // A quarter long (the benchmark's range, positions up to the context's end), the rest uniform
      // in
      // log space below that: many short documents (cheap examples) and enough long ones.
      int longFrom = Math.max(minDocTokens, maxDocTokens * 5 / 8);
      int target;
      if (r.nextInt(4) == 0) {
        target = longFrom + r.nextInt(maxDocTokens - longFrom + 1);
      } else {
        target =
            (int)
                Math.round(
                    minDocTokens * Math.pow((double) longFrom / minDocTokens, r.nextDouble()));
      }
      String doc = CityDocument.text(city, r.nextLong(), target, tokenizer);
      List<String> qs = CityDocument.questions();
      Example e = example(CityDocument.prompt(doc, qs.get(r.nextInt(qs.size()))), city.answer());
      e = new Example(e.tokens(), e.answerStart(), recallTargets(e.tokens(), e.answerStart(), r));
      out.add(e);
      tokens += e.tokens().length;
    }
    return out;
  }

  /** Most recall targets per document. */
  static final int RECALL_TARGETS = 96;

  /**
   * Prompt positions {@code q} whose bigram {@code (tokens[q-1], tokens[q])} occurred earlier in
   * the prompt — a repeated name, landmark or number, predictable only by looking back and copying
   * (what induction heads do) — at most {@link #RECALL_TARGETS} of them, drawn at random.
   */
  static int[] recallTargets(int[] tokens, int answerStart, SplittableRandom r) {
    Set<Long> seen = new HashSet<>();
    IntArrayList hits = new IntArrayList();
    for (int q = 1; q < answerStart; q++) {
      long bigram = ((long) tokens[q - 1] << 32) | (tokens[q] & 0xFFFFFFFFL);
      if (!seen.add(bigram)) {
        hits.add(q);
      }
    }
    int[] all = hits.toIntArray();
    for (int i = all.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    int[] out = Arrays.copyOf(all, Math.min(all.length, RECALL_TARGETS));
    Arrays.sort(out);
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
