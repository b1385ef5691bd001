package dev.leap.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.retokenize.Tokenizer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The llama.cpp side of {@code leap bench peers}: the job documents that {@link LlamaCppChild}
 * reads, and the child JVM that runs each (this process's class path and Java), with a time limit.
 *
 * <p>A job is a JSON file {@code work/peers-job-LABEL.json}; the child writes its results to {@code
 * work/peers-llamacpp-LABEL.json} and its output to {@code .log} beside it. Invariants: a stale
 * result file is deleted before the child starts, so a result read is this run's; a child past the
 * limit is killed and what it wrote is kept; a batch-1 job without results is an error naming the
 * log, a throughput job without results an empty object (reported as no result); every prompt goes
 * to llama.cpp as Leap's token ids ({@code promptIds}), so both engines run the same ids whatever
 * the GGUF's pre-tokenizer does (llama.cpp knows a fixed list of pre-tokenizers, and the demo
 * model's own BPE splits digits in pairs, which none of them does); the child still tokenizes
 * {@link Workload#tokenized()} itself, and the report says how often it agrees.
 */
final class LlamaCppRuns {
  private final ObjectMapper om = Json.MAPPER;
  private final Path work;
  private final int timeLimit;
  private final PrintWriter o;
  private final Tokenizer tok;

  /**
   * @param work where job, result and log files go
   * @param timeLimit seconds per child
   * @param o where progress is printed
   * @param tok Leap's tokenizer of the model, which turns every prompt into the ids llama.cpp gets
   */
  LlamaCppRuns(Path work, int timeLimit, PrintWriter o, Tokenizer tok) {
    this.tok = tok;
    this.work = work;
    this.timeLimit = timeLimit;
    this.o = o;
  }

  /**
   * One child with {@code threads} threads and one slot: tokenizes {@link Workload#tokenized()},
   * then {@code repeats} times the prefills of the long prompts and the 1- and {@code DECODE_TOKENS
   * + 1}-token completions of the first sheet, then every sheet under the grammar, then each
   * document's two one-token completions with the slot's prompt cache on.
   */
  JsonNode batch1(Path gguf, int threads, Workload w, int repeats)
      throws IOException, InterruptedException {
    ObjectNode job = om.createObjectNode();
    job.put("gguf", gguf.toString());
    job.put("threads", threads);
    job.put("ctx", 4096);
    ArrayNode tz = job.putArray("tokenize");
    w.tokenized().forEach(tz::add);
    ArrayNode cs = job.putArray("completions");
    for (int rep = 0; rep < repeats; rep++) {
      for (int k = 0; k < w.longPrompts().size(); k++) {
        prompt(cs.addObject(), w.longPrompts().get(k))
            .put("id", "prefill" + k)
            .put("nPredict", 1)
            .put("ignoreEos", true);
      }
      prompt(cs.addObject(), w.prompts().get(0))
          .put("id", "decode1")
          .put("nPredict", 1)
          .put("ignoreEos", true);
      prompt(cs.addObject(), w.prompts().get(0))
          .put("id", "decodeN")
          .put("nPredict", PeersCommand.DECODE_TOKENS + 1)
          .put("ignoreEos", true);
    }
    for (int i = 0; i < w.n(); i++) {
      prompt(cs.addObject(), w.prompts().get(i))
          .put("id", "sheet" + i)
          .put("nPredict", 256)
          .put("grammar", w.grammar());
    }
    // The slot's prompt cache on: the first question meets a cache holding another prompt, the
    // second finds the document in it. Time to first token: a one-token completion.
    for (int d = 0; d < w.docPrompts().size(); d++) {
      prompt(cs.addObject(), w.docPrompts().get(d)[0])
          .put("id", "docCold" + d)
          .put("nPredict", 1)
          .put("cachePrompt", true);
      prompt(cs.addObject(), w.docPrompts().get(d)[1])
          .put("id", "docWarm" + d)
          .put("nPredict", 1)
          .put("cachePrompt", true);
    }
    return run(job, "" + threads);
  }

  /**
   * One child with {@code threads} threads and as many slots (and client threads) as {@code wave}
   * has prompts, all completed at once under {@code grammar}, 256 tokens each.
   */
  JsonNode wave(Path gguf, int threads, List<String> wave, String grammar)
      throws IOException, InterruptedException {
    ObjectNode job = om.createObjectNode();
    job.put("gguf", gguf.toString());
    job.put("threads", threads);
    job.put("parallel", wave.size());
    job.put("ctx", wave.size() * 512);
    ObjectNode conc = job.putObject("concurrent");
    ArrayNode ps = conc.putArray("promptIds");
    wave.forEach(p -> ids(ps.addArray(), p));
    conc.put("grammar", grammar);
    conc.put("nPredict", 256);
    return run(job, threads + "-p" + wave.size());
  }

  /** Puts {@code text}'s ids under Leap's tokenizer into {@code c} as its {@code promptIds}. */
  private ObjectNode prompt(ObjectNode c, String text) {
    ids(c.putArray("promptIds"), text);
    return c;
  }

  private void ids(ArrayNode into, String text) {
    for (int id : tok.encode(text)) {
      into.add(id);
    }
  }

  private JsonNode run(ObjectNode job, String label) throws IOException, InterruptedException {
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
}
