package dev.leap.train.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.train.internal.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Digit groups as tokens, added to a trained tokenizer of {@link BpeTrainer} without moving any of
 * its tokens (issue 25: the warm start of a model trained on single-digit tokens).
 *
 * <p>{@link BpeTrainer#PATTERN} isolates every digit, so a number is a run of single-digit tokens;
 * each digit recurs all over an article, and a copy keyed on the previous token has no unique
 * source. The extension's pre-tokenizer takes up to {@code maxGroup} digits at once ({@code
 * \p{N}{1,G}}, greedy from the left: 1234567 is 123|456|7 with groups of three), and BPE gets,
 * after every existing merge, the merges that make every ASCII digit string of length 2..G one
 * token: for each such string and <b>each</b> split of it into two shorter strings, the merge of
 * the two halves (so whichever adjacent pair BPE merges first, the group ends as one token). New
 * tokens come in order of length, then of value (00..99, then 000..999); every old token keeps its
 * id and every old merge its rank; EOS, the last id before, is the last id again (so its id moves
 * from {@code oldEos} to {@code newEos}).
 *
 * <p>Text without digits encodes to exactly the old ids (its pre-tokens are the same, and no new
 * merge applies to them); {@code VocabularyExtensionTest} checks it through {@code
 * HfTokenizer.load}, with every number of generated articles.
 */
public final class VocabularyExtension {
  private VocabularyExtension() {}

  /** The longest digit group the extension supports (1,110 tokens at 3). */
  public static final int MAX_GROUP = 4;

  /**
   * An extended vocabulary: the merges and tokens (old ones first, EOS not among them), the
   * pre-tokenizer regex, EOS's old and new id, and for each new token (from id {@code oldEos} on)
   * the old ids of its digits, in order.
   */
  public record Extension(
      BpeTrainer.Merges merges, String pattern, int oldEos, int newEos, List<int[]> digits) {
    /** The new id of an old id (EOS moves to the end; every other id stays). */
    public int newId(int oldId) {
      if (oldId < 0 || oldId > oldEos) {
        throw new IllegalArgumentException("no token " + oldId + " in the old vocabulary");
      }
      return oldId == oldEos ? newEos : oldId;
    }
  }

  /** {@link BpeTrainer#PATTERN} with a digit run of 1 to {@code maxGroup} in place of one digit. */
  public static String pattern(int maxGroup) {
    checkGroup(maxGroup);
    String one = "\\p{N}";
    String p = BpeTrainer.PATTERN;
    int at = p.indexOf("|" + one + "|");
    if (at < 0) {
      throw new IllegalStateException("BpeTrainer.PATTERN has no lone digit: " + p);
    }
    return p.substring(0, at + 1)
        + one
        + "{1,"
        + maxGroup
        + "}"
        + p.substring(at + 1 + one.length());
  }

  private static void checkGroup(int maxGroup) {
    if (maxGroup < 2 || maxGroup > MAX_GROUP) {
      throw new IllegalArgumentException(
          "digit groups must be 2 to " + MAX_GROUP + " digits long, asked " + maxGroup);
    }
  }

  /**
   * Reads a {@code tokenizer.json} that {@link BpeTrainer#write(BpeTrainer.Merges, Path)} wrote:
   * its tokens by id (without EOS, the last id) and its merges in rank order.
   *
   * @throws IllegalArgumentException naming the file: not such a tokenizer (another pre-tokenizer,
   *     ids not 0..n-1, EOS not last)
   */
  public static BpeTrainer.Merges read(Path tokenizerJson) throws IOException {
    JsonNode root = Json.MAPPER.readTree(tokenizerJson.toFile());
    String where = tokenizerJson.toString();
    JsonNode pre = root.path("pre_tokenizer").path("pretokenizers").path(0);
    String regex = pre.path("pattern").path("Regex").asText("");
    if (!regex.equals(BpeTrainer.PATTERN)) {
      throw new IllegalArgumentException(
          where
              + ": not a tokenizer of BpeTrainer with single digits (pre-tokenizer regex '"
              + regex
              + "', expected '"
              + BpeTrainer.PATTERN
              + "')");
    }
    JsonNode vocab = root.path("model").path("vocab");
    if (!vocab.isObject() || vocab.size() < 257) {
      throw new IllegalArgumentException(where + ": no byte-level BPE vocabulary");
    }
    int n = vocab.size();
    String[] byId = new String[n];
    var fields = vocab.fields();
    while (fields.hasNext()) {
      var e = fields.next();
      int id = e.getValue().asInt(-1);
      if (id < 0 || id >= n || byId[id] != null) {
        throw new IllegalArgumentException(
            where + ": token ids are not 0.." + (n - 1) + " (token '" + e.getKey() + "')");
      }
      byId[id] = e.getKey();
    }
    if (!byId[n - 1].equals(BpeTrainer.EOS)) {
      throw new IllegalArgumentException(
          where + ": EOS " + BpeTrainer.EOS + " is not the last id (" + (n - 1) + ")");
    }
    List<String[]> merges = new ArrayList<>();
    for (JsonNode m : root.path("model").path("merges")) {
      String[] pair = m.isArray() ? new String[] {m.get(0).asText(), m.get(1).asText()} : split(m);
      merges.add(pair);
    }
    return new BpeTrainer.Merges(merges, List.of(byId).subList(0, n - 1));
  }

  private static String[] split(JsonNode m) {
    String s = m.asText();
    int sp = s.indexOf(' ');
    if (sp <= 0 || sp != s.lastIndexOf(' ')) {
      throw new IllegalArgumentException("merge '" + s + "' is not two tokens");
    }
    return new String[] {s.substring(0, sp), s.substring(sp + 1)};
  }

  /** Extends {@code old} with digit groups of up to {@code maxGroup} digits. */
  public static Extension digitGroups(BpeTrainer.Merges old, int maxGroup) {
    checkGroup(maxGroup);
    Map<String, Integer> ids = new HashMap<>();
    for (int i = 0; i < old.tokens().size(); i++) {
      ids.put(old.tokens().get(i), i);
    }
    int[] digitId = new int[10];
    for (int d = 0; d < 10; d++) {
      Integer id = ids.get(String.valueOf((char) ('0' + d)));
      if (id == null) {
        throw new IllegalArgumentException("the vocabulary has no token for the digit " + d);
      }
      digitId[d] = id;
    }
    Set<String> oldMerges = new HashSet<>();
    for (String[] p : old.pairs()) {
      oldMerges.add(p[0] + " " + p[1]);
    }
    List<String> tokens = new ArrayList<>(old.tokens());
    List<String[]> pairs = new ArrayList<>(old.pairs());
    List<int[]> digits = new ArrayList<>();
    int oldEos = old.tokens().size();
    for (int len = 2; len <= maxGroup; len++) {
      int count = (int) Math.pow(10, len);
      for (int v = 0; v < count; v++) {
        String s = String.format(Locale.ROOT, "%0" + len + "d", v);
        if (ids.containsKey(s)) {
          throw new IllegalArgumentException(
              "the vocabulary already has the digit group '" + s + "' (is it extended already?)");
        }
        ids.put(s, tokens.size());
        tokens.add(s);
        int[] ds = new int[len];
        for (int i = 0; i < len; i++) {
          ds[i] = digitId[s.charAt(i) - '0'];
        }
        digits.add(ds);
        for (int k = 1; k < len; k++) {
          String[] pair = {s.substring(0, k), s.substring(k)};
          if (oldMerges.contains(pair[0] + " " + pair[1])) {
            throw new IllegalArgumentException("the vocabulary already merges " + s);
          }
          pairs.add(pair);
        }
      }
    }
    return new Extension(
        new BpeTrainer.Merges(List.copyOf(pairs), List.copyOf(tokens)),
        pattern(maxGroup),
        oldEos,
        tokens.size(),
        List.copyOf(digits));
  }

  /** Writes the extended tokenizer ({@code tokenizer.json}, {@code tokenizer_config.json}). */
  public static void write(Extension e, Path dir) throws IOException {
    BpeTrainer.write(e.merges(), e.pattern(), dir);
  }
}
