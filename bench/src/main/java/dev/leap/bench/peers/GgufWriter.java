package dev.leap.bench.peers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.bench.Json;
import dev.leap.model.ModelConfig;
import dev.leap.model.SafeTensors;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a Llama-architecture Hugging Face model directory (config, safetensors, a GPT-2-style
 * byte-level BPE {@code tokenizer.json}) as a GGUF file that llama.cpp loads: matrices in F16, norm
 * vectors in F32.
 *
 * <p>Format, from ggml's {@code docs/gguf.md} (version 3, little-endian): magic {@code GGUF},
 * version (u32), tensor count and key-value count (u64); the key-values (a string key: u64 length
 * and UTF-8 bytes; a u32 value type; the value, arrays as element type, u64 count, elements); the
 * tensor infos (name, u32 dimension count, u64 dimensions innermost first so {@code ne[0]} is the
 * row length, u32 ggml type, u64 offset into the data); zero padding to {@code general.alignment}
 * (32); the data, each tensor at its offset, a multiple of the alignment.
 *
 * <p>Two things llama.cpp's own converter ({@code convert_hf_to_gguf.py}) does that a faithful
 * writer must do too: the rows of {@code q_proj} and {@code k_proj} are permuted per head (the two
 * rotary halves interleaved: row {@code h*hd + 2i + j} takes row {@code h*hd + j*hd/2 + i}; with
 * the KV head count for k), because llama.cpp's Llama rotary embedding pairs adjacent dimensions
 * where Hugging Face's pairs the halves; and the vocabulary says {@code tokenizer.ggml.pre =
 * gpt-2}, its BOS/EOS ids, and {@code add_bos_token = false}, so that llama.cpp's own tokenizer
 * turns a prompt into Leap's ids where GPT-2's pre-tokenizer splits the text as the model's does
 * (GPT-2 itself; the demo model's BPE differs on digit runs and on whitespace before a word, so
 * {@code leap bench peers} hands llama.cpp Leap's ids instead of text).
 */
public final class GgufWriter {
  private GgufWriter() {}

  private static final int ALIGN = 32;
  private static final int T_U32 = 4;
  private static final int T_I32 = 5;
  private static final int T_F32 = 6;
  private static final int T_BOOL = 7;
  private static final int T_STRING = 8;
  private static final int T_ARRAY = 9;
  private static final int GGML_F32 = 0;
  private static final int GGML_F16 = 1;

  private record Tensor(String name, long[] ne, int type, byte[] data) {}

  /**
   * Writes {@code dir} as GGUF to {@code out}. Only {@code llama}/{@code mistral} models without
   * biases or q/k norms.
   */
  public static void write(Path dir, Path out) throws IOException {
    ModelConfig c = ModelConfig.load(dir);
    if (c.qkvBias() || c.oBias() || c.qkNorm() || !c.ropeType().equals("default")) {
      throw new IllegalArgumentException(
          "the GGUF writer handles plain Llama models (no biases, no q/k norm, default RoPE); "
              + dir
              + " is "
              + c.modelType());
    }
    int h = c.hiddenSize();
    int hd = c.headDim();
    List<Tensor> tensors = new ArrayList<>();
    try (SafeTensors st = SafeTensors.open(dir)) {
      tensors.add(
          matrix(st, "model.embed_tokens.weight", "token_embd.weight", c.vocabSize(), h, 0));
      for (int i = 0; i < c.numLayers(); i++) {
        String p = "model.layers." + i + ".";
        String b = "blk." + i + ".";
        tensors.add(vector(st, p + "input_layernorm.weight", b + "attn_norm.weight"));
        tensors.add(
            matrix(
                st,
                p + "self_attn.q_proj.weight",
                b + "attn_q.weight",
                c.numHeads() * hd,
                h,
                c.numHeads()));
        tensors.add(
            matrix(
                st,
                p + "self_attn.k_proj.weight",
                b + "attn_k.weight",
                c.numKvHeads() * hd,
                h,
                c.numKvHeads()));
        tensors.add(
            matrix(
                st, p + "self_attn.v_proj.weight", b + "attn_v.weight", c.numKvHeads() * hd, h, 0));
        tensors.add(
            matrix(
                st,
                p + "self_attn.o_proj.weight",
                b + "attn_output.weight",
                h,
                c.numHeads() * hd,
                0));
        tensors.add(vector(st, p + "post_attention_layernorm.weight", b + "ffn_norm.weight"));
        tensors.add(
            matrix(
                st, p + "mlp.gate_proj.weight", b + "ffn_gate.weight", c.intermediateSize(), h, 0));
        tensors.add(
            matrix(st, p + "mlp.up_proj.weight", b + "ffn_up.weight", c.intermediateSize(), h, 0));
        tensors.add(
            matrix(
                st, p + "mlp.down_proj.weight", b + "ffn_down.weight", h, c.intermediateSize(), 0));
      }
      tensors.add(vector(st, "model.norm.weight", "output_norm.weight"));
      if (!c.tieWordEmbeddings()) {
        tensors.add(matrix(st, "lm_head.weight", "output.weight", c.vocabSize(), h, 0));
      }
    }
    Map<String, Object[]> kv = new LinkedHashMap<>();
    kv.put("general.architecture", new Object[] {T_STRING, "llama"});
    kv.put("general.name", new Object[] {T_STRING, dir.getFileName().toString()});
    kv.put("general.alignment", new Object[] {T_U32, ALIGN});
    kv.put("general.file_type", new Object[] {T_U32, 1}); // mostly F16
    kv.put("llama.vocab_size", new Object[] {T_U32, c.vocabSize()});
    kv.put("llama.context_length", new Object[] {T_U32, c.maxPositionEmbeddings()});
    kv.put("llama.embedding_length", new Object[] {T_U32, h});
    kv.put("llama.block_count", new Object[] {T_U32, c.numLayers()});
    kv.put("llama.feed_forward_length", new Object[] {T_U32, c.intermediateSize()});
    kv.put("llama.attention.head_count", new Object[] {T_U32, c.numHeads()});
    kv.put("llama.attention.head_count_kv", new Object[] {T_U32, c.numKvHeads()});
    kv.put("llama.attention.key_length", new Object[] {T_U32, hd});
    kv.put("llama.attention.value_length", new Object[] {T_U32, hd});
    kv.put("llama.rope.dimension_count", new Object[] {T_U32, hd});
    kv.put("llama.rope.freq_base", new Object[] {T_F32, (float) c.ropeTheta()});
    kv.put("llama.attention.layer_norm_rms_epsilon", new Object[] {T_F32, (float) c.rmsNormEps()});
    vocabulary(dir.resolve("tokenizer.json"), c.vocabSize(), kv);
    writeFile(out, kv, tensors);
  }

  /** GPT-2 BPE vocabulary keys from a byte-level BPE {@code tokenizer.json}. */
  private static void vocabulary(Path tokenizerJson, int vocabSize, Map<String, Object[]> kv)
      throws IOException {
    JsonNode root = Json.MAPPER.readTree(tokenizerJson.toFile());
    JsonNode model = root.path("model");
    if (!"BPE".equals(model.path("type").asText())) {
      throw new IllegalArgumentException(
          tokenizerJson
              + ": the GGUF writer handles BPE tokenizers, not "
              + model.path("type").asText());
    }
    String[] tokens = new String[vocabSize];
    int[] types = new int[vocabSize];
    for (Iterator<Map.Entry<String, JsonNode>> it = model.path("vocab").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      int id = e.getValue().asInt();
      if (id < vocabSize) {
        tokens[id] = e.getKey();
        types[id] = 1; // normal
      }
    }
    int eos = -1;
    for (JsonNode a : root.path("added_tokens")) {
      int id = a.path("id").asInt();
      if (id < vocabSize) {
        tokens[id] = a.path("content").asText();
        types[id] = a.path("special").asBoolean() ? 3 : 4; // control : user-defined
        if (a.path("special").asBoolean() && eos < 0) {
          eos = id;
        }
      }
    }
    for (int i = 0; i < vocabSize; i++) {
      if (tokens[i] == null) {
        tokens[i] = "[PAD" + i + "]";
        types[i] = 5; // unused
      }
    }
    List<String> merges = new ArrayList<>();
    for (JsonNode m : model.path("merges")) {
      merges.add(m.isArray() ? m.get(0).asText() + " " + m.get(1).asText() : m.asText());
    }
    if (eos < 0) {
      eos = vocabSize - 1;
    }
    kv.put("tokenizer.ggml.model", new Object[] {T_STRING, "gpt2"});
    kv.put("tokenizer.ggml.pre", new Object[] {T_STRING, "gpt-2"});
    kv.put("tokenizer.ggml.tokens", new Object[] {T_ARRAY, T_STRING, List.of(tokens)});
    kv.put("tokenizer.ggml.token_type", new Object[] {T_ARRAY, T_I32, types});
    kv.put("tokenizer.ggml.merges", new Object[] {T_ARRAY, T_STRING, merges});
    kv.put("tokenizer.ggml.bos_token_id", new Object[] {T_U32, eos});
    kv.put("tokenizer.ggml.eos_token_id", new Object[] {T_U32, eos});
    kv.put("tokenizer.ggml.add_bos_token", new Object[] {T_BOOL, false});
    kv.put("tokenizer.ggml.add_eos_token", new Object[] {T_BOOL, false});
  }

  /**
   * A [rows, cols] weight as F16, rows permuted for llama.cpp's rotary layout when {@code
   * permuteHeads > 0}.
   */
  private static Tensor matrix(
      SafeTensors st, String hf, String name, int rows, int cols, int permuteHeads) {
    long[] shape = st.shape(hf);
    if (shape.length != 2 || shape[0] != rows || shape[1] != cols) {
      throw new IllegalArgumentException(
          "tensor "
              + hf
              + " has shape "
              + Arrays.toString(shape)
              + ", expected ["
              + rows
              + ", "
              + cols
              + "]");
    }
    FloatBuffer f = st.floats(hf);
    byte[] data = new byte[rows * cols * 2];
    ByteBuffer out = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    int headDim = permuteHeads > 0 ? rows / permuteHeads : 0;
    for (int r = 0; r < rows; r++) {
      int src = r;
      if (permuteHeads > 0) {
        int head = r / headDim;
        int within = r % headDim;
        int i = within / 2;
        int j = within % 2;
        src = head * headDim + j * (headDim / 2) + i;
      }
      for (int k = 0; k < cols; k++) {
        out.putShort(toHalf(f.get(src * cols + k)));
      }
    }
    return new Tensor(name, new long[] {cols, rows}, GGML_F16, data);
  }

  private static Tensor vector(SafeTensors st, String hf, String name) {
    FloatBuffer f = st.floats(hf);
    byte[] data = new byte[f.remaining() * 4];
    ByteBuffer out = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    long n = f.remaining();
    while (f.hasRemaining()) {
      out.putFloat(f.get());
    }
    return new Tensor(name, new long[] {n}, GGML_F32, data);
  }

  /** float to IEEE 754 binary16, round to nearest even (Java 17 has no Float.floatToFloat16). */
  static short toHalf(float v) {
    int bits = Float.floatToRawIntBits(v);
    int sign = (bits >>> 16) & 0x8000;
    int exp = (bits >>> 23) & 0xFF;
    int mant = bits & 0x7FFFFF;
    if (exp == 0xFF) {
      return (short) (sign | 0x7C00 | (mant != 0 ? 0x200 : 0));
    }
    int e = exp - 127 + 15;
    if (e >= 0x1F) {
      return (short) (sign | 0x7C00);
    }
    if (e <= 0) {
      if (e < -10) {
        return (short) sign;
      }
      mant |= 0x800000;
      int shift = 14 - e;
      int half = mant >> shift;
      int rem = mant & ((1 << shift) - 1);
      int mid = 1 << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1) != 0)) {
        half++;
      }
      return (short) (sign | half);
    }
    int half = (e << 10) | (mant >> 13);
    int rem = mant & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1) != 0)) {
      half++; // may carry into the exponent, which is the right rounding
    }
    return (short) (sign | half);
  }

  private static void writeFile(Path out, Map<String, Object[]> kv, List<Tensor> tensors)
      throws IOException {
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
      Le w = new Le(os);
      w.bytes("GGUF".getBytes(StandardCharsets.US_ASCII));
      w.u32(3);
      w.u64(tensors.size());
      w.u64(kv.size());
      for (Map.Entry<String, Object[]> e : kv.entrySet()) {
        w.str(e.getKey());
        Object[] v = e.getValue();
        int type = (Integer) v[0];
        w.u32(type);
        switch (type) {
          case T_U32 -> w.u32((Integer) v[1]);
          case T_F32 -> w.u32(Float.floatToRawIntBits((Float) v[1]));
          case T_BOOL -> w.u8((Boolean) v[1] ? 1 : 0);
          case T_STRING -> w.str((String) v[1]);
          case T_ARRAY -> {
            int et = (Integer) v[1];
            w.u32(et);
            if (et == T_STRING) {
              @SuppressWarnings("unchecked")
              List<String> xs = (List<String>) v[2];
              w.u64(xs.size());
              for (String x : xs) {
                w.str(x);
              }
            } else {
              int[] xs = (int[]) v[2];
              w.u64(xs.length);
              for (int x : xs) {
                w.u32(x);
              }
            }
          }
          default -> throw new IllegalStateException("value type " + type);
        }
      }
      long offset = 0;
      for (Tensor t : tensors) {
        w.str(t.name());
        w.u32(t.ne().length);
        for (long d : t.ne()) {
          w.u64(d);
        }
        w.u32(t.type());
        w.u64(offset);
        offset = align(offset + t.data().length);
      }
      w.pad();
      long start = w.written;
      for (Tensor t : tensors) {
        w.bytes(t.data());
        w.pad();
      }
      if (w.written - start != offset) {
        throw new IllegalStateException(
            "tensor data " + (w.written - start) + " bytes, offsets say " + offset);
      }
    }
  }

  private static long align(long x) {
    return (x + ALIGN - 1) / ALIGN * ALIGN;
  }

  /** Little-endian primitives and GGUF strings, counting bytes written. */
  private static final class Le {
    final OutputStream os;
    long written;

    Le(OutputStream os) {
      this.os = os;
    }

    void u8(int v) throws IOException {
      os.write(v);
      written++;
    }

    void u32(int v) throws IOException {
      for (int i = 0; i < 4; i++) {
        u8((v >>> (8 * i)) & 0xFF);
      }
    }

    void u64(long v) throws IOException {
      for (int i = 0; i < 8; i++) {
        u8((int) ((v >>> (8 * i)) & 0xFF));
      }
    }

    void bytes(byte[] b) throws IOException {
      os.write(b);
      written += b.length;
    }

    void str(String s) throws IOException {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      u64(b.length);
      bytes(b);
    }

    void pad() throws IOException {
      while (written % ALIGN != 0) {
        u8(0);
      }
    }
  }
}
