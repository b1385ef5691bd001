package dev.leap.train.tokenizer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.train.internal.Json;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.objects.Object2IntLinkedOpenHashMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Trains the project's own byte-level BPE (recipe A of {@code ../shared/notes/training.md}) and
 * writes it as a Hugging Face {@code tokenizer.json} that {@code HfTokenizer.load} reads like any
 * other.
 *
 * <p>Pre-tokenizer: {@link #PATTERN} splits text so that a capitalized word and every digit stand
 * alone, never glued to the space before them (a lowercase word keeps its leading space, as in
 * GPT-2). A name, a country, a landmark or a number is then the same tokens in an article and after
 * the quote of a JSON answer, so the model can copy it token for token. In {@code tokenizer.json}
 * this is a {@code Split} pre-tokenizer (behaviour {@code Isolated}) followed by {@code ByteLevel}
 * with {@code use_regex: false}; the model is BPE over GPT-2's byte-to-character table, the decoder
 * ByteLevel, and EOS ({@link #EOS}) an added special token with the last id.
 *
 * <p>Algorithm: the classic BPE training of Sennrich et al. (2016) over the pre-tokens' counts. Ids
 * 0..255 are the bytes (in byte order); each merge joins the most frequent adjacent pair (ties: the
 * smaller pair of token strings, compared as strings), replacing its occurrences left to right
 * within each pre-token. Pair counts are kept incrementally (a pair's count and the words it occurs
 * in) so a merge touches only the words that hold the pair; {@code BpeTrainerTest} checks the
 * merges against a naive twin that recounts every pair before every merge. Training stops at the
 * vocabulary size or when no pair occurs twice. Deterministic for its input texts.
 */
public final class BpeTrainer {
  private BpeTrainer() {}

  /**
   * The pre-tokenizer's regex (Java and Oniguruma read it alike): a lowercase word with an optional
   * leading space, a capitalized word (no space), one digit, punctuation with an optional leading
   * space, or a run of whitespace.
   */
  public static final String PATTERN =
      " ?\\p{Ll}+|\\p{Lu}\\p{Ll}*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+|\\s+";

  /** The end-of-sequence token. */
  public static final String EOS = "<|endoftext|>";

  private static final Pattern COMPILED = Pattern.compile(PATTERN);

  /**
   * The trained merges, in rank order, as pairs of token strings (GPT-2 byte characters), and the
   * tokens by id (the 256 bytes, then each merge's result that was new; a merge whose result
   * another merge already made reuses that token, as Hugging Face's trainer does).
   */
  public record Merges(List<String[]> pairs, List<String> tokens) {
    /** Vocabulary size with EOS. */
    public int vocabSize() {
      return tokens.size() + 1;
    }
  }

  /**
   * The pre-tokens of {@code text} as the {@code Split} pre-tokenizer makes them ({@code Isolated}:
   * every match is a piece, and so is any text between matches, e.g. a titlecase or uncased
   * letter).
   */
  public static List<String> preTokenize(String text) {
    return preTokenize(text, COMPILED);
  }

  /** The pre-tokens of {@code text} under another pre-tokenizer regex (Isolated, as above). */
  public static List<String> preTokenize(String text, Pattern pattern) {
    List<String> out = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    int at = 0;
    while (m.find()) {
      if (m.start() > at) {
        out.add(text.substring(at, m.start()));
      }
      out.add(m.group());
      at = m.end();
    }
    if (at < text.length()) {
      out.add(text.substring(at));
    }
    return out;
  }

  /**
   * GPT-2's byte-to-character table: printable bytes stand for themselves, the others for 256 + n.
   */
  public static char[] byteChars() {
    char[] table = new char[256];
    int n = 0;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      table[b] = printable ? (char) b : (char) (256 + n++);
    }
    return table;
  }

  /** Counts of the pre-tokens of {@code texts}, as byte strings, in first-seen order. */
  public static Object2IntLinkedOpenHashMap<String> countWords(Iterable<String> texts) {
    char[] table = byteChars();
    Object2IntLinkedOpenHashMap<String> counts = new Object2IntLinkedOpenHashMap<>();
    for (String text : texts) {
      for (String piece : preTokenize(text)) {
        counts.addTo(mapped(piece, table), 1);
      }
    }
    return counts;
  }

  static String mapped(String piece, char[] table) {
    byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
    char[] c = new char[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      c[i] = table[bytes[i] & 0xFF];
    }
    return new String(c);
  }

  /** Trains merges until the vocabulary (bytes, merges, EOS) has {@code vocabSize} tokens. */
  public static Merges train(Iterable<String> texts, int vocabSize) {
    return train(countWords(texts), vocabSize);
  }

  /** Trains on pre-token counts (byte strings of {@link #byteChars}). */
  public static Merges train(Map<String, Integer> wordCounts, int vocabSize) {
    if (vocabSize < 257) {
      throw new IllegalArgumentException(
          "a byte-level vocabulary needs at least 257 tokens (256 bytes and EOS), asked "
              + vocabSize);
    }
    char[] table = byteChars();
    List<String> strings = new ArrayList<>();
    int[] charToId = new int[512];
    for (int b = 0; b < 256; b++) {
      strings.add(String.valueOf(table[b]));
      charToId[table[b]] = b;
    }
    int n = wordCounts.size();
    int[][] words = new int[n][];
    int[] freq = new int[n];
    int w = 0;
    for (Map.Entry<String, Integer> e : wordCounts.entrySet()) {
      String s = e.getKey();
      int[] sym = new int[s.length()];
      for (int i = 0; i < sym.length; i++) {
        sym[i] = charToId[s.charAt(i)];
      }
      words[w] = sym;
      freq[w] = e.getValue();
      w++;
    }
    Long2LongOpenHashMap pairCount = new Long2LongOpenHashMap();
    Long2ObjectOpenHashMap<IntOpenHashSet> where = new Long2ObjectOpenHashMap<>();
    for (int i = 0; i < n; i++) {
      addPairs(words[i], i, freq[i], pairCount, where);
    }
    List<String[]> merges = new ArrayList<>();
    Object2IntLinkedOpenHashMap<String> ids = new Object2IntLinkedOpenHashMap<>();
    for (int i = 0; i < 256; i++) {
      ids.put(strings.get(i), i);
    }
    while (ids.size() < vocabSize - 1) {
      long best = -1;
      long bestCount = 1;
      for (Long2LongOpenHashMap.Entry e : pairCount.long2LongEntrySet()) {
        long c = e.getLongValue();
        if (c > bestCount
            || (c == bestCount && c > 1 && best != -1 && less(e.getLongKey(), best, strings))) {
          best = e.getLongKey();
          bestCount = c;
        }
      }
      if (best == -1 || bestCount < 2) {
        break;
      }
      int a = (int) (best >>> 32);
      int b = (int) best;
      String joined = strings.get(a) + strings.get(b);
      int id = ids.getOrDefault(joined, -1);
      if (id < 0) {
        id = strings.size();
        strings.add(joined);
        ids.put(joined, id);
      }
      merges.add(new String[] {strings.get(a), strings.get(b)});
      IntOpenHashSet holders = where.remove(best);
      int[] list = holders.toIntArray();
      Arrays.sort(list);
      for (int wi : list) {
        removePairs(words[wi], wi, freq[wi], pairCount, where);
        words[wi] = merge(words[wi], a, b, id);
        addPairs(words[wi], wi, freq[wi], pairCount, where);
      }
      pairCount.remove(best);
    }
    return new Merges(merges, List.copyOf(strings));
  }

  /** Whether pair {@code x} sorts before pair {@code y} by (left string, right string). */
  static boolean less(long x, long y, List<String> strings) {
    int c = strings.get((int) (x >>> 32)).compareTo(strings.get((int) (y >>> 32)));
    if (c != 0) {
      return c < 0;
    }
    return strings.get((int) x).compareTo(strings.get((int) y)) < 0;
  }

  static long pair(int a, int b) {
    return ((long) a << 32) | (b & 0xFFFFFFFFL);
  }

  private static void addPairs(
      int[] sym,
      int word,
      int f,
      Long2LongOpenHashMap count,
      Long2ObjectOpenHashMap<IntOpenHashSet> where) {
    for (int i = 0; i + 1 < sym.length; i++) {
      long p = pair(sym[i], sym[i + 1]);
      count.addTo(p, f);
      where.computeIfAbsent(p, k -> new IntOpenHashSet()).add(word);
    }
  }

  private static void removePairs(
      int[] sym,
      int word,
      int f,
      Long2LongOpenHashMap count,
      Long2ObjectOpenHashMap<IntOpenHashSet> where) {
    for (int i = 0; i + 1 < sym.length; i++) {
      long p = pair(sym[i], sym[i + 1]);
      long c = count.addTo(p, -f) - f;
      if (c <= 0) {
        count.remove(p);
      }
      IntOpenHashSet s = where.get(p);
      if (s != null) {
        s.remove(word);
        if (s.isEmpty()) {
          where.remove(p);
        }
      }
    }
  }

  /** Replaces the occurrences of {@code (a, b)} in {@code sym} by {@code id}, left to right. */
  static int[] merge(int[] sym, int a, int b, int id) {
    IntArrayList out = new IntArrayList(sym.length);
    for (int i = 0; i < sym.length; i++) {
      if (i + 1 < sym.length && sym[i] == a && sym[i + 1] == b) {
        out.add(id);
        i++;
      } else {
        out.add(sym[i]);
      }
    }
    return out.toIntArray();
  }

  /**
   * Writes {@code tokenizer.json} (and {@code tokenizer_config.json} naming EOS, where {@code
   * HfTokenizer.load} looks for it) into {@code dir}.
   */
  public static void write(Merges merges, Path dir) throws IOException {
    write(merges, PATTERN, dir);
  }

  /**
   * Writes the tokenizer as {@link #write(Merges, Path)} does, with {@code pattern} as the {@code
   * Split} pre-tokenizer's regex (an extended vocabulary's, {@link VocabularyExtension}).
   */
  public static void write(Merges merges, String pattern, Path dir) throws IOException {
    Files.createDirectories(dir);
    ObjectMapper m = Json.MAPPER;
    ObjectNode root = m.createObjectNode();
    root.put("version", "1.0");
    root.putNull("truncation");
    root.putNull("padding");
    int eosId = merges.vocabSize() - 1;
    ArrayNode added = root.putArray("added_tokens");
    added
        .addObject()
        .put("id", eosId)
        .put("content", EOS)
        .put("single_word", false)
        .put("lstrip", false)
        .put("rstrip", false)
        .put("normalized", false)
        .put("special", true);
    root.putNull("normalizer");
    ObjectNode pre = root.putObject("pre_tokenizer");
    pre.put("type", "Sequence");
    ArrayNode pres = pre.putArray("pretokenizers");
    ObjectNode split = pres.addObject();
    split.put("type", "Split");
    split.putObject("pattern").put("Regex", pattern);
    split.put("behavior", "Isolated");
    split.put("invert", false);
    pres.addObject()
        .put("type", "ByteLevel")
        .put("add_prefix_space", false)
        .put("trim_offsets", true)
        .put("use_regex", false);
    root.putNull("post_processor");
    root.putObject("decoder")
        .put("type", "ByteLevel")
        .put("add_prefix_space", true)
        .put("trim_offsets", true)
        .put("use_regex", true);
    ObjectNode model = root.putObject("model");
    model.put("type", "BPE");
    model.putNull("dropout");
    model.putNull("unk_token");
    model.putNull("continuing_subword_prefix");
    model.putNull("end_of_word_suffix");
    model.put("fuse_unk", false);
    model.put("byte_fallback", false);
    model.put("ignore_merges", false);
    ObjectNode vocab = model.putObject("vocab");
    for (int id = 0; id < merges.tokens().size(); id++) {
      vocab.put(merges.tokens().get(id), id);
    }
    vocab.put(EOS, eosId);
    ArrayNode ms = model.putArray("merges");
    for (String[] p : merges.pairs()) {
      ms.add(p[0] + " " + p[1]);
    }
    m.writeValue(dir.resolve("tokenizer.json").toFile(), root);
    Map<String, Object> config = new TreeMap<>();
    config.put("eos_token", EOS);
    config.put("model_max_length", 4096);
    config.put("tokenizer_class", "PreTrainedTokenizerFast");
    config.put("clean_up_tokenization_spaces", false);
    m.writerWithDefaultPrettyPrinter()
        .writeValue(dir.resolve("tokenizer_config.json").toFile(), config);
  }
}
