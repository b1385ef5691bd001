package dev.leap.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.model.SafeTensors;
import dev.leap.retokenize.HfTokenizer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GGUF writer against a naive reader written here from the spec, and its float16 rounding
 * against the nearest representable value found by search; the GBNF printer on the character regex.
 */
class GgufWriterTest {

  /** binary16 to float, the slow obvious way. */
  static double half(int h) {
    int sign = (h & 0x8000) != 0 ? -1 : 1;
    int exp = (h >>> 10) & 0x1F;
    int mant = h & 0x3FF;
    if (exp == 0) {
      return sign * mant * Math.pow(2, -24);
    }
    if (exp == 31) {
      return mant == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
    }
    return sign * (1 + mant / 1024.0) * Math.pow(2, exp - 15);
  }

  @Test
  void toHalfRoundsToTheNearestHalf() {
    long seed = 24;
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < 20_000; i++) {
      float v = (float) (rnd.nextGaussian() * Math.pow(2, rnd.nextInt(-26, 17)));
      if (Math.abs(v) >= 65504) {
        continue; // IEEE rounds these to infinity (checked below)
      }
      int h = GgufWriter.toHalf(v) & 0xFFFF;
      double got = half(h);
      double err = Math.abs(got - v);
      // No representable neighbour is closer (ties: the even one).
      for (int d : new int[] {-1, 1}) {
        int other = h + d;
        if ((other & 0x7C00) == 0x7C00
            || other < 0
            || other > 0xFFFF
            || ((other ^ h) & 0x8000) != 0) {
          continue;
        }
        double e2 = Math.abs(half(other) - v);
        assertTrue(
            err < e2 || (err == e2 && (h & 1) == 0),
            "seed " + seed + ": " + v + " -> " + got + " but " + half(other) + " is closer");
      }
    }
    assertEquals(0x3C00, GgufWriter.toHalf(1f) & 0xFFFF);
    assertEquals(0x7C00, GgufWriter.toHalf(1e6f) & 0xFFFF);
    assertEquals(0x0001, GgufWriter.toHalf((float) Math.pow(2, -24)) & 0xFFFF);
  }

  @Test
  void writesGgufThatANaiveReaderReadsBack(@TempDir Path tmp) throws IOException {
    ModelConfig c = ModelConfig.llama(50257, 32, 48, 1, 4, 2, 8);
    Path dir = tmp.resolve("m");
    HfModelWriter.write(dir, c, 7, 0.5, HfModelWriter.StorageType.F16, 50256);
    HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
    Path gguf = tmp.resolve("m.gguf");
    GgufWriter.write(dir, gguf);
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(gguf)).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(
        "GGUF",
        new String(new byte[] {b.get(), b.get(), b.get(), b.get()}, StandardCharsets.US_ASCII));
    assertEquals(3, b.getInt());
    long tensors = b.getLong();
    long kvs = b.getLong();
    assertEquals(
        2 + 9 * c.numLayers(), tensors); // embeddings, final norm, 9 per layer (tied: no output)
    Map<String, Object> kv = new HashMap<>();
    for (long i = 0; i < kvs; i++) {
      String key = str(b);
      kv.put(key, value(b, b.getInt()));
    }
    assertEquals("llama", kv.get("general.architecture"));
    assertEquals("gpt-2", kv.get("tokenizer.ggml.pre"));
    assertEquals(50256L, kv.get("tokenizer.ggml.eos_token_id"));
    assertEquals(false, kv.get("tokenizer.ggml.add_bos_token"));
    assertEquals(50257, ((Object[]) kv.get("tokenizer.ggml.tokens")).length);
    assertEquals(4L, kv.get("llama.attention.head_count"));
    Map<String, long[]> info = new HashMap<>();
    for (long i = 0; i < tensors; i++) {
      String name = str(b);
      int dims = b.getInt();
      long[] ne = new long[dims];
      for (int d = 0; d < dims; d++) {
        ne[d] = b.getLong();
      }
      int type = b.getInt();
      long offset = b.getLong();
      assertEquals(0, offset % 32, name);
      info.put(name, new long[] {type, offset, ne[0], dims > 1 ? ne[1] : 1});
    }
    int dataStart = (b.position() + 31) / 32 * 32;
    // attn_q of layer 0: F16, [rows = heads * hd, cols = hidden], rows permuted per head.
    long[] q = info.get("blk.0.attn_q.weight");
    assertEquals(1, q[0]);
    assertEquals(c.hiddenSize(), q[2]);
    int rows = (int) q[3];
    int cols = (int) q[2];
    int hd = c.headDim();
    try (SafeTensors st = SafeTensors.open(dir)) {
      FloatBuffer src = st.floats("model.layers.0.self_attn.q_proj.weight");
      for (int r = 0; r < rows; r++) {
        // The converter's permute: reshape(heads, 2, hd/2, cols).swapaxes(1, 2).
        int head = r / hd;
        int i = (r % hd) / 2;
        int j = r % 2;
        int from = head * hd + j * (hd / 2) + i;
        for (int k = 0; k < cols; k++) {
          int h = b.getShort(dataStart + (int) q[1] + 2 * (r * cols + k)) & 0xFFFF;
          assertEquals(src.get(from * cols + k), half(h), 0.0, "row " + r + " col " + k);
        }
      }
    }
    long[] norm = info.get("output_norm.weight");
    assertEquals(0, norm[0]);
  }

  private static String str(ByteBuffer b) {
    byte[] s = new byte[(int) b.getLong()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  private static Object value(ByteBuffer b, int type) {
    return switch (type) {
      case 4 -> (long) b.getInt();
      case 5 -> b.getInt();
      case 6 -> b.getFloat();
      case 7 -> b.get() != 0;
      case 8 -> str(b);
      case 9 -> {
        int et = b.getInt();
        Object[] xs = new Object[(int) b.getLong()];
        for (int i = 0; i < xs.length; i++) {
          xs[i] = value(b, et);
        }
        yield xs;
      }
      default -> throw new AssertionError("value type " + type);
    };
  }

  @Test
  void gbnfOfTheCharacterRegexKeepsControlCharactersOutOfClasses() {
    String g = GbnfPrinter.print("\"[\\w\\d\\s]{1,16}\",\\n(a|b)");
    assertEquals(
        "root ::= \"\\\"\" (([ 0-9A-Z_a-z] | \"\\t\" | \"\\n\" | \"\\U0000000B\" | \"\\U0000000C\" | \"\\r\")){1,16}"
            + " \"\\\",\\n\" (\"a\" | \"b\")\n",
        g);
  }
}
