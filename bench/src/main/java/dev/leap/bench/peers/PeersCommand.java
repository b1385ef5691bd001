package dev.leap.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.DemoModel;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench peers}: Leap beside llama.cpp (java-llama.cpp 4.2.0, llama.cpp b4916) on the
 * same model, the same prompts and the same constraint, greedy.
 *
 * <p>The model is written as GGUF F16 by the project's own {@link GgufWriter}; the character regex
 * is printed as GBNF by {@link GbnfPrinter}. llama.cpp runs in a child JVM ({@link LlamaCppChild})
 * with a time limit, once per thread count. The command checks that both engines turn every prompt
 * into the same token ids, compares the outputs sheet by sheet, and reports: decode time per token
 * at batch 1 (llama.cpp: the time of a 129-token completion less a 1-token one, over 128; Leap: 128
 * greedy decode steps of the model), the prefill of a 1,000-token prompt (llama.cpp: a 1-token
 * completion of it without the prompt cache; Leap: the prompt in the runtime's 512-token chunks),
 * and the character sheets' batch-1 latency p50 (Leap jump-forward, Leap token by token, llama.cpp
 * with the grammar).
 *
 * <p>{@code --shape qwen2.5-0.5b|llama3.2-1b} runs the same on random F16 weights in those models'
 * shapes ({@link #shapeModel}).
 *
 * <pre>
 * ./leap bench peers [--model DIR|demo | --shape S] [--requests 10] [--threads 1,2] [--dtype auto] [--repeats 3]
 * </pre>
 */
@Command(
    name = "peers",
    mixinStandardHelpOptions = true,
    description =
        "Leap beside llama.cpp (java-llama.cpp, GGUF F16 written by Leap) on the same model, prompts and constraint.")
public final class PeersCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--model",
      defaultValue = "demo",
      paramLabel = "DIR|demo",
      description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(
      names = "--requests",
      defaultValue = "10",
      description = "Character sheets (names). Default: ${DEFAULT-VALUE}.")
  int requests;

  @Option(
      names = "--shape",
      description =
          "Instead of --model: random F16 weights in a real model's shape, written by"
              + " HfModelWriter (Llama architecture, GPT-2 tokenizer): qwen2.5-0.5b or llama3.2-1b.")
  String shape;

  @Option(
      names = "--repeats",
      defaultValue = "3",
      description =
          "Repeats of the decode and prefill timings (medians). Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Option(
      names = "--threads",
      defaultValue = "1,2",
      split = ",",
      description = "llama.cpp thread counts. Default: ${DEFAULT-VALUE}.")
  List<Integer> threads;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description = "Leap's dtype. Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--time-limit",
      defaultValue = "600",
      description = "Seconds per llama.cpp child. Default: ${DEFAULT-VALUE}.")
  int timeLimit;

  @Option(
      names = "--out",
      defaultValue = "bench-results/peers.json",
      description = "Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--prefill-tokens",
      defaultValue = "1000,3000",
      split = ",",
      description = "Prompt lengths of the prefill" + " timings. Default: ${DEFAULT-VALUE}.")
  List<Integer> prefillTokens;

  @Option(
      names = "--parallel",
      defaultValue = "10,50",
      split = ",",
      description =
          "Throughput of this many character sheets"
              + " at once (Leap: continuous batching; llama.cpp: as many slots and client threads); 0: skipped. Default:"
              + " ${DEFAULT-VALUE}.")
  List<Integer> parallel;

  @Option(
      names = "--docs",
      defaultValue = "3",
      description =
          "Long documents for the time to first token without and with"
              + " a cached prefix (0: skipped). Default: ${DEFAULT-VALUE}.")
  int docs;

  @Option(
      names = "--doc-tokens",
      defaultValue = "2000",
      description = "Tokens per long document. Default: ${DEFAULT-VALUE}.")
  int docTokens;

  @Option(
      names = "--sparse-logits-limit",
      defaultValue = "4096",
      paramLabel = "N",
      description =
          "Leap's sparse logits"
              + " limit (LeapRuntime.Builder#optSparseLogitsLimit; 0: off). Default: ${DEFAULT-VALUE}.")
  int sparseLogitsLimit;

  @Option(
      names = "--cpu-f32-weights",
      defaultValue = "auto",
      paramLabel = "auto|on|off",
      description = "Leap's float32" + " weight copies on the CPU. Default: ${DEFAULT-VALUE}.")
  String cpuF32Weights;

  static final int DECODE_TOKENS = 128;

  @Override
  public Integer call() throws Exception {
    if (requests < 1) {
      throw new IllegalArgumentException("--requests must be at least 1, got " + requests);
    }
    if (repeats < 1) {
      throw new IllegalArgumentException("--repeats must be at least 1, got " + repeats);
    }
    parallel = new ArrayList<>(parallel);
    parallel.removeIf(p -> p <= 0); // --parallel 0: no throughput runs
    PrintWriter o = spec.commandLine().getOut();
    Path work =
        out.toAbsolutePath().getParent() == null
            ? Path.of("bench-results")
            : out.toAbsolutePath().getParent();
    Files.createDirectories(work);
    Path dir =
        shape == null
            ? DemoModel.resolve(model, spec.commandLine().getErr())
            : shapeModel(shape, work, o);
    Path gguf = work.resolve(dir.getFileName() + "-f16.gguf");
    long t0 = System.nanoTime();
    GgufWriter.write(dir, gguf);
    o.printf(
        "wrote %s (%d MB) in %.1f s%n",
        gguf, Files.size(gguf) >> 20, (System.nanoTime() - t0) / 1e9);

    List<String> names = BenchData.characterNames();
    int n = Math.min(requests, names.size());
    String regex = BenchData.characterRegex();
    String grammar = GbnfPrinter.print(regex);
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      prompts.add(BenchData.characterPrompt(names.get(i)));
    }
    Tokenizer tok = Tokenizer.loadFromModelDir(dir);
    List<String> longPrompts = new ArrayList<>();
    for (int len : prefillTokens) {
      longPrompts.add(longPrompt(tok, len));
    }
    // Long-document extraction: per document, SGLang's question (nothing of it cached but the
    // instruction's first line) and then another question about the same document (the document
    // cached).
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

    // llama.cpp, one child per thread count.
    ObjectMapper om = new ObjectMapper();
    List<JsonNode> peer = new ArrayList<>();
    for (int t : threads) {
      ObjectNode job = om.createObjectNode();
      job.put("gguf", gguf.toString());
      job.put("threads", t);
      job.put("ctx", 4096);
      ArrayNode tz = job.putArray("tokenize");
      prompts.forEach(tz::add);
      longPrompts.forEach(tz::add);
      docPrompts.forEach(d -> tz.add(d[0]));
      ArrayNode cs = job.putArray("completions");
      for (int rep = 0; rep < repeats; rep++) {
        for (int k = 0; k < longPrompts.size(); k++) {
          cs.addObject()
              .put("id", "prefill" + k)
              .put("prompt", longPrompts.get(k))
              .put("nPredict", 1)
              .put("ignoreEos", true);
        }
        cs.addObject()
            .put("id", "decode1")
            .put("prompt", prompts.get(0))
            .put("nPredict", 1)
            .put("ignoreEos", true);
        cs.addObject()
            .put("id", "decodeN")
            .put("prompt", prompts.get(0))
            .put("nPredict", DECODE_TOKENS + 1)
            .put("ignoreEos", true);
      }
      for (int i = 0; i < n; i++) {
        cs.addObject()
            .put("id", "sheet" + i)
            .put("prompt", prompts.get(i))
            .put("nPredict", 256)
            .put("grammar", grammar);
      }
      // The slot's prompt cache on: the first question meets a cache holding another prompt, the
      // second finds the document in it. Time to first token: a one-token completion.
      for (int d = 0; d < docPrompts.size(); d++) {
        cs.addObject()
            .put("id", "docCold" + d)
            .put("prompt", docPrompts.get(d)[0])
            .put("nPredict", 1)
            .put("cachePrompt", true);
        cs.addObject()
            .put("id", "docWarm" + d)
            .put("prompt", docPrompts.get(d)[1])
            .put("nPredict", 1)
            .put("cachePrompt", true);
      }
      peer.add(runChild(om, job, work, "" + t, o));
    }
    // Throughput: P sheets at once (names cycled), llama.cpp with P slots and P client threads.
    List<List<String>> waves = new ArrayList<>();
    List<List<JsonNode>> peerWaves = new ArrayList<>();
    for (int p : parallel) {
      List<String> wave = new ArrayList<>();
      for (int i = 0; i < p; i++) {
        wave.add(BenchData.characterPrompt(names.get(i % names.size())));
      }
      waves.add(wave);
      List<JsonNode> byThreads = new ArrayList<>();
      for (int t : threads) {
        ObjectNode job = om.createObjectNode();
        job.put("gguf", gguf.toString());
        job.put("threads", t);
        job.put("parallel", p);
        job.put("ctx", p * 512);
        ObjectNode conc = job.putObject("concurrent");
        wave.forEach(conc.putArray("prompts")::add);
        conc.put("grammar", grammar);
        conc.put("nPredict", 256);
        byThreads.add(runChild(om, job, work, t + "-p" + p, o));
      }
      peerWaves.add(byThreads);
    }

    // Leap.
    LeapSide leap =
        LeapSide.measure(
            dir,
            new LeapSide.Settings(dtype, cpuF32Weights, sparseLogitsLimit, repeats),
            prompts,
            longPrompts,
            regex,
            waves,
            docPrompts);

    // Same ids?
    int sameIds = 0;
    List<String> idDiffs = new ArrayList<>();
    JsonNode ref = peer.get(0).path("tokens");
    List<String> all = new ArrayList<>(prompts);
    all.addAll(longPrompts);
    docPrompts.forEach(d -> all.add(d[0]));
    for (int i = 0; i < all.size(); i++) {
      int[] ours = tok.encode(all.get(i));
      int[] theirs = om.convertValue(ref.get(i), int[].class);
      if (Arrays.equals(ours, theirs)) {
        sameIds++;
      } else {
        idDiffs.add("prompt " + i + ": Leap " + ours.length + " ids, llama.cpp " + theirs.length);
      }
    }
    o.printf(
        "%nprompts tokenized to the same ids by both engines: %d of %d (long prompts: %s tokens; documents' prompts: %s"
            + " tokens)%n",
        sameIds,
        all.size(),
        longPrompts.stream().map(lp -> "" + tok.encode(lp).length).toList(),
        docPrompts.stream().map(d -> "" + tok.encode(d[0]).length).toList());
    idDiffs.forEach(d -> o.println("  " + d));

    ObjectNode json = om.createObjectNode();
    json.put("model", dir.toString());
    json.put("gguf", gguf.toString());
    json.put("grammar", grammar);
    json.put("leapDtype", leap.dtype);
    json.put("leapThreads", leap.threads);
    json.put("sameTokenIds", sameIds);
    json.put("prompts", all.size());
    o.println();
    o.println(
        "| batch 1, greedy | Leap jump-forward | Leap token-by-token | "
            + String.join(
                " | ",
                threads.stream()
                    .map(t -> "llama.cpp " + t + " thread" + (t == 1 ? "" : "s"))
                    .toList())
            + " |");
    o.println("|---|---:|---:|" + "---:|".repeat(threads.size()));
    StringBuilder decode =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| decode time per token (ms) | %.2f | %.2f |",
                leap.decodeMsPerToken,
                leap.decodeMsPerToken));
    StringBuilder[] prefill = new StringBuilder[longPrompts.size()];
    for (int k = 0; k < prefill.length; k++) {
      prefill[k] =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "| prefill of %d tokens (ms) | %.0f | %.0f |",
                  leap.prefillTokens[k],
                  leap.prefillMs[k],
                  leap.prefillMs[k]));
    }
    StringBuilder ttftCold =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| long document, time to first token, nothing cached"
                    + " (ms, median of %d) | %.0f | %.0f |",
                docPrompts.size(),
                median(leap.docColdMs),
                median(leap.docColdMs)));
    StringBuilder ttftWarm =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| long document, time to first token, document" + " cached (ms) | %.0f | %.0f |",
                median(leap.docWarmMs),
                median(leap.docWarmMs)));
    StringBuilder sheet =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| character sheet latency p50 (ms) | %.0f | %.0f |",
                median(leap.jfMs),
                median(leap.tbtMs)));
    StringBuilder agree =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| sheets equal to llama.cpp's (1st column) | %d of %d | %d of %d |",
                0,
                n,
                0,
                n));
    ArrayNode peersJson = json.putArray("llamaCpp");
    int[] jfEq = new int[threads.size()];
    int[] tbtEq = new int[threads.size()];
    List<String> diffs = new ArrayList<>();
    for (int k = 0; k < threads.size(); k++) {
      JsonNode r = peer.get(k);
      List<List<Double>> pre = new ArrayList<>();
      for (int q = 0; q < longPrompts.size(); q++) {
        pre.add(new ArrayList<>());
      }
      List<Double> cold = new ArrayList<>();
      List<Double> warm = new ArrayList<>();
      int docFirstEqual = 0;
      List<Double> d1 = new ArrayList<>();
      List<Double> dn = new ArrayList<>();
      List<Double> sheets = new ArrayList<>();
      for (JsonNode c : r.path("completions")) {
        String id = c.path("id").asText();
        double ms = c.path("ms").asDouble();
        if (id.startsWith("prefill")) {
          pre.get(Integer.parseInt(id.substring(7))).add(ms);
          continue;
        }
        if (id.startsWith("docCold") || id.startsWith("docWarm")) {
          int d = Integer.parseInt(id.substring(7));
          (id.startsWith("docCold") ? cold : warm).add(ms);
          String first =
              id.startsWith("docCold") ? leap.docColdText.get(d) : leap.docWarmText.get(d);
          docFirstEqual += c.path("text").asText().equals(first) ? 1 : 0;
          continue;
        }
        switch (id) {
          case "decode1" -> d1.add(ms);
          case "decodeN" -> dn.add(ms);
          default -> {
            int i = Integer.parseInt(id.substring(5));
            sheets.add(ms);
            String text = c.path("text").asText();
            if (text.equals(leap.jfTexts.get(i))) {
              jfEq[k]++;
            } else if (k == 0) {
              diffs.add(names.get(i) + ": " + firstDifference(leap.jfTexts.get(i), text));
            }
            if (text.equals(leap.tbtTexts.get(i))) {
              tbtEq[k]++;
            }
          }
        }
      }
      double perToken = (median(dn) - median(d1)) / DECODE_TOKENS;
      decode.append(String.format(Locale.ROOT, " %.2f |", perToken));
      for (int q = 0; q < prefill.length; q++) {
        prefill[q].append(String.format(Locale.ROOT, " %.0f |", median(pre.get(q))));
      }
      ttftCold.append(String.format(Locale.ROOT, " %.0f |", median(cold)));
      ttftWarm.append(String.format(Locale.ROOT, " %.0f |", median(warm)));
      sheet.append(
          String.format(Locale.ROOT, " %.0f |", sheets.isEmpty() ? Double.NaN : median(sheets)));
      agree.append(String.format(Locale.ROOT, " %d of %d |", jfEq[k], n));
      ObjectNode pj = peersJson.addObject();
      pj.put("threads", threads.get(k));
      pj.put("decodeMsPerToken", perToken);
      ArrayNode pms = pj.putArray("prefillMs");
      pre.forEach(l -> pms.add(median(l)));
      pj.put("docTtftColdMs", median(cold));
      pj.put("docTtftWarmMs", median(warm));
      pj.put("docFirstTokensEqualToLeap", docFirstEqual);
      pj.put("sheetLatencyMsP50", sheets.isEmpty() ? Double.NaN : median(sheets));
      pj.put("sheetsEqualToLeapJumpForward", jfEq[k]);
      pj.put("sheetsEqualToLeapTokenByToken", tbtEq[k]);
      pj.put("sheetsCompleted", sheets.size());
    }
    agree =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| sheets equal to llama.cpp's (%d thread%s) | %d of %d | %d of %d |",
                threads.get(0),
                threads.get(0) == 1 ? "" : "s",
                jfEq[0],
                n,
                tbtEq[0],
                n));
    for (int k = 0; k < threads.size(); k++) {
      agree.append(
          k == 0
              ? " |"
              : String.format(Locale.ROOT, " %d of %d equal to Leap jump-forward |", jfEq[k], n));
    }
    o.println(decode);
    for (StringBuilder pb : prefill) {
      o.println(pb);
    }
    o.println(sheet);
    o.println(agree);
    if (!docPrompts.isEmpty()) {
      o.println(ttftCold);
      o.println(ttftWarm);
    }
    if (!docPrompts.isEmpty()) {
      o.printf(
          Locale.ROOT,
          "%nLeap's long-document prompts: %.0f tokens, %.0f of them cached for the second question (median);"
              + " first tokens equal to llama.cpp's (%d threads): %d of %d%n",
          median(leap.docPromptTokens),
          median(leap.docCachedTokens),
          threads.get(0),
          docEqual(peer.get(0), leap),
          2 * docPrompts.size());
    }
    // Throughput rows.
    if (!parallel.isEmpty()) {
      o.println();
      o.println(
          "| throughput, sheets at once | Leap jump-forward | Leap token-by-token | "
              + String.join(
                  " | ",
                  threads.stream()
                      .map(t -> "llama.cpp " + t + " thread" + (t == 1 ? "" : "s"))
                      .toList())
              + " |");
      o.println("|---|---:|---:|" + "---:|".repeat(threads.size()));
      ArrayNode tj = json.putArray("throughput");
      for (int w = 0; w < parallel.size(); w++) {
        int p = parallel.get(w);
        List<String> wave = waves.get(w);
        LeapSide.Wave lw = leap.waves.get(w);
        StringBuilder row =
            new StringBuilder(
                String.format(
                    Locale.ROOT,
                    "| parallel %d: output tokens/s | %.0f | %.0f |",
                    p,
                    lw.jfTokens / lw.jfMs * 1000,
                    lw.tbtTokens / lw.tbtMs * 1000));
        // Outputs compared with llama.cpp's of the same wave (first thread count), prompt by
        // prompt.
        JsonNode ref0 = peerWaves.get(w).get(0).path("concurrent").path("texts");
        List<String> refTexts = new ArrayList<>();
        ref0.forEach(tx -> refTexts.add(tx.asText()));
        StringBuilder eq =
            new StringBuilder(
                String.format(
                    Locale.ROOT,
                    "| parallel %d: sheets equal to llama.cpp's (%d thread%s)"
                        + " | %d of %d | %d of %d |",
                    p,
                    threads.get(0),
                    threads.get(0) == 1 ? "" : "s",
                    equal(lw.jfTexts, refTexts),
                    p,
                    equal(lw.tbtTexts, refTexts),
                    p));
        ObjectNode wj = tj.addObject();
        wj.put("parallel", p);
        wj.put("leapJumpForwardTokensPerSec", lw.jfTokens / lw.jfMs * 1000);
        wj.put("leapTokenByTokenTokensPerSec", lw.tbtTokens / lw.tbtMs * 1000);
        wj.put("leapJumpForwardPassesPerRequest", lw.jfPasses);
        wj.put("leapTokenByTokenPassesPerRequest", lw.tbtPasses);
        ArrayNode lj = wj.putArray("llamaCpp");
        for (int k = 0; k < threads.size(); k++) {
          JsonNode r = peerWaves.get(w).get(k).path("concurrent");
          if (r.isMissingNode()) {
            row.append(" (no result) |");
            eq.append(" |");
            continue;
          }
          long tokens = 0;
          List<String> texts = new ArrayList<>();
          for (JsonNode tx : r.path("texts")) {
            texts.add(tx.asText());
            tokens += tok.encode(tx.asText()).length;
          }
          double tps = tokens / r.path("wallMs").asDouble() * 1000;
          row.append(String.format(Locale.ROOT, " %.0f |", tps));
          eq.append(
              k == 0 ? " |" : String.format(Locale.ROOT, " %d of %d |", equal(texts, refTexts), p));
          lj.addObject()
              .put("threads", threads.get(k))
              .put("tokensPerSec", tps)
              .put("wallMs", r.path("wallMs").asDouble());
        }
        o.println(row);
        o.println(eq);
      }
    }
    o.printf(
        Locale.ROOT,
        "%nLeap: dtype %s, %d PyTorch thread%s; forward passes per sheet %.1f jump-forward, %.1f token-by-token%n",
        leap.dtype,
        leap.threads,
        leap.threads == 1 ? "" : "s",
        leap.jfPasses,
        leap.tbtPasses);
    if (!diffs.isEmpty()) {
      o.println("Sheets where llama.cpp's text differs from Leap jump-forward's:");
      diffs.forEach(d -> o.println("  " + d));
    }
    json.put("leapDecodeMsPerToken", leap.decodeMsPerToken);
    ArrayNode lp = json.putArray("leapPrefillMs");
    for (double v : leap.prefillMs) {
      lp.add(v);
    }
    json.put("leapDocTtftColdMs", median(leap.docColdMs));
    json.put("leapDocTtftWarmMs", median(leap.docWarmMs));
    json.put("leapJumpForwardLatencyMsP50", median(leap.jfMs));
    json.put("leapTokenByTokenLatencyMsP50", median(leap.tbtMs));
    ArrayNode dj = json.putArray("differences");
    diffs.forEach(dj::add);
    om.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), json);
    o.printf("%nwrote %s%n", out);
    o.flush();
    return 0;
  }

  /**
   * Random F16 weights in the shape of a real model (timings do not depend on the values; outputs
   * are compared for equality, not sense), Llama architecture with default RoPE and no biases so
   * the GGUF writer takes it, with GPT-2's tokenizer (the vocabulary padded with unused entries in
   * the GGUF). Written once into {@code work/<shape>}.
   */
  private static Path shapeModel(String shape, Path work, PrintWriter o) throws IOException {
    ModelConfig c =
        switch (shape) {
          // Qwen2.5-0.5B: hidden 896, 24 layers, 14 heads, 2 KV heads, head_dim 64, MLP 4864, vocab
          // 151,936, tied.
          case "qwen2.5-0.5b" ->
              new ModelConfig(
                  "llama", 151_936, 896, 4864, 24, 14, 2, 64, 4096, 1e-6, 1e6, "default", 1, 1, 4,
                  8192, true, false, false, false, "float16");
          // Llama-3.2-1B: hidden 2048, 16 layers, 32 heads, 8 KV heads, head_dim 64, MLP 8192,
          // vocab 128,256, tied.
          case "llama3.2-1b" ->
              new ModelConfig(
                  "llama", 128_256, 2048, 8192, 16, 32, 8, 64, 4096, 1e-5, 5e5, "default", 1, 1, 4,
                  8192, true, false, false, false, "float16");
          default ->
              throw new IllegalArgumentException(
                  "unknown --shape '" + shape + "': use qwen2.5-0.5b or llama3.2-1b");
        };
    Path dir = work.resolve(shape);
    if (!Files.exists(dir.resolve("model.safetensors"))) {
      long t0 = System.nanoTime();
      HfModelWriter.write(dir, c, 24, 0.02, HfModelWriter.StorageType.F16, 50256);
      HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
      o.printf(
          "wrote random weights in the shape of %s to %s in %.1f s%n",
          shape, dir, (System.nanoTime() - t0) / 1e9);
    }
    return dir;
  }

  /** A held-out city article cut to about {@code tokens} tokens. */
  private static String longPrompt(Tokenizer tok, int tokens) {
    long seed = City.EVAL_SEED_BASE + 7;
    String doc = CityDocument.text(City.of(seed), seed, tokens + 200, tok);
    int[] ids = tok.encode(doc);
    String cut = tok.decode(Arrays.copyOf(ids, Math.min(ids.length, tokens)));
    return cut;
  }

  /** How many texts are equal position by position. */
  private static int equal(List<String> a, List<String> b) {
    int eq = 0;
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      eq += a.get(i).equals(b.get(i)) ? 1 : 0;
    }
    return eq;
  }

  private static int docEqual(JsonNode peer, LeapSide leap) {
    int eq = 0;
    for (JsonNode c : peer.path("completions")) {
      String id = c.path("id").asText();
      if (id.startsWith("docCold") || id.startsWith("docWarm")) {
        int d = Integer.parseInt(id.substring(7));
        String first = id.startsWith("docCold") ? leap.docColdText.get(d) : leap.docWarmText.get(d);
        eq += c.path("text").asText().equals(first) ? 1 : 0;
      }
    }
    return eq;
  }

  private JsonNode runChild(ObjectMapper om, ObjectNode job, Path work, String label, PrintWriter o)
      throws IOException, InterruptedException {
    int threadCount = job.path("threads").asInt();
    Path jobFile = work.resolve("peers-job-" + label + ".json");
    Path resultFile = work.resolve("peers-llamacpp-" + label + ".json");
    Path log = work.resolve("peers-llamacpp-" + label + ".log");
    Files.deleteIfExists(resultFile);
    om.writeValue(jobFile.toFile(), job);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                LlamaCppChild.class.getName(),
                jobFile.toString(),
                resultFile.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    o.printf(
        "llama.cpp, %d thread%s, %d slot%s (child JVM, limit %d s; log %s) ...%n",
        threadCount,
        threadCount == 1 ? "" : "s",
        job.path("parallel").asInt(1),
        job.path("parallel").asInt(1) == 1 ? "" : "s",
        timeLimit,
        log);
    o.flush();
    Process p = pb.start();
    if (!p.waitFor(timeLimit, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      o.printf(
          "  llama.cpp with %d thread%s passed the %d s limit: killed; partial results kept%n",
          threadCount, threadCount == 1 ? "" : "s", timeLimit);
    }
    if (!Files.exists(resultFile)) {
      if (job.has("concurrent")) {
        return om.createObjectNode(); // a throughput run that did not finish: reported as such
      }
      throw new IllegalStateException(
          "llama.cpp (" + threadCount + " threads) wrote no results; see " + log);
    }
    return om.readTree(resultFile.toFile());
  }

  static double median(List<Double> xs) {
    if (xs.isEmpty()) {
      return Double.NaN;
    }
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    int k = s.size();
    return k % 2 == 1 ? s.get(k / 2) : (s.get(k / 2 - 1) + s.get(k / 2)) / 2;
  }

  private static String firstDifference(String a, String b) {
    int i = 0;
    while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    int from = Math.max(0, i - 20);
    return "at char "
        + i
        + ": ..."
        + a.substring(from, Math.min(a.length(), i + 20)).replace("\n", "\\n")
        + " | ..."
        + b.substring(from, Math.min(b.length(), i + 20)).replace("\n", "\\n");
  }
}
