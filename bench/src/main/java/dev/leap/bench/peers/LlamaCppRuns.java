package dev.leap.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
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
 * log, a throughput job without results an empty object (reported as no result).
 */
final class LlamaCppRuns {
  private final ObjectMapper om = Json.MAPPER;
  private final Path work;
  private final int timeLimit;
  private final PrintWriter o;

  /**
   * @param work where job, result and log files go
   * @param timeLimit seconds per child
   * @param o where progress is printed
   */
  LlamaCppRuns(Path work, int timeLimit, PrintWriter o) {
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
        cs.addObject()
            .put("id", "prefill" + k)
            .put("prompt", w.longPrompts().get(k))
            .put("nPredict", 1)
            .put("ignoreEos", true);
      }
      cs.addObject()
          .put("id", "decode1")
          .put("prompt", w.prompts().get(0))
          .put("nPredict", 1)
          .put("ignoreEos", true);
      cs.addObject()
          .put("id", "decodeN")
          .put("prompt", w.prompts().get(0))
          .put("nPredict", PeersCommand.DECODE_TOKENS + 1)
          .put("ignoreEos", true);
    }
    for (int i = 0; i < w.n(); i++) {
      cs.addObject()
          .put("id", "sheet" + i)
          .put("prompt", w.prompts().get(i))
          .put("nPredict", 256)
          .put("grammar", w.grammar());
    }
    // The slot's prompt cache on: the first question meets a cache holding another prompt, the
    // second finds the document in it. Time to first token: a one-token completion.
    for (int d = 0; d < w.docPrompts().size(); d++) {
      cs.addObject()
          .put("id", "docCold" + d)
          .put("prompt", w.docPrompts().get(d)[0])
          .put("nPredict", 1)
          .put("cachePrompt", true);
      cs.addObject()
          .put("id", "docWarm" + d)
          .put("prompt", w.docPrompts().get(d)[1])
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
    wave.forEach(conc.putArray("prompts")::add);
    conc.put("grammar", grammar);
    conc.put("nPredict", 256);
    return run(job, threads + "-p" + wave.size());
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
