package dev.leap.train;

import ai.djl.Device;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.model.SafeTensors;
import dev.leap.train.internal.Json;
import dev.leap.train.model.AdamW;
import dev.leap.train.model.TrainableLlama;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A training checkpoint: a directory with {@code model.safetensors} (float32: the parameters as
 * {@code param:NAME}, AdamW's moments as {@code m:NAME} and {@code v:NAME}) and {@code state.json}
 * (the number of steps taken, seconds spent). Written to a temporary directory and then moved into
 * place, so an interrupted write leaves the previous checkpoint intact.
 */
final class Checkpoint {
  private Checkpoint() {}

  /** What a checkpoint restores. */
  record State(
      TrainableLlama model, Map<String, float[]> optimizer, int step, double elapsedSeconds) {}

  static boolean exists(Path dir) {
    return Files.exists(dir.resolve("state.json"))
        && Files.exists(dir.resolve("model.safetensors"));
  }

  static void write(Path dir, TrainableLlama model, AdamW opt, int step, double elapsedSeconds)
      throws IOException {
    Map<String, float[]> all = new LinkedHashMap<>();
    Map<String, long[]> shapes = new LinkedHashMap<>();
    for (Map.Entry<String, float[]> e : model.values().entrySet()) {
      all.put("param:" + e.getKey(), e.getValue());
    }
    all.putAll(opt.state());
    for (Map.Entry<String, float[]> e : all.entrySet()) {
      shapes.put(e.getKey(), new long[] {e.getValue().length});
    }
    Path tmp = dir.resolveSibling(dir.getFileName() + ".tmp");
    deleteTree(tmp);
    Files.createDirectories(tmp);
    HfModelWriter.writeSafetensors(
        tmp.resolve("model.safetensors"),
        shapes,
        HfModelWriter.StorageType.F32,
        (name, count, sink) -> {
          for (float v : all.get(name)) {
            sink.accept(v);
          }
        });
    ObjectMapper m = Json.MAPPER;
    m.writeValue(
        tmp.resolve("state.json").toFile(),
        m.createObjectNode().put("step", step).put("elapsedSeconds", elapsedSeconds));
    Path old = dir.resolveSibling(dir.getFileName() + ".old");
    deleteTree(old);
    if (Files.exists(dir)) {
      Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
    }
    Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
    deleteTree(old);
  }

  static State read(Path dir, ModelConfig config, Device device) throws IOException {
    JsonNode state = Json.MAPPER.readTree(dir.resolve("state.json").toFile());
    Map<String, float[]> params = new LinkedHashMap<>();
    Map<String, float[]> moments = new LinkedHashMap<>();
    try (SafeTensors st = SafeTensors.open(dir)) {
      for (String name : TrainableLlama.fusedShapes(config).keySet()) {
        params.put(name, floats(st, "param:" + name));
        moments.put("m:" + name, floats(st, "m:" + name));
        moments.put("v:" + name, floats(st, "v:" + name));
      }
    }
    TrainableLlama model = TrainableLlama.fromValues(config, device, params);
    return new State(
        model, moments, state.get("step").asInt(), state.get("elapsedSeconds").asDouble());
  }

  private static float[] floats(SafeTensors st, String name) {
    if (!st.has(name)) {
      throw new IllegalArgumentException(
          "checkpoint has no tensor " + name + " (was it written for another model shape?)");
    }
    FloatBuffer b = st.floats(name);
    float[] out = new float[b.remaining()];
    b.get(out);
    return out;
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
