package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

/**
 * The copy curriculum (recipe A of {@code ../shared/notes/training.md}): the examples of each step,
 * a function of (seed, step) so a resumed run sees what it would have seen. Cities come from {@link
 * City#open} (open values) with seeds below {@link City#EVAL_SEED_BASE}; the second article
 * generator ({@link GazetteerDocument}) is never drawn.
 *
 * <ol>
 *   <li>phase 0 (the warm start, recipe C; only with {@code warmSteps > 0}), steps {@code [0,
 *       warmSteps)}: pure copy and associative-recall drills ({@link CopyDrill});
 *   <li>phase 1, steps {@code [warmSteps, phaseEnds[0])}: fact cards ({@link FactCard}, half with a
 *       distractor, one in ten a copy drill), a share {@code drillShare} of the examples replaced
 *       by {@link CopyDrill}s;
 *   <li>phase 2, to {@code phaseEnds[1]}: articles of 300 to 1,500 tokens ({@link CityDocument}
 *       with open values, in its {@link Layout}s), a quarter of the examples still cards (some of
 *       them interviews or cards naming the city by description);
 *   <li>phase 3, to {@code phaseEnds[2]}: articles of 2,000 to 4,400 tokens (at most the context
 *       less the question and answer), with cards and shorter articles mixed in (a fifth each);
 *       from {@link #withComposedFrom}'s step on, half its articles are {@link ComposedDocument}s.
 * </ol>
 *
 * Every step also has {@code charactersPerStep} character sheets (or {@link #withCharacters}' count
 * for the step), so the model keeps the character benchmark. Each city example marks its answer's
 * value tokens ({@link Example#valueTargets}).
 */
public final class Curriculum {
  private final Tokenizer tokenizer;
  private final long seed;
  private final int stepTokens;
  private final IntUnaryOperator charactersAt;
  private final int varietyFrom;
  private final int composedFrom;
  private final int nonceFrom;

  /** Thirds (1-3) of the composed articles' fact sentences in {@link NonceFrames} from then. */
  private final int nonceThirds;

  private final int[] phaseEnds;
  private final int maxTokens;
  private final int warmSteps;
  private final double drillShare;
  private final double tokenShare;
  private final List<Character> characters = Character.all();

  /**
   * @param stepTokens tokens of city examples per step (at least one example)
   * @param phaseEnds the step at which each of the three phases ends (increasing)
   * @param maxTokens the longest example (the model's context)
   */
  public Curriculum(
      Tokenizer tokenizer,
      long seed,
      int stepTokens,
      int charactersPerStep,
      int[] phaseEnds,
      int maxTokens) {
    this(tokenizer, seed, stepTokens, charactersPerStep, phaseEnds, maxTokens, 0, 0);
  }

  public Curriculum(
      Tokenizer tokenizer,
      long seed,
      int stepTokens,
      int charactersPerStep,
      int[] phaseEnds,
      int maxTokens,
      int warmSteps,
      double drillShare) {
    this(
        tokenizer,
        seed,
        stepTokens,
        charactersPerStep,
        phaseEnds,
        maxTokens,
        warmSteps,
        drillShare,
        0);
  }

  /**
   * @param warmSteps steps of phase 0 (copy drills only) at the start, at most {@code phaseEnds[0]}
   * @param drillShare the share of phase 1's examples that are {@link CopyDrill}s instead of cards
   * @param tokenShare the share of the warm start's examples, and of phase 1's drills, that are
   *     repeated random tokens ({@link CopyDrill#tokens}) instead of text drills
   */
  public Curriculum(
      Tokenizer tokenizer,
      long seed,
      int stepTokens,
      int charactersPerStep,
      int[] phaseEnds,
      int maxTokens,
      int warmSteps,
      double drillShare,
      double tokenShare) {
    if (phaseEnds.length != 3 || phaseEnds[0] > phaseEnds[1] || phaseEnds[1] > phaseEnds[2]) {
      throw new IllegalArgumentException(
          "three increasing phase ends expected, got " + Arrays.toString(phaseEnds));
    }
    if (warmSteps < 0
        || warmSteps > phaseEnds[0]
        || drillShare < 0
        || drillShare > 1
        || tokenShare < 0
        || tokenShare > 1) {
      throw new IllegalArgumentException(
          "warm start of "
              + warmSteps
              + " steps (at most "
              + phaseEnds[0]
              + ") and a drill share of "
              + drillShare
              + " (0..1)");
    }
    this.warmSteps = warmSteps;
    this.drillShare = drillShare;
    this.tokenShare = tokenShare;
    this.tokenizer = tokenizer;
    this.seed = seed;
    this.stepTokens = stepTokens;
    this.charactersAt = step -> charactersPerStep;
    this.varietyFrom = Integer.MAX_VALUE;
    this.composedFrom = Integer.MAX_VALUE;
    this.nonceFrom = Integer.MAX_VALUE;
    this.nonceThirds = 1;
    this.phaseEnds = phaseEnds.clone();
    this.maxTokens = maxTokens;
  }

  private Curriculum(
      Curriculum c,
      IntUnaryOperator charactersAt,
      int varietyFrom,
      int composedFrom,
      int nonceFrom,
      int nonceThirds) {
    this.varietyFrom = varietyFrom;
    this.composedFrom = composedFrom;
    this.nonceFrom = nonceFrom;
    this.nonceThirds = nonceThirds;
    this.tokenizer = c.tokenizer;
    this.seed = c.seed;
    this.stepTokens = c.stepTokens;
    this.charactersAt = charactersAt;
    this.phaseEnds = c.phaseEnds;
    this.maxTokens = c.maxTokens;
    this.warmSteps = c.warmSteps;
    this.drillShare = c.drillShare;
    this.tokenShare = c.tokenShare;
  }

  /**
   * This curriculum with {@code charactersAt.applyAsInt(step)} character sheets in each step
   * instead of a constant count (a schedule's cycles may change it); everything else the same.
   */
  public Curriculum withCharacters(IntUnaryOperator charactersAt) {
    return new Curriculum(this, charactersAt, varietyFrom, composedFrom, nonceFrom, nonceThirds);
  }

  /**
   * This curriculum with {@link TrainingVariety} in its cards and articles from step {@code
   * fromStep} on (near misses, other openings, articles that name the city rarely; none by default,
   * which is the data that trained demo-v5); everything else the same.
   */
  public Curriculum withVarietyFrom(int fromStep) {
    return new Curriculum(this, charactersAt, fromStep, composedFrom, nonceFrom, nonceThirds);
  }

  /**
   * This curriculum with half of phase 3's articles written by {@link ComposedDocument} from step
   * {@code fromStep} on (the other half, the cards and everything before that step as they were;
   * none by default, which is the data that trained demo-v5).
   */
  public Curriculum withComposedFrom(int fromStep) {
    return new Curriculum(this, charactersAt, varietyFrom, fromStep, nonceFrom, nonceThirds);
  }

  /**
   * This curriculum with {@link NonceFrames} in a third of the fact sentences of its {@link
   * ComposedDocument}s from step {@code fromStep} on (only where {@link #withComposedFrom} writes
   * them; everything else as it was; none by default).
   */
  public Curriculum withNonceFrom(int fromStep) {
    return withNonceFrom(fromStep, 1);
  }

  /**
   * {@link #withNonceFrom(int)} with {@code thirds} (1, 2 or 3) thirds of those fact sentences in
   * {@link NonceFrames} instead of one (1 is the same data as {@link #withNonceFrom(int)}).
   */
  public Curriculum withNonceFrom(int fromStep, int thirds) {
    if (thirds < 1 || thirds > 3) {
      throw new IllegalArgumentException("nonce thirds must be 1, 2 or 3, got " + thirds);
    }
    return new Curriculum(this, charactersAt, varietyFrom, composedFrom, fromStep, thirds);
  }

  /** The phase (0 for the warm start, 1, 2 or 3) of a 0-based step. */
  public int phase(int step) {
    return step < warmSteps ? 0 : step < phaseEnds[0] ? 1 : step < phaseEnds[1] ? 2 : 3;
  }

  /** The examples of step {@code step} (0-based). */
  public List<Example> step(int step) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_033L + step);
    List<Example> out = new ArrayList<>();
    // No character sheets in the warm start: any text beside the token drills (character sheets,
    // text
    // drills) kept induction heads from forming there.
    int sheets = phase(step) == 0 && tokenShare > 0 ? 0 : charactersAt.applyAsInt(step);
    for (int i = 0; i < sheets; i++) {
      Character c = characters.get(r.nextInt(characters.size()));
      out.add(example(tokenizer, c.prompt(), c.sheet(), null));
    }
    int phase = phase(step);
    boolean variety = step >= varietyFrom;
    boolean composed = phase == 3 && step >= composedFrom;
    int nonce = composed && step >= nonceFrom ? nonceThirds : 0;
    int tokens = 0;
    while (tokens < stepTokens) {
      City city = City.open(r.nextLong(City.EVAL_SEED_BASE));
      int u = r.nextInt(20);
      Example e;
      if (phase == 0 && tokenShare > 0 && r.nextDouble() < tokenShare) {
        e = CopyDrill.tokens(tokenizer.size(), tokenizer.eosIds(), r);
      } else if (phase == 0) {
        e = CopyDrill.any(tokenizer, r);
      } else if (phase == 1 && drillShare > 0 && r.nextDouble() < drillShare) {
        // Phase 1's drills are token drills in the same share as the warm start's: a warm start of
        // token drills only, followed by none, lost its copying within 50 steps of text.
        e =
            tokenShare > 0 && r.nextDouble() < tokenShare
                ? CopyDrill.tokens(tokenizer.size(), tokenizer.eosIds(), r)
                : CopyDrill.any(tokenizer, r);
      } else if (phase == 1) {
        e = card(tokenizer, city, r, false, variety);
      } else if ((phase == 2 && u < 5) || (phase == 3 && u < 4)) {
        e = card(tokenizer, city, r, true, variety);
      } else if (phase == 2 || u < 8) {
        e =
            article(
                tokenizer, city, r.nextLong(), 300 + r.nextInt(1201), r, variety, composed, nonce);
      } else {
        e =
            article(
                tokenizer, city, r.nextLong(), 2000 + r.nextInt(2401), r, variety, composed, nonce);
      }
      out.add(e);
      tokens += e.tokens().length;
    }
    return out;
  }

  /** A fact card about {@code city}: half with a distractor, one in ten a copy drill. */
  public static Example card(Tokenizer tokenizer, City city, SplittableRandom r) {
    return card(tokenizer, city, r, false, false);
  }

  /**
   * A fact card; {@code styled} (the cards of phases 2 and 3): two in five of the listing and prose
   * cards are an interview or a card of {@link FactCard.Kind#REFERRING} sentences instead; {@code
   * variety}: half the distractors a near miss of the city's name.
   */
  static Example card(
      Tokenizer tokenizer, City city, SplittableRandom r, boolean styled, boolean variety) {
    City other = r.nextBoolean() ? City.open(r.nextLong(City.EVAL_SEED_BASE)) : null;
    if (variety && other != null && r.nextBoolean()) {
      // Half the distractors are a near miss of the city's name (TrainingVariety).
      other =
          new City(
              TrainingVariety.nearMiss(city.name(), r),
              other.country(),
              other.latitude(),
              other.population(),
              other.landmarks());
    }
    int k = r.nextInt(10);
    FactCard.Kind kind =
        k == 0 ? FactCard.Kind.DRILL : k < 5 ? FactCard.Kind.LISTING : FactCard.Kind.PROSE;
    if (styled && k > 0 && r.nextInt(5) < 2) {
      kind = r.nextBoolean() ? FactCard.Kind.INTERVIEW : FactCard.Kind.REFERRING;
    }
    String page = FactCard.text(city, other, kind, r);
    return cityExample(tokenizer, page, question(r), city);
  }

  private Example article(
      Tokenizer tokenizer,
      City city,
      long docSeed,
      int target,
      SplittableRandom r,
      boolean variety,
      boolean composed,
      int nonce) {
    // Room for the prompt's frame, the question and the answer inside the context.
    int t = Math.min(target, maxTokens - 260);
    // Half the articles (by the document seed's low bit, so no draw of r is added).
    boolean byParts = composed && (docSeed & 1) == 0;
    String doc = articleText(city, docSeed, t, tokenizer, variety, byParts, nonce);
    Example e = cityExample(tokenizer, doc, question(r), city);
    String q = question(r);
    while (e.tokens().length > maxTokens) {
      t = t * 3 / 4;
      doc = articleText(city, docSeed, t, tokenizer, variety, byParts, nonce);
      e = cityExample(tokenizer, doc, q, city);
    }
    return e;
  }

  private static String articleText(
      City city,
      long docSeed,
      int target,
      Tokenizer tokenizer,
      boolean variety,
      boolean composed,
      int nonce) {
    if (composed) {
      return ComposedDocument.text(city, docSeed, target, tokenizer, nonce);
    }
    return variety
        ? CityDocument.trainingText(city, docSeed, target, tokenizer)
        : CityDocument.text(city, docSeed, target, tokenizer, true);
  }

  static String question(SplittableRandom r) {
    List<String> qs = CityDocument.questions();
    return qs.get(r.nextInt(qs.size()));
  }

  /**
   * SGLang's city prompt around {@code page} and {@code question}, then {@code city}'s answer and
   * EOS, its value tokens marked.
   */
  public static Example cityExample(Tokenizer tokenizer, String page, String question, City city) {
    return example(tokenizer, CityDocument.prompt(page, question), city.answer(), city);
  }

  /**
   * Prompt tokens, answer tokens (encoded on their own, as the runtime appends output to the
   * prompt) and EOS; with a city, the answer's tokens that overlap a field's value are value
   * targets.
   */
  static Example example(Tokenizer tokenizer, String prompt, String answer, City city) {
    int[] p = tokenizer.encode(prompt);
    int[] a = tokenizer.encode(answer);
    int[] all = new int[p.length + a.length + 1];
    System.arraycopy(p, 0, all, 0, p.length);
    System.arraycopy(a, 0, all, p.length, a.length);
    all[all.length - 1] = tokenizer.eosIds()[0];
    if (city == null) {
      return new Example(all, p.length);
    }
    // Byte spans of the values in the answer (ASCII: bytes are chars), in the answer's order.
    int[][] spans = city.valueSpans(answer);
    IntArrayList targets = new IntArrayList();
    IntArrayList fields = new IntArrayList();
    int pos = 0;
    for (int j = 0; j < a.length; j++) {
      int start = pos;
      pos += tokenizer.tokenBytes(a[j]).length;
      for (int f = 0; f < spans.length; f++) {
        if (start < spans[f][1] && pos > spans[f][0]) {
          targets.add(p.length + j);
          fields.add(f);
          break;
        }
      }
    }
    return new Example(all, p.length, new int[0], targets.toIntArray(), fields.toIntArray());
  }

  /**
   * {@code n} held-out fact cards (evaluation seeds, half with a distractor), each with its own
   * page or ({@code swapped}) the next card's page, its own question and answer kept: the swap
   * test's input, where the page cannot give the answer.
   */
  public static List<Example> heldOutCards(Tokenizer tokenizer, int n, boolean swapped) {
    List<String> pages = new ArrayList<>();
    List<String> questions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long s = City.EVAL_SEED_BASE + 7_000 + i;
      SplittableRandom r = new SplittableRandom(s);
      City other = r.nextBoolean() ? City.open(City.EVAL_SEED_BASE + 9_000 + i) : null;
      int k = r.nextInt(10);
      FactCard.Kind kind =
          k == 0 ? FactCard.Kind.DRILL : k < 5 ? FactCard.Kind.LISTING : FactCard.Kind.PROSE;
      pages.add(FactCard.text(City.open(s), other, kind, r));
      questions.add(question(r));
    }
    List<Example> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          cityExample(
              tokenizer,
              pages.get(swapped ? (i + 1) % n : i),
              questions.get(i),
              City.open(City.EVAL_SEED_BASE + 7_000 + i)));
    }
    return out;
  }

  /** The kind of held-out card {@code i} of {@link #heldOutCards} (a copy drill's page or not). */
  public static FactCard.Kind heldOutCardKind(int i) {
    SplittableRandom r = new SplittableRandom(City.EVAL_SEED_BASE + 7_000 + i);
    r.nextBoolean();
    int k = r.nextInt(10);
    return k == 0 ? FactCard.Kind.DRILL : k < 5 ? FactCard.Kind.LISTING : FactCard.Kind.PROSE;
  }

  /**
   * {@code n} held-out articles of {@code minTokens..maxTokens} tokens, own page ({@code swapped}
   * false) or the next one's.
   */
  public static List<Example> heldOutArticles(
      Tokenizer tokenizer, int n, int minTokens, int maxTokens, boolean swapped) {
    List<String> docs = new ArrayList<>();
    List<String> questions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long s = City.EVAL_SEED_BASE + 8_000 + i;
      SplittableRandom r = new SplittableRandom(s);
      int target = minTokens + r.nextInt(maxTokens - minTokens + 1);
      docs.add(CityDocument.text(City.open(s), s, target, tokenizer, true));
      questions.add(question(r));
    }
    List<Example> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          cityExample(
              tokenizer,
              docs.get(swapped ? (i + 1) % n : i),
              questions.get(i),
              City.open(City.EVAL_SEED_BASE + 8_000 + i)));
    }
    return out;
  }
}
