package dev.leap.bench.peers;

import dev.leap.bench.BenchData;
import dev.leap.retokenize.Tokenizer;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code leap bench peers} gives both engines: the character sheets' prompts (SGLang's names
 * and template) and their constraint (the character regex, and the same as GBNF for llama.cpp), the
 * long prompts of the prefill timings, the long documents' two prompts each, and the throughput
 * waves.
 *
 * <p>Invariants: {@link #tokenized()} is the order in which the llama.cpp child tokenizes prompts
 * and in which their ids are compared with Leap's; a wave of {@code p} sheets cycles through the
 * names; every text is a pure function of the options and the tokenizer (fixed seeds from {@link
 * City#EVAL_SEED_BASE}).
 *
 * @param names the character names the sheets draw from
 * @param regex the sheets' constraint, as Leap takes it
 * @param grammar {@code regex} as GBNF ({@link GbnfPrinter}), as llama.cpp takes it
 * @param prompts the batch-1 sheets' prompts, {@code --requests} of them (at most one per name)
 * @param longPrompts one held-out city article per {@code --prefill-tokens} length, cut to it
 * @param docPrompts per document: SGLang's question (nothing of it cached but the instruction's
 *     first line), then another question about the same document (the document cached)
 * @param waves per {@code --parallel} count, that many sheets' prompts
 */
record Workload(
    List<String> names,
    String regex,
    String grammar,
    List<String> prompts,
    List<String> longPrompts,
    List<String[]> docPrompts,
    List<List<String>> waves) {

  static Workload of(
      Tokenizer tok,
      int requests,
      List<Integer> prefillTokens,
      int docs,
      int docTokens,
      List<Integer> parallel) {
    List<String> names = BenchData.characterNames();
    int n = Math.min(requests, names.size());
    String regex = BenchData.characterRegex();
    String grammar = GbnfPrinter.print(regex);
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      prompts.add(BenchData.characterPrompt(names.get(i)));
    }
    List<String> longPrompts = new ArrayList<>();
    for (int len : prefillTokens) {
      longPrompts.add(longPrompt(tok, len));
    }
    List<String[]> docPrompts = new ArrayList<>();
    for (int d = 0; d < docs; d++) {
      long seed = City.EVAL_SEED_BASE + 100 + d;
      String doc = CityDocument.text(City.of(seed), seed, docTokens, tok);
      docPrompts.add(
          new String[] {
            CityDocument.prompt(doc, CityDocument.questions().get(0)),
            CityDocument.prompt(doc, CityDocument.questions().get(1 + d % 9))
          });
    }
    List<List<String>> waves = new ArrayList<>();
    for (int p : parallel) {
      List<String> wave = new ArrayList<>();
      for (int i = 0; i < p; i++) {
        wave.add(BenchData.characterPrompt(names.get(i % names.size())));
      }
      waves.add(wave);
    }
    return new Workload(names, regex, grammar, prompts, longPrompts, docPrompts, waves);
  }

  /** The sheets. */
  int n() {
    return prompts.size();
  }

  /** The prompts whose token ids both engines report: sheets, long prompts, documents' first. */
  List<String> tokenized() {
    List<String> all = new ArrayList<>(prompts);
    all.addAll(longPrompts);
    docPrompts.forEach(d -> all.add(d[0]));
    return all;
  }

  /** A held-out city article cut to about {@code tokens} tokens. */
  private static String longPrompt(Tokenizer tok, int tokens) {
    long seed = City.EVAL_SEED_BASE + 7;
    String doc = CityDocument.text(City.of(seed), seed, tokens + 200, tok);
    int[] ids = tok.encode(doc);
    String cut = tok.decode(Arrays.copyOf(ids, Math.min(ids.length, tokens)));
    return cut;
  }
}
