package dev.leap.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Writes Hugging Face model directories: {@code config.json}, {@code generation_config.json} and
 * {@code model.safetensors} (F32, F16 or BF16), with the tensor names transformers uses for
 * Llama-family models. {@link #write} fills them with random weights from a fixed seed (tests build
 * their models with it and load them through the real loader); the training code writes trained
 * weights through {@link #writeConfig} and {@link #writeSafetensors}.
 *
 * <p>Weights are normal with standard deviation {@code std}; norm weights are {@code 1 + std *
 * N(0,1)} so that they matter. The same (config, seed, std, dtype) always gives the same bytes.
 */
public final class HfModelWriter {
  private HfModelWriter() {}

  /** Storage type of the weights. */
  public enum StorageType {
    F32,
    F16,
    BF16
  }

  public static void write(
      Path dir, ModelConfig config, long seed, double std, StorageType type, int... eosIds) {
    writeConfig(dir, config, type, eosIds);
    Map<String, long[]> shapes = tensorShapes(config);
    SplittableRandom rnd = new SplittableRandom(seed);
    try {
      writeSafetensors(
          dir.resolve("model.safetensors"),
          shapes,
          type,
          (name, count, sink) -> {
            boolean norm = name.endsWith("norm.weight");
            for (long i = 0; i < count; i++) {
              sink.accept((float) (rnd.nextGaussian() * std + (norm ? 1 : 0)));
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the model to " + dir, e);
    }
  }

  /**
   * Writes {@code config.json} (with {@code torch_dtype} for {@code type}) and {@code
   * generation_config.json} (the EOS ids) into {@code dir}.
   */
  public static void writeConfig(Path dir, ModelConfig config, StorageType type, int... eosIds) {
    try {
      Files.createDirectories(dir);
      ObjectMapper m = Json.MAPPER;
      ObjectNode cfg = config.toJson();
      cfg.put(
          "torch_dtype",
          switch (type) {
            case F32 -> "float32";
            case F16 -> "float16";
            case BF16 -> "bfloat16";
          });
      m.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("config.json").toFile(), cfg);
      ObjectNode gen = m.createObjectNode();
      if (eosIds.length == 1) {
        gen.put("eos_token_id", eosIds[0]);
      } else if (eosIds.length > 1) {
        var arr = gen.putArray("eos_token_id");
        for (int e : eosIds) {
          arr.add(e);
        }
      }
      m.writerWithDefaultPrettyPrinter()
          .writeValue(dir.resolve("generation_config.json").toFile(), gen);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the model config to " + dir, e);
    }
  }

  /**
   * The Hugging Face tensor names and shapes of a Llama-family model with this config, in the order
   * Leap writes them.
   */
  public static Map<String, long[]> tensorShapes(ModelConfig c) {
    Map<String, long[]> shapes = new LinkedHashMap<>();
    int h = c.hiddenSize();
    int hd = c.headDim();
    shapes.put("model.embed_tokens.weight", new long[] {c.vocabSize(), h});
    for (int i = 0; i < c.numLayers(); i++) {
      String p = "model.layers." + i + ".";
      shapes.put(p + "input_layernorm.weight", new long[] {h});
      shapes.put(p + "self_attn.q_proj.weight", new long[] {(long) c.numHeads() * hd, h});
      shapes.put(p + "self_attn.k_proj.weight", new long[] {(long) c.numKvHeads() * hd, h});
      shapes.put(p + "self_attn.v_proj.weight", new long[] {(long) c.numKvHeads() * hd, h});
      if (c.qkvBias()) {
        shapes.put(p + "self_attn.q_proj.bias", new long[] {(long) c.numHeads() * hd});
        shapes.put(p + "self_attn.k_proj.bias", new long[] {(long) c.numKvHeads() * hd});
        shapes.put(p + "self_attn.v_proj.bias", new long[] {(long) c.numKvHeads() * hd});
      }
      shapes.put(p + "self_attn.o_proj.weight", new long[] {h, (long) c.numHeads() * hd});
      if (c.oBias()) {
        shapes.put(p + "self_attn.o_proj.bias", new long[] {h});
      }
      if (c.qkNorm()) {
        shapes.put(p + "self_attn.q_norm.weight", new long[] {hd});
        shapes.put(p + "self_attn.k_norm.weight", new long[] {hd});
      }
      shapes.put(p + "post_attention_layernorm.weight", new long[] {h});
      shapes.put(p + "mlp.gate_proj.weight", new long[] {c.intermediateSize(), h});
      shapes.put(p + "mlp.up_proj.weight", new long[] {c.intermediateSize(), h});
      shapes.put(p + "mlp.down_proj.weight", new long[] {h, c.intermediateSize()});
    }
    shapes.put("model.norm.weight", new long[] {h});
    if (!c.tieWordEmbeddings()) {
      shapes.put("lm_head.weight", new long[] {c.vocabSize(), h});
    }
    return shapes;
  }

  /** Produces the {@code count} values of tensor {@code name}, in row-major order, into a sink. */
  @FunctionalInterface
  public interface TensorValues {
    void produce(String name, long count, FloatSink sink) throws IOException;
  }

  /** Receives one float value. */
  @FunctionalInterface
  public interface FloatSink {
    void accept(float value) throws IOException;
  }

  /**
   * Writes a safetensors file with the given tensors (name to shape, in file order), each stored as
   * {@code type}; F16 and BF16 round to nearest even. Values come from {@code values} tensor by
   * tensor.
   */
  public static void writeSafetensors(
      Path file, Map<String, long[]> shapes, StorageType type, TensorValues values)
      throws IOException {
    int width = type == StorageType.F32 ? 4 : 2;
    String dtype = type.name();
    ObjectMapper m = Json.MAPPER;
    ObjectNode header = m.createObjectNode();
    header.putObject("__metadata__").put("format", "pt");
    long offset = 0;
    for (Map.Entry<String, long[]> e : shapes.entrySet()) {
      long count = 1;
      for (long d : e.getValue()) {
        count *= d;
      }
      ObjectNode t = header.putObject(e.getKey());
      t.put("dtype", dtype);
      var shape = t.putArray("shape");
      for (long d : e.getValue()) {
        shape.add(d);
      }
      var off = t.putArray("data_offsets");
      off.add(offset);
      off.add(offset + count * width);
      offset += count * width;
    }
    byte[] json = m.writeValueAsBytes(header);
    int padded = (json.length + 7) / 8 * 8;
    byte[] headerBytes = new byte[padded];
    Arrays.fill(headerBytes, (byte) ' ');
    System.arraycopy(json, 0, headerBytes, 0, json.length);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded).array());
      out.write(headerBytes);
      ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
      for (Map.Entry<String, long[]> e : shapes.entrySet()) {
        long count = 1;
        for (long d : e.getValue()) {
          count *= d;
        }
        long[] written = {0};
        values.produce(
            e.getKey(),
            count,
            v -> {
              if (buf.remaining() < 4) {
                out.write(buf.array(), 0, buf.position());
                buf.clear();
              }
              switch (type) {
                case F32 -> buf.putFloat(v);
                case BF16 -> buf.putShort((short) (Float.floatToRawIntBits(Rope.toBf16(v)) >>> 16));
                default -> buf.putShort(floatToHalf(v));
              }
              written[0]++;
            });
        if (written[0] != count) {
          throw new IllegalStateException(
              "tensor " + e.getKey() + " needs " + count + " values, got " + written[0]);
        }
      }
      out.write(buf.array(), 0, buf.position());
    }
  }

  /** float to IEEE 754 binary16, round to nearest even (no NaN handling needed for weights). */
  public static short floatToHalf(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    int exp = ((bits >>> 23) & 0xFF) - 127 + 15;
    int mant = bits & 0x7FFFFF;
    if (exp >= 31) {
      return (short) (sign | 0x7C00);
    }
    if (exp <= 0) {
      if (exp < -10) {
        return (short) sign;
      }
      mant |= 0x800000;
      int shift = 14 - exp;
      int half = mant >>> shift;
      int rem = mant & ((1 << shift) - 1);
      int mid = 1 << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1) == 1)) {
        half++;
      }
      return (short) (sign | half);
    }
    int half = (exp << 10) | (mant >>> 13);
    int rem = mant & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1) == 1)) {
      half++;
    }
    return (short) (sign | half);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
