package dev.leap.bench.xgrammar;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.vocab.SortedVocabulary;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Leap against XGrammar (its WebAssembly build, {@code bench/xgrammar/side.mjs} in Node) on the
 * same inputs in one run (issue 27): the vocabularies of GPT-2, Llama 3 and Qwen3; a seeded sample
 * of every JSONSchemaBench subset (valid and invalid instances each); the grammars under {@code
 * docs/grammars} and the built-in JSON grammar. Every instance is encoded once with the real
 * tokenizer, here, and its token ids are written to {@code inputs-VOCAB.json}, which the Node side
 * reads, so both engines walk identical ids.
 *
 * <p>Before the timed cases of each vocabulary, both engines run the same warm-up cases, not timed
 * and disjoint from the measured ones ({@link CaseSample#warmUp}: {@code --warm-per-subset} schemas
 * per subset and two small grammars), so each engine's JIT has done the same work first: Leap's JVM
 * is fresh only for the first vocabulary, XGrammar's Node process for every one. The first warm-up
 * case's compile, the first in the process, is reported apart as a cold one. With {@code
 * --warm-rounds R} the warm-up cases run R times (XGrammar's compiled-grammar cache off, so every
 * round compiles again on both sides; a case either engine did not compile within the limit is run
 * in the first round only), to measure the two engines after their JITs have settled (a server that
 * has compiled many constraints): each round's summed compile times are reported, the timed cases
 * run once after the last round as before. Per case the two engines run one after the other,
 * alternating which goes first, while the other process waits (same machine state for both). Per
 * engine: compile time (up to the compiled constraint; XGrammar's includes its mask cache, Leap's
 * what the runtime compiles before the first request step), time to the first mask, the time of
 * every mask along the instances' tokens, forced bytes per instance (XGrammar's {@code
 * findJumpForwardString}, Leap's jump edges or grammar forced bytes, taken at every token boundary
 * and counted once per byte of the text), whether each instance is accepted (every token in the
 * mask, then the end of sequence), and which cases compile within the limit. Prints Markdown tables
 * and writes {@code report.json} with every disagreement. With {@code --leap-eager}, Leap computes
 * every state's mask or token sets in its compile (as XGrammar fills its mask cache) instead of on
 * first use.
 *
 * <pre>
 * bench/scripts/xgrammar.sh [--per-subset N] [--warm-per-subset N] [--warm-rounds 1] [--vocabs gpt2,llama3,qwen3] [--limit-s 10] [--out DIR] [--leap-eager]
 * </pre>
 */
public final class XGrammarSideBySide {
  private XGrammarSideBySide() {}

  public static void main(String[] args) throws Exception {
    int perSubset = 6;
    int validPer = 2;
    int invalidPer = 2;
    int limitS = 10;
    int warmPerSubset = 2;
    int warmRounds = 1;
    String[] vocabs = {"gpt2", "llama3", "qwen3"};
    Path out = Path.of("bench-results", "xgrammar");
    String node = "node";
    boolean eager = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--per-subset" -> perSubset = Integer.parseInt(args[++i]);
        case "--vocabs" -> vocabs = args[++i].split(",");
        case "--limit-s" -> limitS = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--node" -> node = args[++i];
        case "--leap-eager" -> eager = true;
        case "--warm-per-subset" -> warmPerSubset = Integer.parseInt(args[++i]);
        case "--warm-rounds" -> warmRounds = Integer.parseInt(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--per-subset N, --warm-per-subset N, --warm-rounds R, --vocabs a,b,"
                    + " --limit-s S, --out DIR,"
                    + " --node PATH, --leap-eager)");
      }
    }
    if (warmRounds < 1) {
      throw new IllegalArgumentException("--warm-rounds must be at least 1, not " + warmRounds);
    }
    Files.createDirectories(out);
    ObjectMapper m = Json.MAPPER;
    List<Case> cases =
        CaseSample.sample(m, Path.of("docs", "grammars"), perSubset, validPer, invalidPer);
    List<Case> warm = CaseSample.warmUp(m, cases, perSubset, warmPerSubset, validPer, invalidPer);
    List<Case> written = new ArrayList<>(cases);
    written.addAll(warm);
    System.err.printf(
        Locale.ROOT,
        "%d cases, %d instances; %d warm-up cases (not timed)%n",
        cases.size(),
        cases.stream().mapToInt(c -> c.instances().size()).sum(),
        warm.size());
    ObjectNode report = m.createObjectNode();
    report.put("perSubset", perSubset);
    report.put("limitS", limitS);
    report.put("leapEager", eager);
    report.put("warmUpCases", warm.size());
    report.put("warmRounds", warmRounds);
    StringBuilder cold =
        new StringBuilder(
            "| vocabulary | first warm-up case | Leap: its compile (ms) | XGrammar: its compile (ms)"
                + " | Leap's JVM | XGrammar's Node process |\n|---|---|---:|---:|---|---|\n");
    report.put("loadAverageAtStart", loadAverage());
    ArrayNode vocabRows = report.putArray("vocabularies");
    StringBuilder tables = new StringBuilder();
    StringBuilder setup =
        new StringBuilder(
            "| vocabulary | tokens | Leap: load tokenizer.json (ms) | Leap: sorted vocabulary, once per"
                + " tokenizer (ms) | XGrammar: TokenizerInfo + GrammarCompiler (ms) |\n|---|---:|---:|---:|---:|\n");
    List<String> disagreements = new ArrayList<>();
    for (String v : vocabs) {
      Path tokJson = BenchData.file("tokenizers/" + v + "/tokenizer.json");
      HfTokenizer tokenizer = HfTokenizer.load(tokJson);
      int[] eos =
          tokenizer.eosIds().length > 0 ? tokenizer.eosIds() : new int[] {tokenizer.size() - 1};
      // Leap's cold vocabulary: a fresh load and its sorted form (done once per tokenizer by the
      // runtime).
      long t0 = System.nanoTime();
      TokenizerJsonVocabulary fresh = TokenizerJsonVocabulary.load(tokJson);
      double loadMs = (System.nanoTime() - t0) / 1e6;
      t0 = System.nanoTime();
      SortedVocabulary.of(fresh);
      double sortMs = (System.nanoTime() - t0) / 1e6;
      TokenizerJsonVocabulary vocab = tokenizer.vocabulary().withEos(eos);
      SortedVocabulary.of(vocab);
      Path inputs = out.resolve("inputs-" + v + ".json").toAbsolutePath();
      List<int[]> writtenIds =
          writeInputs(m, inputs, tokJson, tokenizer, vocab.size(), eos, written);
      int measuredInstances = cases.stream().mapToInt(c -> c.instances().size()).sum();
      List<int[]> ids = writtenIds.subList(0, measuredInstances);
      try (XGrammarProcess xg =
          new XGrammarProcess(node, Path.of("bench", "xgrammar", "side.mjs"), m)) {
        double xgSetupMs = xg.loadVocabulary(inputs, warmRounds == 1);
        setup.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %.0f | %.0f | %.0f |%n",
                v,
                vocab.size(),
                loadMs,
                sortMs,
                xgSetupMs));
        LeapSide leap = new LeapSide(vocab, limitS, eager);
        // Warm-up (not timed): the same disjoint cases through both engines, alternating which
        // goes first as below, so each engine's JIT (the JVM's, V8's for the WebAssembly) has run
        // the same work before the first timed case, on every vocabulary (XGrammar's Node process
        // is fresh per vocabulary, Leap's JVM only for the first). The first warm-up case's compile
        // is a cold one, reported apart.
        ArrayNode rounds = m.createArrayNode();
        // Rounds after the first skip a warm-up case that either engine did not compile within
        // the limit in the first (it would spend the limit again and warm nothing).
        boolean[] skip = new boolean[warm.size()];
        for (int round = 0; round < warmRounds; round++) {
          double leapRoundMs = 0;
          double xgRoundMs = 0;
          int widx = measuredInstances;
          for (int w = 0; w < warm.size(); w++) {
            Case cs = warm.get(w);
            List<int[]> caseIds = writtenIds.subList(widx, widx + cs.instances().size());
            widx += cs.instances().size();
            if (skip[w]) {
              continue;
            }
            Outcome[] both = runBoth(leap, xg, cs, caseIds, cases.size() + w, inputs, limitS, w);
            Outcome lo = both[0];
            Outcome xo = both[1];
            leapRoundMs += lo.compileMs;
            xgRoundMs += xo.compileMs;
            skip[w] = !lo.compiled || !xo.compiled;
            if (round == 0 && w == 0) {
              cold.append(
                  String.format(
                      Locale.ROOT,
                      "| %s | %s | %s | %s | %s | fresh |%n",
                      v,
                      cs.id(),
                      lo.compiled ? f(lo.compileMs) : lo.error,
                      xo.compiled ? f(xo.compileMs) : xo.error,
                      v.equals(vocabs[0]) ? "fresh" : "warm (earlier vocabularies)"));
              ObjectNode cr = report.withArray("coldFirstCompile").addObject();
              cr.put("vocabulary", v);
              cr.put("case", cs.id());
              cr.put("leapCompileMs", lo.compileMs);
              cr.put("xgrammarCompileMs", xo.compileMs);
              cr.put("leapJvmFresh", v.equals(vocabs[0]));
            }
            if (round == 0) {
              System.err.println(caseLine(v + " warm-up", cs, lo, xo));
            }
          }
          ObjectNode rr = rounds.addObject();
          rr.put("leapCompileMs", leapRoundMs);
          rr.put("xgrammarCompileMs", xgRoundMs);
          if (warmRounds > 1) {
            System.err.printf(
                Locale.ROOT,
                "%s warm-up round %d of %d: compiles summed, leap %.1f ms, xgrammar %.1f ms%n",
                v,
                round + 1,
                warmRounds,
                leapRoundMs,
                xgRoundMs);
          }
        }
        List<Outcome> leapOut = new ArrayList<>();
        List<Outcome> xgOut = new ArrayList<>();
        int idx = 0;
        for (int c = 0; c < cases.size(); c++) {
          Case cs = cases.get(c);
          List<int[]> caseIds = ids.subList(idx, idx + cs.instances().size());
          idx += cs.instances().size();
          Outcome[] both = runBoth(leap, xg, cs, caseIds, c, inputs, limitS, c);
          Outcome lo = both[0];
          Outcome xo = both[1];
          leapOut.add(lo);
          xgOut.add(xo);
          System.err.println(caseLine(v, cs, lo, xo));
        }
        leap.close();
        ObjectNode vrow = vocabRows.addObject();
        vrow.put("vocabulary", v);
        vrow.put("tokens", vocab.size());
        vrow.put("leapLoadMs", loadMs);
        vrow.put("leapSortMs", sortMs);
        vrow.put("xgrammarSetupMs", xgSetupMs);
        vrow.set("warmUpRounds", rounds);
        vrow.put("loadAverage", loadAverage());
        tables
            .append("\n**")
            .append(v)
            .append("** (")
            .append(String.format(Locale.ROOT, "%,d", vocab.size()))
            .append(" tokens; load average ")
            .append(loadAverage())
            .append(")\n\n");
        tables.append(table(cases, leapOut, xgOut, vrow.putArray("groups")));
        ArrayNode forcedDiffs = vrow.putArray("forcedBytesDifferences");
        for (int c = 0; c < cases.size(); c++) {
          Outcome lo = leapOut.get(c);
          Outcome xo = xgOut.get(c);
          if (!lo.compiled || !xo.compiled) {
            continue;
          }
          for (int k = 0; k < lo.accepted.size(); k++) {
            if (lo.accepted.get(k)
                && xo.accepted.get(k)
                && !lo.forcedBytes.get(k).equals(xo.forcedBytes.get(k))) {
              ObjectNode d = forcedDiffs.addObject();
              d.put("case", cases.get(c).id());
              d.put("leapForcedBytes", lo.forcedBytes.get(k));
              d.put("xgrammarForcedBytes", xo.forcedBytes.get(k));
              d.put("text", cases.get(c).instances().get(k).text());
            }
          }
        }
        ArrayNode dis = vrow.putArray("disagreements");
        ArrayNode compileDiffs = vrow.putArray("compileDifferences");
        for (int c = 0; c < cases.size(); c++) {
          Case cs = cases.get(c);
          Outcome lo = leapOut.get(c);
          Outcome xo = xgOut.get(c);
          if (lo.compiled != xo.compiled) {
            ObjectNode d = compileDiffs.addObject();
            d.put("case", cs.id());
            d.put("leap", lo.compiled ? "compiled" : lo.error);
            d.put("xgrammar", xo.compiled ? "compiled" : xo.error);
          }
          if (!lo.compiled || !xo.compiled) {
            continue;
          }
          for (int k = 0; k < cs.instances().size(); k++) {
            if (!lo.accepted.get(k).equals(xo.accepted.get(k))) {
              Instance in = cs.instances().get(k);
              int[] tok = ids.get(indexOf(cases, c) + k);
              ObjectNode d = dis.addObject();
              d.put("case", cs.id());
              d.put("label", in.label());
              d.put("leapAccepted", lo.accepted.get(k));
              d.put("xgrammarAccepted", xo.accepted.get(k));
              d.put("leapRejectedAtToken", lo.rejectedAt.get(k));
              d.put("xgrammarRejectedAtToken", xo.rejectedAt.get(k));
              d.put("tokens", tok.length);
              d.put("xgrammarAcceptsTextAsBytes", xo.acceptsText.get(k));
              int at = Math.max(lo.rejectedAt.get(k), xo.rejectedAt.get(k));
              d.put(
                  "textBeforeRejection",
                  excerpt(tokenizer, tok, Math.max(0, Math.min(at, tok.length))));
              d.put(
                  "text",
                  in.text().length() > 400 ? in.text().substring(0, 400) + "..." : in.text());
              disagreements.add(
                  String.format(
                      Locale.ROOT,
                      "%s | %s | %s | leap %s, xgrammar %s (as bytes: %s) | ...%s",
                      v,
                      cs.id(),
                      in.label(),
                      lo.accepted.get(k) ? "accepts" : "rejects at token " + lo.rejectedAt.get(k),
                      xo.accepted.get(k) ? "accepts" : "rejects at token " + xo.rejectedAt.get(k),
                      xo.acceptsText.get(k) ? "accepts" : "rejects",
                      d.get("textBeforeRejection")
                          .asText()
                          .replace("\n", "\\n")
                          .replace("|", "\\|")));
            }
          }
        }
      }
      tokenizer.close();
    }
    report.put("loadAverageAtEnd", loadAverage());
    System.out.println("Vocabulary set-up (cold; once per tokenizer):\n");
    System.out.println(setup);
    if (!warm.isEmpty()) {
      System.out.println(
          "Cold first compile (the first warm-up case, in the process's first compile):\n");
      System.out.println(cold);
    }
    System.out.println(tables);
    System.out.println(
        "Disagreements on accepting an instance (vocabulary | case | label | answers | text up to the later rejection):\n");
    for (String d : disagreements) {
      System.out.println("- " + d);
    }
    m.writerWithDefaultPrettyPrinter().writeValue(out.resolve("report.json").toFile(), report);
    System.out.println("\nwrote " + out.resolve("report.json") + "; load average " + loadAverage());
    System.exit(0);
  }

  /**
   * One case through both engines, one after the other while the other waits: Leap first when
   * {@code turn} is even, XGrammar first when it is odd. Returns Leap's outcome, then XGrammar's.
   */
  private static Outcome[] runBoth(
      LeapSide leap,
      XGrammarProcess xg,
      Case cs,
      List<int[]> caseIds,
      int xgIndex,
      Path inputs,
      int limitS,
      int turn)
      throws IOException, InterruptedException {
    Outcome lo;
    Outcome xo;
    if (turn % 2 == 0) {
      lo = leap.run(cs, caseIds);
      xo = xg.run(xgIndex, inputs, limitS);
    } else {
      xo = xg.run(xgIndex, inputs, limitS);
      lo = leap.run(cs, caseIds);
    }
    return new Outcome[] {lo, xo};
  }

  /** The progress line of one case: each engine's status and compile time. */
  private static String caseLine(String prefix, Case cs, Outcome lo, Outcome xo) {
    return String.format(
        Locale.ROOT,
        "%s %s: leap %s %.1f ms, xgrammar %s %.1f ms",
        prefix,
        cs.id(),
        lo.compiled ? "ok" : "FAIL(" + lo.error + ")",
        lo.compileMs,
        xo.compiled ? "ok" : "FAIL(" + xo.error + ")",
        xo.compileMs);
  }

  private static int indexOf(List<Case> cases, int c) {
    int i = 0;
    for (int k = 0; k < c; k++) {
      i += cases.get(k).instances().size();
    }
    return i;
  }

  private static String excerpt(HfTokenizer t, int[] ids, int upTo) {
    String s = t.decode(Arrays.copyOfRange(ids, 0, upTo));
    return s.length() > 160 ? s.substring(s.length() - 160) : s;
  }

  /**
   * The per-group table (a JSONSchemaBench subset, or one grammar), Leap / XGrammar in each cell.
   */
  private static String table(
      List<Case> cases, List<Outcome> leap, List<Outcome> xg, ArrayNode json) {
    StringBuilder sb =
        new StringBuilder(
            "| group | cases | compiled L / X | compile p50 L / X (ms) | compile p99 L / X (ms)"
                + " | first mask p50 L / X (ms) | mask p50 L / X (µs) | mask p99 L / X (µs) | forced bytes / instance L / X"
                + " | instances both accept | disagreements |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    for (int c = 0; c < cases.size(); c++) {
      groups.computeIfAbsent(cases.get(c).group(), k -> new ArrayList<>()).add(c);
    }
    for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
      int lc = 0;
      int xc = 0;
      List<Double> lComp = new ArrayList<>();
      List<Double> xComp = new ArrayList<>();
      List<Double> lFirst = new ArrayList<>();
      List<Double> xFirst = new ArrayList<>();
      List<Double> lMask = new ArrayList<>();
      List<Double> xMask = new ArrayList<>();
      long lForced = 0;
      long xForced = 0;
      int both = 0;
      int disagree = 0;
      for (int c : g.getValue()) {
        Outcome l = leap.get(c);
        Outcome x = xg.get(c);
        if (l.compiled) {
          lc++;
          lComp.add(l.compileMs);
          lFirst.add(l.firstMaskMs);
          lMask.addAll(l.maskUs);
        }
        if (x.compiled) {
          xc++;
          xComp.add(x.compileMs);
          xFirst.add(x.firstMaskMs);
          xMask.addAll(x.maskUs);
        }
        if (l.compiled && x.compiled) {
          for (int k = 0; k < l.accepted.size(); k++) {
            boolean la = l.accepted.get(k);
            boolean xa = x.accepted.get(k);
            if (la != xa) {
              disagree++;
            } else if (la && cases.get(c).instances().get(k).label().equals("valid")) {
              both++;
              lForced += l.forcedBytes.get(k);
              xForced += x.forcedBytes.get(k);
            }
          }
        }
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d / %d | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %d | %d |%n",
              g.getKey(),
              g.getValue().size(),
              lc,
              xc,
              f(Percentile.of(lComp, .5)),
              f(Percentile.of(xComp, .5)),
              f(Percentile.of(lComp, .99)),
              f(Percentile.of(xComp, .99)),
              f(Percentile.of(lFirst, .5)),
              f(Percentile.of(xFirst, .5)),
              f(Percentile.of(lMask, .5)),
              f(Percentile.of(xMask, .5)),
              f(Percentile.of(lMask, .99)),
              f(Percentile.of(xMask, .99)),
              f(both == 0 ? Double.NaN : (double) lForced / both),
              f(both == 0 ? Double.NaN : (double) xForced / both),
              both,
              disagree));
      ObjectNode row = json.addObject();
      row.put("group", g.getKey());
      row.put("cases", g.getValue().size());
      row.put("leapCompiled", lc);
      row.put("xgrammarCompiled", xc);
      row.put("leapCompileMsP50", Percentile.of(lComp, .5));
      row.put("xgrammarCompileMsP50", Percentile.of(xComp, .5));
      row.put("leapCompileMsP99", Percentile.of(lComp, .99));
      row.put("xgrammarCompileMsP99", Percentile.of(xComp, .99));
      row.put("leapFirstMaskMsP50", Percentile.of(lFirst, .5));
      row.put("xgrammarFirstMaskMsP50", Percentile.of(xFirst, .5));
      row.put("leapFirstMaskMsP99", Percentile.of(lFirst, .99));
      row.put("xgrammarFirstMaskMsP99", Percentile.of(xFirst, .99));
      row.put("leapMaskUsP50", Percentile.of(lMask, .5));
      row.put("xgrammarMaskUsP50", Percentile.of(xMask, .5));
      row.put("leapMaskUsP99", Percentile.of(lMask, .99));
      row.put("xgrammarMaskUsP99", Percentile.of(xMask, .99));
      row.put("leapMasks", lMask.size());
      row.put("xgrammarMasks", xMask.size());
      row.put("instancesBothAccept", both);
      row.put("leapForcedBytes", lForced);
      row.put("xgrammarForcedBytes", xForced);
      row.put("disagreements", disagree);
    }
    return sb.toString();
  }

  private static String f(double v) {
    if (Double.isNaN(v)) {
      return "—";
    }
    return v >= 100
        ? String.format(Locale.ROOT, "%.0f", v)
        : v >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  static String loadAverage() {
    try {
      String s = Files.readString(Path.of("/proc/loadavg")).trim();
      String[] p = s.split(" ");
      return p[0] + " " + p[1] + " " + p[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /**
   * Encodes every instance and writes the file the Node side reads; returns the ids in case order.
   */
  private static List<int[]> writeInputs(
      ObjectMapper m,
      Path file,
      Path tokJson,
      HfTokenizer tok,
      int vocabSize,
      int[] eos,
      List<Case> cases)
      throws IOException {
    List<int[]> all = new ArrayList<>();
    ObjectNode root = m.createObjectNode();
    root.put("tokenizer", tokJson.toAbsolutePath().toString());
    root.put("vocabSize", vocabSize);
    ArrayNode e = root.putArray("eos");
    for (int id : eos) {
      e.add(id);
    }
    ArrayNode arr = root.putArray("cases");
    for (Case c : cases) {
      ObjectNode o = arr.addObject();
      o.put("id", c.id());
      o.put("kind", c.kind());
      o.put("source", c.source());
      ArrayNode insts = o.putArray("instances");
      for (Instance in : c.instances()) {
        int[] ids = tok.encode(in.text(), false);
        all.add(ids);
        ObjectNode io = insts.addObject();
        io.put("label", in.label());
        io.put("text", in.text());
        ArrayNode a = io.putArray("ids");
        ArrayNode b = io.putArray("tokenBytes");
        for (int id : ids) {
          a.add(id);
          byte[] bytes = tok.tokenBytes(id);
          b.add(bytes == null ? 0 : bytes.length);
        }
      }
    }
    try (Writer w = Files.newBufferedWriter(file)) {
      m.writeValue(w, root);
    }
    return all;
  }
}
