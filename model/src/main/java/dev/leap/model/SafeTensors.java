package dev.leap.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Reads tensors from {@code model.safetensors} or a sharded {@code model.safetensors.index.json}.
 *
 * <p>Format: an 8-byte little-endian header length, a JSON header (name to {@code dtype}, {@code
 * shape}, {@code data_offsets} relative to the data block), then the data. The header is read with
 * Jackson; each tensor's bytes are mapped with {@link FileChannel#map} on demand, so shards larger
 * than 2 GiB work and nothing is copied into one heap array. F32 is read as is; F16 and BF16 are
 * widened to float32 on the host ({@link #floats}), or F16 handed over as stored ({@link #halves})
 * when the model computes in F16.
 */
public final class SafeTensors implements AutoCloseable {

  /** A tensor's location. */
  record Entry(Path file, String dtype, long[] shape, long begin, long end) {}

  private final Path dir;
  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private final Map<Path, FileChannel> channels = new HashMap<>();

  private SafeTensors(Path dir) {
    this.dir = dir;
  }

  /** Opens the weights of a model directory. */
  public static SafeTensors open(Path dir) {
    SafeTensors st = new SafeTensors(dir);
    Path single = dir.resolve("model.safetensors");
    Path index = dir.resolve("model.safetensors.index.json");
    ObjectMapper m = Json.MAPPER;
    try {
      if (Files.exists(index)) {
        JsonNode map = m.readTree(index.toFile()).path("weight_map");
        if (!map.isObject()) {
          throw new IllegalArgumentException(index + ": weight_map is missing");
        }
        Set<String> shards = new LinkedHashSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
          shards.add(it.next().getValue().asText());
        }
        for (String shard : shards) {
          st.readHeader(dir.resolve(shard));
        }
      } else if (Files.exists(single)) {
        st.readHeader(single);
      } else {
        throw new IllegalArgumentException(
            "model directory "
                + dir
                + " has no weights: neither model.safetensors nor model.safetensors.index.json");
      }
    } catch (IOException e) {
      st.close();
      throw new IllegalArgumentException(
          "cannot read the weights in " + dir + ": " + e.getMessage());
    } catch (RuntimeException e) {
      st.close();
      throw e;
    }
    return st;
  }

  private void readHeader(Path file) throws IOException {
    FileChannel ch;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("weights file not found: " + file);
    }
    channels.put(file, ch);
    ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    if (ch.read(len, 0) != 8) {
      throw new IllegalArgumentException(
          file + " is not a safetensors file (shorter than 8 bytes)");
    }
    long n = len.getLong(0);
    if (n <= 0 || n > 100_000_000 || n + 8 > ch.size()) {
      throw new IllegalArgumentException(
          file + " is not a safetensors file (header length " + n + ")");
    }
    ByteBuffer header = ByteBuffer.allocate((int) n);
    ch.read(header, 8);
    JsonNode root = Json.MAPPER.readTree(header.array());
    long base = 8 + n;
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().equals("__metadata__")) {
        continue;
      }
      JsonNode t = e.getValue();
      JsonNode shapeNode = t.path("shape");
      long[] shape = new long[shapeNode.size()];
      for (int i = 0; i < shape.length; i++) {
        shape[i] = shapeNode.get(i).asLong();
      }
      JsonNode off = t.path("data_offsets");
      long begin = base + off.get(0).asLong();
      long end = base + off.get(1).asLong();
      if (end > ch.size() || begin > end) {
        throw new IllegalArgumentException(
            file + ": tensor " + e.getKey() + " lies outside the file");
      }
      entries.put(e.getKey(), new Entry(file, t.path("dtype").asText(), shape, begin, end));
    }
  }

  public boolean has(String name) {
    return entries.containsKey(name);
  }

  /** The tensor's shape; an error naming the tensor and the directory if it is absent. */
  public long[] shape(String name) {
    return entry(name).shape().clone();
  }

  private Entry entry(String name) {
    Entry e = entries.get(name);
    if (e == null) {
      throw new IllegalArgumentException(
          "tensor " + name + " is missing from the weights in " + dir);
    }
    return e;
  }

  /**
   * The tensor's stored dtype as safetensors names it ({@code F32}, {@code F16}, {@code BF16},
   * ...).
   */
  public String dtype(String name) {
    return entry(name).dtype();
  }

  /**
   * The dtype most tensors are stored in (by bytes), the checkpoint's dtype for {@code --dtype
   * auto}.
   */
  public String mainDtype() {
    Map<String, Long> bytes = new HashMap<>();
    for (Entry e : entries.values()) {
      bytes.merge(e.dtype(), e.end() - e.begin(), Long::sum);
    }
    String best = "F32";
    long most = -1;
    for (Map.Entry<String, Long> b : bytes.entrySet()) {
      if (b.getValue() > most) {
        most = b.getValue();
        best = b.getKey();
      }
    }
    return best;
  }

  /**
   * The tensor's stored bytes, checked against its dtype and shape, mapped read-only
   * (little-endian).
   */
  private ByteBuffer mapped(String name) {
    Entry e = entry(name);
    long count = 1;
    for (long d : e.shape()) {
      count *= d;
    }
    int width =
        switch (e.dtype()) {
          case "F32" -> 4;
          case "F16", "BF16" -> 2;
          default ->
              throw new IllegalArgumentException(
                  e.file()
                      + ": tensor "
                      + name
                      + " has dtype "
                      + e.dtype()
                      + "; Leap reads F32, F16 and BF16");
        };
    if ((e.end() - e.begin()) != count * width) {
      throw new IllegalArgumentException(
          e.file()
              + ": tensor "
              + name
              + " has "
              + (e.end() - e.begin())
              + " bytes, expected "
              + count * width
              + " for shape "
              + Arrays.toString(e.shape()));
    }
    try {
      return channels
          .get(e.file())
          .map(FileChannel.MapMode.READ_ONLY, e.begin(), e.end() - e.begin())
          .order(ByteOrder.LITTLE_ENDIAN);
    } catch (IOException ex) {
      throw new IllegalArgumentException(
          "cannot map tensor " + name + " of " + e.file() + ": " + ex.getMessage());
    }
  }

  /**
   * The tensor's stored bytes copied into a direct buffer in native order (as stored: no widening),
   * for a tensor created in its own dtype. Only for F16 (the one 2-byte type DJL creates from a
   * buffer on every device; see {@link Precision} on bfloat16).
   */
  public ByteBuffer halves(String name) {
    if (!dtype(name).equals("F16")) {
      throw new IllegalStateException("tensor " + name + " is " + dtype(name) + ", not F16");
    }
    ByteBuffer src = mapped(name);
    ByteBuffer out = ByteBuffer.allocateDirect(src.remaining()).order(ByteOrder.nativeOrder());
    if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
      out.put(src);
    } else {
      while (src.hasRemaining()) {
        out.putShort(src.getShort());
      }
    }
    out.flip();
    return out;
  }

  /** The tensor as float32 values in a direct little-endian buffer (row-major). */
  public FloatBuffer floats(String name) {
    Entry e = entry(name);
    ByteBuffer mapped = mapped(name);
    long count = mapped.remaining() / (e.dtype().equals("F32") ? 4 : 2);
    FloatBuffer out =
        ByteBuffer.allocateDirect((int) (count * 4)).order(ByteOrder.nativeOrder()).asFloatBuffer();
    switch (e.dtype()) {
      case "F32" -> out.put(mapped.asFloatBuffer());
      case "BF16" -> {
        for (long i = 0; i < count; i++) {
          out.put(Float.intBitsToFloat((mapped.getShort() & 0xFFFF) << 16));
        }
      }
      default -> {
        for (long i = 0; i < count; i++) {
          out.put(halfToFloat(mapped.getShort()));
        }
      }
    }
    out.flip();
    return out;
  }

  /** IEEE 754 binary16 to float. */
  static float halfToFloat(short h) {
    int bits = h & 0xFFFF;
    int sign = (bits & 0x8000) << 16;
    int exp = (bits >>> 10) & 0x1F;
    int mant = bits & 0x3FF;
    if (exp == 0) {
      if (mant == 0) {
        return Float.intBitsToFloat(sign);
      }
      float v = mant / 1024f / 16384f; // subnormal: mant * 2^-24
      return sign == 0 ? v : -v;
    }
    if (exp == 31) {
      return Float.intBitsToFloat(sign | 0x7F800000 | (mant << 13));
    }
    return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
  }

  @Override
  public void close() {
    for (FileChannel c : channels.values()) {
      try {
        c.close();
      } catch (IOException e) {
        // closing a read-only channel: nothing to lose
      }
    }
    channels.clear();
  }
}
