package dev.leap.bench.peers;

import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.Generation;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.runtime.internal.model.HfModelWriter;
import dev.leap.runtime.internal.model.LlamaModel;
import dev.leap.runtime.internal.model.ModelConfig;
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
 * {@code leap bench peers}: Leap beside llama.cpp (java-llama.cpp 4.2.0, llama.cpp b4916) on the same
 * model, the same prompts and the same constraint, greedy.
 *
 * <p>The model is written as GGUF F16 by the project's own {@link GgufWriter}; the character regex
 * is printed as GBNF by {@link GbnfPrinter}. llama.cpp runs in a child JVM ({@link LlamaCppChild})
 * with a time limit, once per thread count. The command checks that both engines turn every prompt
 * into the same token ids, compares the outputs sheet by sheet, and reports: decode time per token at
 * batch 1 (llama.cpp: the time of a 129-token completion less a 1-token one, over 128; Leap: 128
 * greedy decode steps of the model), the prefill of a 1,000-token prompt (llama.cpp: a 1-token
 * completion of it without the prompt cache; Leap: the prompt in the runtime's 512-token chunks), and
 * the character sheets' batch-1 latency p50 (Leap jump-forward, Leap token by token, llama.cpp with
 * the grammar).
 *
 * <p>{@code --shape qwen2.5-0.5b|llama3.2-1b} runs the same on random F16 weights in those models'
 * shapes ({@link #shapeModel}).
 *
 * <pre>./leap bench peers [--model DIR|demo | --shape S] [--requests 10] [--threads 1,2] [--dtype auto] [--repeats 3]</pre>
 */
@Command(name = "peers", mixinStandardHelpOptions = true,
    description = "Leap beside llama.cpp (java-llama.cpp, GGUF F16 written by Leap) on the same model, prompts and constraint.")
public final class PeersCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--model", defaultValue = "demo", paramLabel = "DIR|demo", description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(names = "--requests", defaultValue = "10", description = "Character sheets (names). Default: ${DEFAULT-VALUE}.")
  int requests;

  @Option(names = "--shape", description = "Instead of --model: random F16 weights in a real model's shape, written by"
      + " HfModelWriter (Llama architecture, GPT-2 tokenizer): qwen2.5-0.5b or llama3.2-1b.")
  String shape;

  @Option(names = "--repeats", defaultValue = "3", description = "Repeats of the decode and prefill timings (medians). Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Option(names = "--threads", defaultValue = "1,2", split = ",", description = "llama.cpp thread counts. Default: ${DEFAULT-VALUE}.")
  List<Integer> threads;

  @Option(names = "--dtype", defaultValue = "auto", description = "Leap's dtype. Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(names = "--time-limit", defaultValue = "600", description = "Seconds per llama.cpp child. Default: ${DEFAULT-VALUE}.")
  int timeLimit;

  @Option(names = "--out", defaultValue = "bench-results/peers.json", description = "Default: ${DEFAULT-VALUE}.")
  Path out;

  private static final int DECODE_TOKENS = 128;
  private static final int PREFILL_TOKENS = 1000;

  @Override
  public Integer call() throws Exception {
    if (requests < 1) {
      throw new IllegalArgumentException("--requests must be at least 1, got " + requests);
    }
    if (repeats < 1) {
      throw new IllegalArgumentException("--repeats must be at least 1, got " + repeats);
    }
    PrintWriter o = spec.commandLine().getOut();
    Path work = out.toAbsolutePath().getParent() == null ? Path.of("bench-results") : out.toAbsolutePath().getParent();
    Files.createDirectories(work);
    Path dir = shape == null ? DemoModel.resolve(model, spec.commandLine().getErr()) : shapeModel(shape, work, o);
    Path gguf = work.resolve(dir.getFileName() + "-f16.gguf");
    long t0 = System.nanoTime();
    GgufWriter.write(dir, gguf);
    o.printf("wrote %s (%d MB) in %.1f s%n", gguf, Files.size(gguf) >> 20, (System.nanoTime() - t0) / 1e9);

    List<String> names = BenchData.characterNames();
    int n = Math.min(requests, names.size());
    String regex = BenchData.characterRegex();
    String grammar = GbnfPrinter.print(regex);
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      prompts.add(BenchData.characterPrompt(names.get(i)));
    }
    Tokenizer tok = Tokenizer.loadFromModelDir(dir);
    String longPrompt = longPrompt(tok);

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
      tz.add(longPrompt);
      ArrayNode cs = job.putArray("completions");
      for (int rep = 0; rep < repeats; rep++) {
        cs.addObject().put("id", "prefill").put("prompt", longPrompt).put("nPredict", 1).put("ignoreEos", true);
        cs.addObject().put("id", "decode1").put("prompt", prompts.get(0)).put("nPredict", 1).put("ignoreEos", true);
        cs.addObject().put("id", "decodeN").put("prompt", prompts.get(0)).put("nPredict", DECODE_TOKENS + 1).put("ignoreEos", true);
      }
      for (int i = 0; i < n; i++) {
        cs.addObject().put("id", "sheet" + i).put("prompt", prompts.get(i)).put("nPredict", 256).put("grammar", grammar);
      }
      peer.add(runChild(om, job, work, t, o));
    }

    // Leap.
    LeapSide leap = leapSide(dir, prompts, longPrompt, regex);

    // Same ids?
    int sameIds = 0;
    List<String> idDiffs = new ArrayList<>();
    JsonNode ref = peer.get(0).path("tokens");
    List<String> all = new ArrayList<>(prompts);
    all.add(longPrompt);
    for (int i = 0; i < all.size(); i++) {
      int[] ours = tok.encode(all.get(i));
      int[] theirs = om.convertValue(ref.get(i), int[].class);
      if (Arrays.equals(ours, theirs)) {
        sameIds++;
      } else {
        idDiffs.add("prompt " + i + ": Leap " + ours.length + " ids, llama.cpp " + theirs.length);
      }
    }
    o.printf("%nprompts tokenized to the same ids by both engines: %d of %d (the long prompt: %d tokens)%n", sameIds, all.size(),
        tok.encode(longPrompt).length);
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
    o.println("| batch 1, greedy | Leap jump-forward | Leap token-by-token | " + String.join(" | ",
        threads.stream().map(t -> "llama.cpp " + t + " thread" + (t == 1 ? "" : "s")).toList()) + " |");
    o.println("|---|---:|---:|" + "---:|".repeat(threads.size()));
    StringBuilder decode = new StringBuilder(String.format(Locale.ROOT, "| decode time per token (ms) | %.2f | %.2f |",
        leap.decodeMsPerToken, leap.decodeMsPerToken));
    StringBuilder prefill = new StringBuilder(String.format(Locale.ROOT, "| prefill of %d tokens (ms) | %.0f | %.0f |",
        leap.prefillTokens, leap.prefillMs, leap.prefillMs));
    StringBuilder sheet = new StringBuilder(String.format(Locale.ROOT, "| character sheet latency p50 (ms) | %.0f | %.0f |",
        median(leap.jfMs), median(leap.tbtMs)));
    StringBuilder agree = new StringBuilder(String.format(Locale.ROOT, "| sheets equal to llama.cpp's (1st column) | %d of %d | %d of %d |",
        0, n, 0, n));
    ArrayNode peersJson = json.putArray("llamaCpp");
    int[] jfEq = new int[threads.size()];
    int[] tbtEq = new int[threads.size()];
    List<String> diffs = new ArrayList<>();
    for (int k = 0; k < threads.size(); k++) {
      JsonNode r = peer.get(k);
      List<Double> pre = new ArrayList<>();
      List<Double> d1 = new ArrayList<>();
      List<Double> dn = new ArrayList<>();
      List<Double> sheets = new ArrayList<>();
      for (JsonNode c : r.path("completions")) {
        String id = c.path("id").asText();
        double ms = c.path("ms").asDouble();
        switch (id) {
          case "prefill" -> pre.add(ms);
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
      prefill.append(String.format(Locale.ROOT, " %.0f |", median(pre)));
      sheet.append(String.format(Locale.ROOT, " %.0f |", sheets.isEmpty() ? Double.NaN : median(sheets)));
      agree.append(String.format(Locale.ROOT, " %d of %d |", jfEq[k], n));
      ObjectNode pj = peersJson.addObject();
      pj.put("threads", threads.get(k));
      pj.put("decodeMsPerToken", perToken);
      pj.put("prefillMs", median(pre));
      pj.put("sheetLatencyMsP50", sheets.isEmpty() ? Double.NaN : median(sheets));
      pj.put("sheetsEqualToLeapJumpForward", jfEq[k]);
      pj.put("sheetsEqualToLeapTokenByToken", tbtEq[k]);
      pj.put("sheetsCompleted", sheets.size());
    }
    agree = new StringBuilder(String.format(Locale.ROOT, "| sheets equal to llama.cpp's (%d thread%s) | %d of %d | %d of %d |",
        threads.get(0), threads.get(0) == 1 ? "" : "s", jfEq[0], n, tbtEq[0], n));
    for (int k = 0; k < threads.size(); k++) {
      agree.append(k == 0 ? " |" : String.format(Locale.ROOT, " %d of %d equal to Leap jump-forward |", jfEq[k], n));
    }
    o.println(decode);
    o.println(prefill);
    o.println(sheet);
    o.println(agree);
    o.printf(Locale.ROOT, "%nLeap: dtype %s, %d PyTorch thread%s; forward passes per sheet %.1f jump-forward, %.1f token-by-token%n",
        leap.dtype, leap.threads, leap.threads == 1 ? "" : "s", leap.jfPasses, leap.tbtPasses);
    if (!diffs.isEmpty()) {
      o.println("Sheets where llama.cpp's text differs from Leap jump-forward's:");
      diffs.forEach(d -> o.println("  " + d));
    }
    json.put("leapDecodeMsPerToken", leap.decodeMsPerToken);
    json.put("leapPrefillMs", leap.prefillMs);
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
   * Random F16 weights in the shape of a real model (timings do not depend on the values; outputs are
   * compared for equality, not sense), Llama architecture with default RoPE and no biases so the GGUF
   * writer takes it, with GPT-2's tokenizer (the vocabulary padded with unused entries in the GGUF).
   * Written once into {@code work/<shape>}.
   */
  private static Path shapeModel(String shape, Path work, PrintWriter o) throws IOException {
    ModelConfig c = switch (shape) {
      // Qwen2.5-0.5B: hidden 896, 24 layers, 14 heads, 2 KV heads, head_dim 64, MLP 4864, vocab 151,936, tied.
      case "qwen2.5-0.5b" -> new ModelConfig("llama", 151_936, 896, 4864, 24, 14, 2, 64, 4096, 1e-6, 1e6, "default", 1, 1, 4,
          8192, true, false, false, false, "float16");
      // Llama-3.2-1B: hidden 2048, 16 layers, 32 heads, 8 KV heads, head_dim 64, MLP 8192, vocab 128,256, tied.
      case "llama3.2-1b" -> new ModelConfig("llama", 128_256, 2048, 8192, 16, 32, 8, 64, 4096, 1e-5, 5e5, "default", 1, 1, 4,
          8192, true, false, false, false, "float16");
      default -> throw new IllegalArgumentException("unknown --shape '" + shape + "': use qwen2.5-0.5b or llama3.2-1b");
    };
    Path dir = work.resolve(shape);
    if (!Files.exists(dir.resolve("model.safetensors"))) {
      long t0 = System.nanoTime();
      HfModelWriter.write(dir, c, 24, 0.02, HfModelWriter.StorageType.F16, 50256);
      HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
      o.printf("wrote random weights in the shape of %s to %s in %.1f s%n", shape, dir, (System.nanoTime() - t0) / 1e9);
    }
    return dir;
  }

  /** A held-out city article cut to about {@value #PREFILL_TOKENS} tokens. */
  private static String longPrompt(Tokenizer tok) {
    long seed = City.EVAL_SEED_BASE + 7;
    String doc = CityDocument.text(City.of(seed), seed, PREFILL_TOKENS + 200, tok);
    int[] ids = tok.encode(doc);
    String cut = tok.decode(Arrays.copyOf(ids, Math.min(ids.length, PREFILL_TOKENS)));
    return cut;
  }

  private JsonNode runChild(ObjectMapper om, ObjectNode job, Path work, int threadCount, PrintWriter o)
      throws IOException, InterruptedException {
    Path jobFile = work.resolve("peers-job-" + threadCount + ".json");
    Path resultFile = work.resolve("peers-llamacpp-" + threadCount + ".json");
    Path log = work.resolve("peers-llamacpp-" + threadCount + ".log");
    Files.deleteIfExists(resultFile);
    om.writeValue(jobFile.toFile(), job);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LlamaCppChild.class.getName(),
        jobFile.toString(), resultFile.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
    o.printf("llama.cpp, %d thread%s (child JVM, limit %d s; log %s) ...%n", threadCount, threadCount == 1 ? "" : "s", timeLimit, log);
    o.flush();
    Process p = pb.start();
    if (!p.waitFor(timeLimit, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      o.printf("  llama.cpp with %d thread%s passed the %d s limit: killed; partial results kept%n", threadCount,
          threadCount == 1 ? "" : "s", timeLimit);
    }
    if (!Files.exists(resultFile)) {
      throw new IllegalStateException("llama.cpp (" + threadCount + " threads) wrote no results; see " + log);
    }
    return om.readTree(resultFile.toFile());
  }

  private static final class LeapSide {
    String dtype;
    int threads;
    double decodeMsPerToken;
    double prefillMs;
    int prefillTokens;
    final List<Double> jfMs = new ArrayList<>();
    final List<Double> tbtMs = new ArrayList<>();
    final List<String> jfTexts = new ArrayList<>();
    final List<String> tbtTexts = new ArrayList<>();
    double jfPasses;
    double tbtPasses;
  }

  private LeapSide leapSide(Path dir, List<String> prompts, String longPrompt, String regex) {
    LeapSide s = new LeapSide();
    // The model alone: greedy decode steps at batch 1, and the long prompt's prefill in 512-token chunks.
    try (LlamaModel m = LlamaModel.load(dir, ai.djl.Device.cpu(), 4096, dtype)) {
      s.dtype = m.precision().label();
      s.threads = JniUtils.getNumThreads(); // after the engine is up
      Tokenizer tok = Tokenizer.loadFromModelDir(dir);
      int[] prompt = tok.encode(prompts.get(0));
      int[] slots = new int[4096];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = i;
      }
      List<Double> per = new ArrayList<>();
      for (int rep = 0; rep < repeats; rep++) {
        int next = greedy(m, new LlamaModel.SequenceInput(prompt, 0, new int[0], Arrays.copyOf(slots, prompt.length), false));
        long t0 = System.nanoTime();
        for (int k = 0; k < DECODE_TOKENS; k++) {
          int pos = prompt.length + k;
          next = greedy(m, new LlamaModel.SequenceInput(new int[] {next}, pos, slots, new int[] {pos}, false));
        }
        per.add((System.nanoTime() - t0) / 1e6 / DECODE_TOKENS);
      }
      s.decodeMsPerToken = median(per);
      int[] ids = tok.encode(longPrompt);
      s.prefillTokens = ids.length;
      List<Double> pre = new ArrayList<>();
      for (int rep = 0; rep < repeats; rep++) {
        long t0 = System.nanoTime();
        for (int from = 0; from < ids.length; from += 512) {
          int to = Math.min(ids.length, from + 512);
          greedy(m, new LlamaModel.SequenceInput(Arrays.copyOfRange(ids, from, to), from, slots,
              Arrays.copyOfRange(slots, from, to), false));
        }
        pre.add((System.nanoTime() - t0) / 1e6);
      }
      s.prefillMs = median(pre);
    }
    SamplingParams params = SamplingParams.builder().maxTokens(256).build();
    try (LeapRuntime jf = LeapRuntime.builder().setModelDir(dir).optDtype(dtype).build();
        LeapRuntime tbt = LeapRuntime.builder().setModelDir(dir).optDtype(dtype).optJumpForward(false).build()) {
      jf.generate(prompts.get(0), Constraint.regex(regex), params);
      tbt.generate(prompts.get(0), Constraint.regex(regex), params);
      double jfPasses = 0;
      double tbtPasses = 0;
      for (int i = 0; i < prompts.size(); i++) {
        Generation a = jf.generate(prompts.get(i), Constraint.regex(regex), params);
        Generation b = tbt.generate(prompts.get(i), Constraint.regex(regex), params);
        if (a.isError() || b.isError()) {
          throw new IllegalStateException("a Leap request failed: " + (a.isError() ? a.error() : b.error()));
        }
        s.jfMs.add(a.stats().totalMs());
        s.tbtMs.add(b.stats().totalMs());
        s.jfTexts.add(a.text());
        s.tbtTexts.add(b.text());
        jfPasses += a.stats().forwardPasses();
        tbtPasses += b.stats().forwardPasses();
      }
      s.jfPasses = jfPasses / prompts.size();
      s.tbtPasses = tbtPasses / prompts.size();
    }
    return s;
  }

  private static int greedy(LlamaModel m, LlamaModel.SequenceInput in) {
    try (NDManager step = m.manager().newSubManager()) {
      return (int) m.forward(step, List.of(in)).argMax(1).toLongArray()[0];
    }
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
    return "at char " + i + ": ..." + a.substring(from, Math.min(a.length(), i + 20)).replace("\n", "\\n") + " | ..."
        + b.substring(from, Math.min(b.length(), i + 20)).replace("\n", "\\n");
  }
}
