package dev.leap.train.data;

import dev.leap.retokenize.Tokenizer;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Pure copy and associative-recall drills, the warm start of the copy curriculum (recipe C of
 * {@code ../shared/notes/training.md}): short sequences whose later half can only be predicted by
 * looking back at the page, so that copying circuits (induction heads) can form before the fact
 * cards ask for them. Values come from the open generators ({@link OpenValues}, {@link City#open}
 * with training seeds), so they cannot be memorized.
 *
 * <ul>
 *   <li>{@link Kind#LIST}: a list of 4 to 10 values (places, countries, landmarks, figures), then
 *       the same list again: every token of the repeat is a copy;
 *   <li>{@link Kind#RECALL}: a table of 3 to 6 places, each with a country, population, latitude
 *       and landmark, then 2 to 4 questions ({@code "The population of Dunhaven is 52011."}): find
 *       the place's row, copy the value that follows the key;
 *   <li>{@link Kind#RECORD}: the city prompt of the task around a page that holds a one-line record
 *       or the JSON record itself, answered in {@code city_regex}'s format (a {@link
 *       FactCard.Kind#DRILL} card).
 * </ul>
 *
 * The answer's value tokens are marked as value targets (their field in the order of {@link
 * City#fields}; landmarks as field 4), so the copy recipe's value weight applies to them.
 */
public final class CopyDrill {
  private CopyDrill() {}

  /** The kinds of drill. */
  public enum Kind {
    LIST,
    RECALL,
    RECORD
  }

  /**
   * A drill's text: the prompt, the answer and the answer's value spans {@code [from, to, field]}
   * (characters).
   */
  public record Text(String prompt, String answer, List<int[]> spans) {
    /** The training example: prompt, answer and EOS, the value spans' tokens marked. */
    public Example example(Tokenizer tokenizer) {
      return marked(tokenizer, prompt, answer, spans);
    }

    /** This drill's answer after {@code other}'s prompt (the swap test's input). */
    public Example swapped(Tokenizer tokenizer, Text other) {
      return marked(tokenizer, other.prompt, answer, spans);
    }
  }

  /** A drill of a random kind (a third each) about training cities. */
  public static Example any(Tokenizer tokenizer, SplittableRandom r) {
    return of(Kind.values()[r.nextInt(3)], tokenizer, r);
  }

  /** A drill of {@code kind} about training cities. */
  public static Example of(Kind kind, Tokenizer tokenizer, SplittableRandom r) {
    return switch (kind) {
      case LIST -> list(r, 0).example(tokenizer);
      case RECALL -> recall(r, 0).example(tokenizer);
      case RECORD -> {
        City city = City.open(r.nextLong(City.EVAL_SEED_BASE));
        City other = r.nextBoolean() ? City.open(r.nextLong(City.EVAL_SEED_BASE)) : null;
        String page = FactCard.text(city, other, FactCard.Kind.DRILL, r);
        yield Curriculum.cityExample(tokenizer, page, Curriculum.question(r), city);
      }
    };
  }

  /**
   * A repeated-token drill: {@code 16..48} token ids drawn uniformly from the vocabulary (below
   * {@code vocab}, none of {@code avoid}), then the same ids again. Nothing but copying predicts
   * the repeat, so this is the data on which small transformers form induction heads; the repeat's
   * tokens after its first are the value targets (field 0).
   */
  public static Example tokens(int vocab, int[] avoid, SplittableRandom r) {
    int n = 16 + r.nextInt(33);
    int[] ids = new int[2 * n];
    for (int i = 0; i < n; i++) {
      int t;
      do {
        t = r.nextInt(vocab);
      } while (contains(avoid, t));
      ids[i] = t;
      ids[n + i] = t;
    }
    int[] targets = new int[n - 1];
    for (int i = 0; i < n - 1; i++) {
      targets[i] = n + 1 + i;
    }
    return new Example(ids, n, new int[0], targets, new int[n - 1]);
  }

  private static boolean contains(int[] a, int x) {
    for (int v : a) {
      if (v == x) {
        return true;
      }
    }
    return false;
  }

  /**
   * A value of field {@code f} (0 name, 1 country, 2 latitude, 3 population, 4 landmark) of a city.
   */
  static String value(City c, int f) {
    return switch (f) {
      case 0 -> c.name();
      case 1 -> c.country();
      case 2 -> c.latitude();
      case 3 -> Long.toString(c.population());
      default -> c.landmarks().get(0);
    };
  }

  /**
   * A list drill; its cities have seeds {@code cityBase + [0, City.EVAL_SEED_BASE)} (0: training
   * cities).
   */
  public static Text list(SplittableRandom r, long cityBase) {
    int n = 4 + r.nextInt(7);
    List<String> items = new ArrayList<>();
    int[] fields = new int[n];
    for (int i = 0; i < n; i++) {
      fields[i] = r.nextInt(5);
      items.add(value(City.open(cityBase + r.nextLong(City.EVAL_SEED_BASE)), fields[i]));
    }
    String sep = r.nextBoolean() ? ", " : "; ";
    String list = String.join(sep, items);
    String prompt = (r.nextBoolean() ? "List: " : "Copy this list.\n") + list + "\nAgain: ";
    String answer = list + ".";
    List<int[]> spans = new ArrayList<>();
    int at = 0;
    for (int i = 0; i < n; i++) {
      spans.add(new int[] {at, at + items.get(i).length(), fields[i]});
      at += items.get(i).length() + sep.length();
    }
    return new Text(prompt, answer, spans);
  }

  /**
   * A recall drill; its cities have seeds {@code cityBase + [0, City.EVAL_SEED_BASE)} (0: training
   * cities).
   */
  public static Text recall(SplittableRandom r, long cityBase) {
    int n = 3 + r.nextInt(4);
    List<City> cities = new ArrayList<>();
    StringBuilder table = new StringBuilder("Records.\n");
    for (int i = 0; i < n; i++) {
      City c = City.open(cityBase + r.nextLong(City.EVAL_SEED_BASE));
      cities.add(c);
      table
          .append(c.name())
          .append(": country ")
          .append(c.country())
          .append("; population ")
          .append(c.population())
          .append("; latitude ")
          .append(c.latitude())
          .append("; landmark ")
          .append(c.landmarks().get(0))
          .append(".\n");
    }
    table.append("Questions.\n");
    int q = 2 + r.nextInt(3);
    StringBuilder answer = new StringBuilder();
    List<int[]> spans = new ArrayList<>();
    String[] keys = {"", "country", "latitude", "population", "landmark"};
    for (int i = 0; i < q; i++) {
      City c = cities.get(r.nextInt(n));
      int f = 1 + r.nextInt(4);
      answer.append("The ").append(keys[f]).append(" of ").append(c.name()).append(" is ");
      String v = value(c, f);
      spans.add(new int[] {answer.length(), answer.length() + v.length(), f});
      answer.append(v).append(".\n");
    }
    return new Text(table.toString(), answer.toString().stripTrailing(), spans);
  }

  /**
   * {@code n} held-out drills (list and recall in turn, cities with seeds from {@code 2 *
   * EVAL_SEED_BASE} on, which neither training nor the benchmarks draw), each after its own prompt
   * or ({@code swapped}) the next drill's.
   */
  public static List<Example> heldOut(Tokenizer tokenizer, int n, boolean swapped) {
    List<Text> texts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      SplittableRandom r = new SplittableRandom(City.EVAL_SEED_BASE + 12_000 + i);
      texts.add(i % 2 == 0 ? list(r, 2 * City.EVAL_SEED_BASE) : recall(r, 2 * City.EVAL_SEED_BASE));
    }
    List<Example> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          swapped
              ? texts.get(i).swapped(tokenizer, texts.get((i + 1) % n))
              : texts.get(i).example(tokenizer));
    }
    return out;
  }

  /**
   * Prompt tokens, answer tokens (encoded on their own) and EOS; the answer's tokens that overlap a
   * span {@code [from, to, field]} of the answer's characters are value targets of that field.
   */
  static Example marked(Tokenizer tokenizer, String prompt, String answer, List<int[]> spans) {
    int[] p = tokenizer.encode(prompt);
    int[] a = tokenizer.encode(answer);
    int[] all = new int[p.length + a.length + 1];
    System.arraycopy(p, 0, all, 0, p.length);
    System.arraycopy(a, 0, all, p.length, a.length);
    all[all.length - 1] = tokenizer.eosIds()[0];
    IntArrayList targets = new IntArrayList();
    IntArrayList fields = new IntArrayList();
    int pos = 0;
    for (int j = 0; j < a.length; j++) {
      int start = pos;
      pos += tokenizer.tokenBytes(a[j]).length;
      for (int[] s : spans) {
        if (start < s[1] && pos > s[0]) {
          targets.add(p.length + j);
          fields.add(s[2]);
          break;
        }
      }
    }
    if (targets.isEmpty()) {
      throw new IllegalStateException("no value tokens in " + answer);
    }
    return new Example(all, p.length, new int[0], targets.toIntArray(), fields.toIntArray());
  }
}
