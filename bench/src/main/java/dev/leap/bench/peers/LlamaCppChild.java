package dev.leap.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import dev.leap.bench.Json;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The llama.cpp side of {@code leap bench peers}, run in a child JVM (java-llama.cpp can hang, in a
 * grammar or in {@code close()}, so the parent kills it past a time limit). Reads a job (JSON: the
 * GGUF file, threads, context size, prompts to tokenize, completions to run), writes the results
 * (token ids; per completion its text and wall time in ms), then halts without closing the model.
 *
 * <p>Prompts come as token ids ({@code promptIds}, Leap's tokenization), handed to llama.cpp's
 * server as a JSON array of ids, which it takes as the tokenized prompt; java-llama.cpp 4.2.0 has
 * no setter for that, so {@link #withPromptIds} writes the array into its parameter map by
 * reflection (this child runs on the class path, where that is allowed).
 *
 * <p>Each completion is greedy (temperature 0, one candidate), with the prompt cache off unless the
 * job asks for it, so every timing includes its prompt's prefill. A job with {@code parallel} P > 1
 * slots and a {@code concurrent} block sends its prompts from P threads at once (llama.cpp batches
 * the slots' tokens into one decode per step) and reports the wall time and the texts.
 *
 * <pre>java -cp ... dev.leap.bench.peers.LlamaCppChild job.json results.json</pre>
 */
public final class LlamaCppChild {
  private LlamaCppChild() {}

  public static void main(String[] args) throws Exception {
    ObjectMapper om = Json.MAPPER;
    JsonNode job = om.readTree(Path.of(args[0]).toFile());
    ObjectNode out = om.createObjectNode();
    LlamaModel.setLogger(LogFormat.TEXT, (level, msg) -> {});
    ModelParameters mp =
        new ModelParameters()
            .setModel(job.path("gguf").asText())
            .setThreads(job.path("threads").asInt(1))
            .setThreadsBatch(job.path("threads").asInt(1))
            .setCtxSize(job.path("ctx").asInt(4096))
            .setParallel(job.path("parallel").asInt(1))
            .setGpuLayers(0);
    long t0 = System.nanoTime();
    LlamaModel model = new LlamaModel(mp);
    out.put("loadMs", (System.nanoTime() - t0) / 1e6);
    ArrayNode toks = out.putArray("tokens");
    for (JsonNode p : job.path("tokenize")) {
      ArrayNode ids = toks.addArray();
      for (int id : model.encode(p.asText())) {
        ids.add(id);
      }
    }
    ArrayNode results = out.putArray("completions");
    for (JsonNode c : job.path("completions")) {
      InferenceParameters ip =
          withPromptIds(new InferenceParameters(""), c.path("promptIds"))
              .setTemperature(0)
              .setTopK(1)
              .setNPredict(c.path("nPredict").asInt(256))
              .setCachePrompt(c.path("cachePrompt").asBoolean(false))
              .setIgnoreEos(c.path("ignoreEos").asBoolean(false))
              .setSeed(0);
      if (c.hasNonNull("grammar")) {
        ip.setGrammar(c.path("grammar").asText());
      }
      long s = System.nanoTime();
      String text = model.complete(ip);
      double ms = (System.nanoTime() - s) / 1e6;
      ObjectNode r = results.addObject();
      r.put("id", c.path("id").asText());
      r.put("ms", ms);
      r.put("text", text);
      Files.writeString(
          Path.of(args[1]), om.writeValueAsString(out)); // partial results survive a hang later on
    }
    JsonNode conc = job.path("concurrent");
    if (conc.isObject()) {
      // Requests from as many threads as the model has slots: llama.cpp's server loop batches the
      // slots' tokens into one decode per step (continuous batching).
      int threads = job.path("parallel").asInt(1);
      List<JsonNode> prompts = new ArrayList<>();
      conc.path("promptIds").forEach(prompts::add);
      String grammar = conc.hasNonNull("grammar") ? conc.path("grammar").asText() : null;
      int nPredict = conc.path("nPredict").asInt(256);
      String[] texts = new String[prompts.size()];
      double[] ms = new double[prompts.size()];
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      long w0 = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < prompts.size(); i++) {
        int k = i;
        fs.add(
            pool.submit(
                () -> {
                  InferenceParameters ip =
                      withPromptIds(new InferenceParameters(""), prompts.get(k))
                          .setTemperature(0)
                          .setTopK(1)
                          .setNPredict(nPredict)
                          .setCachePrompt(false)
                          .setSeed(0);
                  if (grammar != null) {
                    ip.setGrammar(grammar);
                  }
                  long s = System.nanoTime();
                  texts[k] = model.complete(ip);
                  ms[k] = (System.nanoTime() - s) / 1e6;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      ObjectNode c = out.putObject("concurrent");
      c.put("wallMs", (System.nanoTime() - w0) / 1e6);
      c.put("parallel", threads);
      ArrayNode tx = c.putArray("texts");
      ArrayNode lat = c.putArray("ms");
      for (int i = 0; i < texts.length; i++) {
        tx.add(texts[i]);
        lat.add(ms[i]);
      }
      pool.shutdownNow();
    }
    Files.writeString(Path.of(args[1]), om.writeValueAsString(out));
    System.out.flush();
    Runtime.getRuntime().halt(0); // not model.close(): it can hang
  }

  /**
   * {@code ip} with its prompt set to {@code ids} (a JSON array of token ids), which llama.cpp's
   * completion handler tokenizes as given.
   */
  static InferenceParameters withPromptIds(InferenceParameters ip, JsonNode ids) {
    if (!ids.isArray() || ids.isEmpty()) {
      throw new IllegalArgumentException("a completion without promptIds: " + ids);
    }
    try {
      Field f = ip.getClass().getSuperclass().getDeclaredField("parameters");
      f.setAccessible(true);
      @SuppressWarnings("unchecked")
      Map<String, String> parameters = (Map<String, String>) f.get(ip);
      parameters.put("prompt", ids.toString());
      return ip;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "java-llama.cpp's InferenceParameters has no parameter map to hold prompt ids", e);
    }
  }
}
