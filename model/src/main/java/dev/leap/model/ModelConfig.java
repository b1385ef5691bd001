package dev.leap.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Llama-family decoder's shape, read from a Hugging Face {@code config.json}.
 *
 * <p>Both RoPE layouts are read: {@code rope_theta} and {@code rope_scaling} at the top level
 * (Llama 3.x checkpoints), and transformers 5's {@code rope_parameters}. Supported RoPE types:
 * {@code default} and {@code llama3}. Qwen2 implies q/k/v biases; Llama's {@code attention_bias}
 * adds them (and an o_proj bias); Qwen3 has q/k RMSNorm. Every bad value is an {@link
 * IllegalArgumentException} naming the file, the key and the value.
 *
 * @param modelType llama, mistral, qwen2 or qwen3 (SmolLM uses llama)
 * @param headDim may differ from {@code hiddenSize / numHeads}
 * @param ropeType "default" or "llama3"
 * @param qkvBias biases on the q, k and v projections
 * @param oBias bias on the output projection
 * @param qkNorm RMSNorm on q and k per head (Qwen3)
 */
public record ModelConfig(
    String modelType,
    int vocabSize,
    int hiddenSize,
    int intermediateSize,
    int numLayers,
    int numHeads,
    int numKvHeads,
    int headDim,
    int maxPositionEmbeddings,
    double rmsNormEps,
    double ropeTheta,
    String ropeType,
    double ropeFactor,
    double ropeLowFreqFactor,
    double ropeHighFreqFactor,
    int ropeOriginalMaxPositions,
    boolean tieWordEmbeddings,
    boolean qkvBias,
    boolean oBias,
    boolean qkNorm,
    String torchDtype) {

  static final Set<String> SUPPORTED = Set.of("llama", "mistral", "qwen2", "qwen3");

  /** Reads {@code dir/config.json}. */
  public static ModelConfig load(Path dir) {
    Path file = dir.resolve("config.json");
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("model directory " + dir + " has no config.json");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(file + " is not a JSON object");
    }
    return parse(root, file.toString());
  }

  /** Parses a config object; {@code file} names it in errors. */
  public static ModelConfig parse(JsonNode root, String file) {
    String type = root.path("model_type").asText("").toLowerCase(Locale.ROOT);
    if (type.isEmpty()) {
      throw new IllegalArgumentException(file + ": model_type is missing");
    }
    if (!SUPPORTED.contains(type)) {
      throw new IllegalArgumentException(
          file
              + ": model_type \""
              + type
              + "\" is not supported (Leap runs "
              + String.join(", ", new TreeSet<>(SUPPORTED))
              + ")");
    }
    int hidden = positive(root, "hidden_size", file);
    int heads = positive(root, "num_attention_heads", file);
    int kvHeads =
        root.has("num_key_value_heads") && !root.get("num_key_value_heads").isNull()
            ? positive(root, "num_key_value_heads", file)
            : heads;
    if (heads % kvHeads != 0) {
      throw new IllegalArgumentException(
          file
              + ": num_attention_heads ("
              + heads
              + ") is not a multiple of num_key_value_heads ("
              + kvHeads
              + ")");
    }
    int headDim;
    if (root.has("head_dim") && !root.get("head_dim").isNull()) {
      headDim = positive(root, "head_dim", file);
    } else {
      if (hidden % heads != 0) {
        throw new IllegalArgumentException(
            file
                + ": hidden_size ("
                + hidden
                + ") is not a multiple of num_attention_heads ("
                + heads
                + ") and head_dim is not given");
      }
      headDim = hidden / heads;
    }
    if (headDim % 2 != 0) {
      throw new IllegalArgumentException(
          file + ": head_dim " + headDim + " must be even for rotary embeddings");
    }
    JsonNode rope = root.path("rope_parameters");
    JsonNode scaling = rope.isObject() ? rope : root.path("rope_scaling");
    double theta =
        rope.isObject() && rope.has("rope_theta")
            ? rope.get("rope_theta").asDouble()
            : root.path("rope_theta").asDouble(10000.0);
    if (!(theta > 0)) {
      throw new IllegalArgumentException(file + ": rope_theta must be positive, got " + theta);
    }
    String ropeType = "default";
    double factor = 1;
    double low = 1;
    double high = 4;
    int original = 8192;
    if (scaling.isObject()) {
      ropeType =
          scaling.has("rope_type")
              ? scaling.get("rope_type").asText()
              : scaling.path("type").asText("default");
      if (ropeType.equals("llama3")) {
        factor = scaling.path("factor").asDouble(8);
        low = scaling.path("low_freq_factor").asDouble(1);
        high = scaling.path("high_freq_factor").asDouble(4);
        original = scaling.path("original_max_position_embeddings").asInt(8192);
        if (!(factor > 0) || !(high > low)) {
          throw new IllegalArgumentException(
              file
                  + ": llama3 rope scaling needs factor > 0 and high_freq_factor > low_freq_factor");
        }
      } else if (!ropeType.equals("default")) {
        throw new IllegalArgumentException(
            file + ": rope type \"" + ropeType + "\" is not supported (default, llama3)");
      }
    } else if (!scaling.isMissingNode() && !scaling.isNull()) {
      throw new IllegalArgumentException(
          file + ": rope_scaling must be an object or null, found " + scaling);
    }
    boolean attentionBias = root.path("attention_bias").asBoolean(false);
    boolean qkvBias = type.equals("qwen2") || attentionBias;
    boolean oBias = !type.equals("qwen2") && attentionBias;
    boolean tie =
        root.path("tie_word_embeddings")
            .asBoolean(type.equals("qwen2") || type.equals("qwen3") ? false : false);
    if (root.has("tie_word_embeddings")) {
      tie = root.get("tie_word_embeddings").asBoolean();
    }
    double eps = root.path("rms_norm_eps").asDouble(1e-6);
    if (!(eps > 0)) {
      throw new IllegalArgumentException(file + ": rms_norm_eps must be positive, got " + eps);
    }
    String dtype =
        root.has("torch_dtype")
            ? root.get("torch_dtype").asText()
            : root.path("dtype").asText("float32");
    return new ModelConfig(
        type,
        positive(root, "vocab_size", file),
        hidden,
        positive(root, "intermediate_size", file),
        positive(root, "num_hidden_layers", file),
        heads,
        kvHeads,
        headDim,
        root.has("max_position_embeddings")
            ? positive(root, "max_position_embeddings", file)
            : 2048,
        eps,
        theta,
        ropeType,
        factor,
        low,
        high,
        original,
        tie,
        qkvBias,
        oBias,
        type.equals("qwen3"),
        dtype);
  }

  private static int positive(JsonNode root, String key, String file) {
    JsonNode n = root.get(key);
    if (n == null || n.isNull()) {
      throw new IllegalArgumentException(file + ": " + key + " is missing");
    }
    if (!n.canConvertToInt() || n.asInt() <= 0 || !n.isIntegralNumber()) {
      throw new IllegalArgumentException(
          file + ": " + key + " must be a positive integer, found " + n);
    }
    return n.asInt();
  }

  /**
   * This config as a {@code config.json} object (the classic layout; rope in {@code rope_scaling}).
   */
  public ObjectNode toJson() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    String arch =
        switch (modelType) {
          case "qwen2" -> "Qwen2ForCausalLM";
          case "qwen3" -> "Qwen3ForCausalLM";
          case "mistral" -> "MistralForCausalLM";
          default -> "LlamaForCausalLM";
        };
    o.putArray("architectures").add(arch);
    o.put("model_type", modelType);
    o.put("vocab_size", vocabSize);
    o.put("hidden_size", hiddenSize);
    o.put("intermediate_size", intermediateSize);
    o.put("num_hidden_layers", numLayers);
    o.put("num_attention_heads", numHeads);
    o.put("num_key_value_heads", numKvHeads);
    o.put("head_dim", headDim);
    o.put("max_position_embeddings", maxPositionEmbeddings);
    o.put("rms_norm_eps", rmsNormEps);
    o.put("rope_theta", ropeTheta);
    if (ropeType.equals("llama3")) {
      ObjectNode s = o.putObject("rope_scaling");
      s.put("rope_type", "llama3");
      s.put("factor", ropeFactor);
      s.put("low_freq_factor", ropeLowFreqFactor);
      s.put("high_freq_factor", ropeHighFreqFactor);
      s.put("original_max_position_embeddings", ropeOriginalMaxPositions);
    } else {
      o.putNull("rope_scaling");
    }
    o.put("tie_word_embeddings", tieWordEmbeddings);
    if (!modelType.equals("qwen2")) {
      o.put("attention_bias", qkvBias);
    }
    o.put("hidden_act", "silu");
    o.put("torch_dtype", torchDtype);
    return o;
  }

  /** A small Llama config (tests, the demo model). */
  public static ModelConfig llama(
      int vocab, int hidden, int intermediate, int layers, int heads, int kvHeads, int headDim) {
    return new ModelConfig(
        "llama",
        vocab,
        hidden,
        intermediate,
        layers,
        heads,
        kvHeads,
        headDim,
        2048,
        1e-5,
        10000.0,
        "default",
        1,
        1,
        4,
        8192,
        true,
        false,
        false,
        false,
        "float32");
  }

  /** This config with another context length ({@code max_position_embeddings}). */
  public ModelConfig withMaxPositions(int positions) {
    return new ModelConfig(
        modelType,
        vocabSize,
        hiddenSize,
        intermediateSize,
        numLayers,
        numHeads,
        numKvHeads,
        headDim,
        positions,
        rmsNormEps,
        ropeTheta,
        ropeType,
        ropeFactor,
        ropeLowFreqFactor,
        ropeHighFreqFactor,
        ropeOriginalMaxPositions,
        tieWordEmbeddings,
        qkvBias,
        oBias,
        qkNorm,
        torchDtype);
  }

  /** Query heads per KV head. */
  public int groups() {
    return numHeads / numKvHeads;
  }
}
