package dev.leap.train.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.model.Rope;
import dev.leap.model.SafeTensors;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The Llama architecture as a differentiable full-sequence forward pass on DJL's engine, for
 * training: the same arithmetic as the runtime's {@code LlamaModel} (RMSNorm, rotate-half RoPE from
 * {@link Rope#table}, grouped-query attention, SwiGLU, tied embeddings), but over whole padded
 * sequences {@code [batch, length]} with a causal mask instead of a KV pool, and with every weight
 * a parameter that collects gradients.
 *
 * <p>Parameters are held fused as the runtime fuses them at load time (q/k/v in one matrix, gate/up
 * in one), in Hugging Face's {@code [out, in]} layout; {@link #save} splits them back into the
 * tensor names transformers uses. Only the rows asked for reach the vocabulary projection: a loss
 * over the answer tokens of a long document never projects the document's positions.
 *
 * <p>Supported configs: Llama without biases or q/k norms and with tied embeddings (what Leap
 * trains). Not thread-safe.
 */
public final class TrainableLlama implements AutoCloseable {
  private final ModelConfig config;
  private final NDManager manager;

  /** Fused parameters by name, in a fixed order (the optimizer and checkpoints rely on it). */
  private final LinkedHashMap<String, NDArray> params = new LinkedHashMap<>();

  private final NDArray ropeCos;
  private final NDArray ropeSin;

  private TrainableLlama(ModelConfig config, Device device) {
    if (config.qkvBias() || config.oBias() || config.qkNorm() || !config.tieWordEmbeddings()) {
      throw new IllegalArgumentException(
          "training supports Llama without biases or q/k norms, with tied embeddings");
    }
    this.config = config;
    this.manager = NDManager.newBaseManager(device);
    float[][] rope = Rope.table(config, config.maxPositionEmbeddings());
    int hd = config.headDim();
    this.ropeCos = manager.create(rope[0], new Shape(config.maxPositionEmbeddings(), hd));
    this.ropeSin = manager.create(rope[1], new Shape(config.maxPositionEmbeddings(), hd));
  }

  /**
   * A model with fresh weights from {@code seed}: normal with standard deviation {@code std}, the
   * output projections of attention and MLP scaled by {@code 1/sqrt(2 * layers)} (GPT-2's residual
   * scaling), norm weights one.
   */
  public static TrainableLlama initialize(
      ModelConfig config, Device device, long seed, double std) {
    TrainableLlama m = new TrainableLlama(config, device);
    SplittableRandom rnd = new SplittableRandom(seed);
    double residual = std / Math.sqrt(2.0 * config.numLayers());
    for (Map.Entry<String, long[]> e : fusedShapes(config).entrySet()) {
      String name = e.getKey();
      long[] shape = e.getValue();
      float[] v = new float[(int) count(shape)];
      if (name.endsWith("norm")) {
        Arrays.fill(v, 1f);
      } else {
        double s = name.endsWith(".o") || name.endsWith(".down") ? residual : std;
        for (int i = 0; i < v.length; i++) {
          v[i] = (float) (rnd.nextGaussian() * s);
        }
      }
      m.put(name, v, shape);
    }
    return m;
  }

  /**
   * A model with the given fused parameter values (a checkpoint), by the names of {@link
   * #parameters}.
   */
  public static TrainableLlama fromValues(
      ModelConfig config, Device device, Map<String, float[]> values) {
    TrainableLlama m = new TrainableLlama(config, device);
    for (Map.Entry<String, long[]> e : fusedShapes(config).entrySet()) {
      float[] v = values.get(e.getKey());
      if (v == null || v.length != count(e.getValue())) {
        throw new IllegalArgumentException(
            "checkpoint tensor " + e.getKey() + " is missing or has the wrong size");
      }
      m.put(e.getKey(), v, e.getValue());
    }
    return m;
  }

  private void put(String name, float[] values, long[] shape) {
    NDArray a = manager.create(values, new Shape(shape));
    a.setRequiresGradient(true);
    params.put(name, a);
  }

  /**
   * The fused parameter values (the names of {@link #parameters}) of a Hugging Face directory that
   * {@link #save} wrote (any of its storage types, read as float32): the inverse of {@code save}'s
   * mapping, q/k/v and gate/up concatenated by rows.
   *
   * @throws IllegalArgumentException naming the directory: a tensor missing or of another size
   */
  public static Map<String, float[]> readValues(Path dir, ModelConfig c) {
    Map<String, float[]> out = new LinkedHashMap<>();
    try (SafeTensors st = SafeTensors.open(dir)) {
      out.put(
          "embed",
          tensor(st, dir, "model.embed_tokens.weight", (long) c.vocabSize() * c.hiddenSize()));
      int h = c.hiddenSize();
      long q = (long) c.numHeads() * c.headDim() * h;
      long kv = (long) c.numKvHeads() * c.headDim() * h;
      long ff = (long) c.intermediateSize() * h;
      for (int i = 0; i < c.numLayers(); i++) {
        String hf = "model.layers." + i + ".";
        String p = "layers." + i + ".";
        out.put(p + "input_norm", tensor(st, dir, hf + "input_layernorm.weight", h));
        out.put(
            p + "qkv",
            concat(
                tensor(st, dir, hf + "self_attn.q_proj.weight", q),
                tensor(st, dir, hf + "self_attn.k_proj.weight", kv),
                tensor(st, dir, hf + "self_attn.v_proj.weight", kv)));
        out.put(p + "o", tensor(st, dir, hf + "self_attn.o_proj.weight", q));
        out.put(p + "post_norm", tensor(st, dir, hf + "post_attention_layernorm.weight", h));
        out.put(
            p + "gate_up",
            concat(
                tensor(st, dir, hf + "mlp.gate_proj.weight", ff),
                tensor(st, dir, hf + "mlp.up_proj.weight", ff)));
        out.put(p + "down", tensor(st, dir, hf + "mlp.down_proj.weight", ff));
      }
      out.put("final_norm", tensor(st, dir, "model.norm.weight", h));
    }
    // Same order as fusedShapes.
    Map<String, float[]> ordered = new LinkedHashMap<>();
    for (String name : fusedShapes(c).keySet()) {
      ordered.put(name, out.get(name));
    }
    return ordered;
  }

  private static float[] tensor(SafeTensors st, Path dir, String name, long count) {
    if (!st.has(name)) {
      throw new IllegalArgumentException("model directory " + dir + " has no tensor " + name);
    }
    FloatBuffer b = st.floats(name);
    if (b.remaining() != count) {
      throw new IllegalArgumentException(
          "model directory "
              + dir
              + ": tensor "
              + name
              + " has "
              + b.remaining()
              + " values, its config.json implies "
              + count);
    }
    float[] v = new float[b.remaining()];
    b.get(v);
    return v;
  }

  private static float[] concat(float[]... parts) {
    int n = 0;
    for (float[] p : parts) {
      n += p.length;
    }
    float[] out = new float[n];
    int at = 0;
    for (float[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /** Names and shapes of the fused parameters, in their fixed order. */
  public static LinkedHashMap<String, long[]> fusedShapes(ModelConfig c) {
    LinkedHashMap<String, long[]> s = new LinkedHashMap<>();
    int h = c.hiddenSize();
    int q = c.numHeads() * c.headDim();
    int kv = c.numKvHeads() * c.headDim();
    s.put("embed", new long[] {c.vocabSize(), h});
    for (int i = 0; i < c.numLayers(); i++) {
      String p = "layers." + i + ".";
      s.put(p + "input_norm", new long[] {h});
      s.put(p + "qkv", new long[] {q + 2L * kv, h});
      s.put(p + "o", new long[] {h, q});
      s.put(p + "post_norm", new long[] {h});
      s.put(p + "gate_up", new long[] {2L * c.intermediateSize(), h});
      s.put(p + "down", new long[] {h, c.intermediateSize()});
    }
    s.put("final_norm", new long[] {h});
    return s;
  }

  private static long count(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  public ModelConfig config() {
    return config;
  }

  /** The parameters by fused name, in their fixed order; each collects gradients. */
  public Map<String, NDArray> parameters() {
    return params;
  }

  /** Number of trained values. */
  public long parameterCount() {
    long n = 0;
    for (NDArray a : params.values()) {
      n += a.size();
    }
    return n;
  }

  /**
   * The final hidden states (before the final norm) of a padded batch: {@code ids} is {@code
   * [batch][length]}, every row the same length (pad at the end: causal attention keeps padding out
   * of the real positions). Returns {@code [batch * length, hidden]} attached to {@code scope}.
   */
  public NDArray hidden(NDManager scope, int[][] ids) {
    int b = ids.length;
    int t = ids[0].length;
    if (t > config.maxPositionEmbeddings()) {
      throw new IllegalArgumentException(
          "sequence of "
              + t
              + " tokens is beyond the context of "
              + config.maxPositionEmbeddings());
    }
    int n = b * t;
    long[] flat = new long[n];
    for (int i = 0; i < b; i++) {
      if (ids[i].length != t) {
        throw new IllegalArgumentException("rows of a batch must have one length (pad them)");
      }
      for (int j = 0; j < t; j++) {
        flat[i * t + j] = ids[i][j];
      }
    }
    int h = config.hiddenSize();
    int hd = config.headDim();
    int heads = config.numHeads();
    int kv = config.numKvHeads();
    int g = config.groups();
    int qDim = heads * hd;
    int kvDim = kv * hd;
    int inter = config.intermediateSize();
    float scale = (float) (1.0 / Math.sqrt(hd));
    // torch's embedding op (dense backward). Indexing the table with get("{}") instead leaves rows
    // of the gradient uninitialized now and then (NaN and inf seen in the rows of the batch's
    // tokens).
    NDArray idsArr = scope.create(flat);
    NDArray x =
        idsArr
            .getNDArrayInternal()
            .embedding(idsArr, params.get("embed"), SparseFormat.DENSE)
            .singletonOrThrow();
    x.attach(scope);
    NDArray cos = ropeCos.get(new NDIndex("0:" + t)).reshape(t, 1, hd);
    NDArray sin = ropeSin.get(new NDIndex("0:" + t)).reshape(t, 1, hd);
    cos.attach(scope);
    sin.attach(scope);
    NDArray[] masks = causalMasks(scope, t);
    for (int li = 0; li < config.numLayers(); li++) {
      String p = "layers." + li + ".";
      NDArray qkv = rmsNorm(scope, x, params.get(p + "input_norm")).matMul(wT(scope, p + "qkv"));
      NDArray q = qkv.get(new NDIndex(":, 0:" + qDim)).reshape(b, t, heads, hd);
      NDArray k = qkv.get(new NDIndex(":, " + qDim + ":" + (qDim + kvDim))).reshape(b, t, kv, hd);
      NDArray v = qkv.get(new NDIndex(":, " + (qDim + kvDim) + ":")).reshape(b, t, kv, hd);
      q = rope(q, cos, sin);
      k = rope(k, cos, sin);
      NDArray attn =
          attention(
                  q.mul(constant(scope, scale)).reshape(b, t, kv, g, hd).transpose(0, 2, 3, 1, 4),
                  k,
                  v,
                  masks)
              .transpose(0, 3, 1, 2, 4)
              .reshape(n, qDim);
      x = x.add(attn.matMul(wT(scope, p + "o")));
      NDArray gu = rmsNorm(scope, x, params.get(p + "post_norm")).matMul(wT(scope, p + "gate_up"));
      NDArray gate = gu.get(new NDIndex(":, 0:" + inter));
      NDArray up = gu.get(new NDIndex(":, " + inter + ":"));
      x = x.add(gate.mul(Activation.sigmoid(gate)).mul(up).matMul(wT(scope, p + "down")));
    }
    return x.reshape(n, h);
  }

  /** Logits {@code [rows.length, vocab]} for the given rows of {@link #hidden}'s output. */
  public NDArray logits(NDManager scope, NDArray hidden, long[] rows) {
    // Rows gathered with torch's embedding op, as the token embeddings are: its backward adds into
    // a zeroed gradient. Advanced indexing (get("{}")) left gradient rows uninitialized now and
    // then
    // for the embedding table, and resumed runs here went astray on a loaded machine.
    NDArray idx = scope.create(rows);
    NDArray sel =
        idx.getNDArrayInternal().embedding(idx, hidden, SparseFormat.DENSE).singletonOrThrow();
    sel.attach(scope);
    return rmsNorm(scope, sel, params.get("final_norm")).matMul(wT(scope, "embed"));
  }

  /**
   * The negative log-likelihoods {@code [rows.length]} of {@code targets[i]} at flat row {@code
   * rows[i]} (row {@code r} of batch entry {@code r / length} at position {@code r % length}
   * predicts the token after it), attached to {@code scope}.
   */
  public NDArray nll(NDManager scope, int[][] ids, long[] rows, long[] targets) {
    NDArray logits = logits(scope, hidden(scope, ids), rows);
    NDArray idx = scope.create(targets).reshape(targets.length, 1);
    return logits.logSoftmax(-1).gather(idx, 1).reshape(targets.length).neg();
  }

  /** The sum of {@link #nll}: a scalar attached to {@code scope}. */
  public NDArray loss(NDManager scope, int[][] ids, long[] rows, long[] targets) {
    return nll(scope, ids, rows, targets).sum();
  }

  /** A parameter transposed to {@code [in, out]}, as a view attached to {@code scope}. */
  private NDArray wT(NDManager scope, String name) {
    NDArray t = params.get(name).transpose();
    t.attach(scope);
    return t;
  }

  /**
   * Causal attention by query blocks of {@link #BLOCK} rows: block {@code [s, e)} attends to keys
   * {@code [0, e)} only, so the masked upper triangle is never computed (about half the work of a
   * full {@code t x t} product for long sequences) and no temporary exceeds {@code BLOCK x t}
   * scores per head. {@code qg} is {@code [b, kv, g, t, hd]} (already scaled), {@code k} and {@code
   * v} {@code [b, t, kv, hd]}; returns {@code [b, kv, g, t, hd]}.
   */
  private static NDArray attention(NDArray qg, NDArray k, NDArray v, NDArray[] masks) {
    long t = k.getShape().get(1);
    NDArray kt = k.transpose(0, 2, 3, 1).expandDims(2); // [b, kv, 1, hd, t]
    NDArray vv = v.transpose(0, 2, 1, 3).expandDims(2); // [b, kv, 1, t, hd]
    if (masks.length == 1) {
      return qg.matMul(kt).add(masks[0]).softmax(-1).matMul(vv);
    }
    NDList outs = new NDList(masks.length);
    for (int i = 0; i < masks.length; i++) {
      long s = (long) i * BLOCK;
      long e = Math.min(t, s + BLOCK);
      NDArray qb = qg.get(new NDIndex(":, :, :, " + s + ":" + e));
      NDArray kb = kt.get(new NDIndex("..., 0:" + e));
      NDArray vb = vv.get(new NDIndex(":, :, :, 0:" + e));
      outs.add(qb.matMul(kb).add(masks[i]).softmax(-1).matMul(vb));
    }
    return NDArrays.concat(outs, 3);
  }

  /** Rows of causal attention per query block. */
  static final int BLOCK = 256;

  /**
   * Per query block {@code [s, e)}: the additive mask {@code [e - s, e]} (minus infinity after the
   * query).
   */
  private static NDArray[] causalMasks(NDManager scope, int t) {
    int blocks = (t + BLOCK - 1) / BLOCK;
    NDArray[] masks = new NDArray[blocks];
    for (int i = 0; i < blocks; i++) {
      int s = i * BLOCK;
      int e = Math.min(t, s + BLOCK);
      float[] m = new float[(e - s) * e];
      for (int r = 0; r < e - s; r++) {
        for (int c = s + r + 1; c < e; c++) {
          m[r * e + c] = Float.NEGATIVE_INFINITY;
        }
      }
      masks[i] = scope.create(m, new Shape(e - s, e));
    }
    return masks;
  }

  private NDArray rmsNorm(NDManager scope, NDArray x, NDArray weight) {
    NDArray var = x.square().mean(new int[] {-1}, true);
    return x.mul(var.add((float) config.rmsNormEps()).pow(constant(scope, -0.5f))).mul(weight);
  }

  /**
   * A scalar operand that autograd may save for the backward pass, alive until {@code scope}
   * closes. Never {@code a.mul(2f)} or {@code a.pow(-0.5f)} on the recorded path: DJL makes such a
   * number a tensor over a direct buffer on the CPU and closes it as soon as the op returns, but
   * the op's backward keeps reading it (a product's gradient is the other factor), so a garbage
   * collection between the forward and the backward pass frees memory the backward pass still reads
   * (seen: resumed and straight runs apart by up to 0.02 when the collector ran, gradients with NaN
   * and inf).
   */
  private static NDArray constant(NDManager scope, float value) {
    return scope.create(value);
  }

  private static NDArray rope(NDArray x, NDArray cos, NDArray sin) {
    long half = x.getShape().get(3) / 2;
    NDArray x1 = x.get(new NDIndex("..., 0:" + half));
    NDArray x2 = x.get(new NDIndex("..., " + half + ":"));
    return x.mul(cos).add(x2.neg().concat(x1, -1).mul(sin));
  }

  /** The current values of every parameter, by fused name. */
  public Map<String, float[]> values() {
    Map<String, float[]> out = new LinkedHashMap<>();
    for (Map.Entry<String, NDArray> e : params.entrySet()) {
      out.put(e.getKey(), e.getValue().toFloatArray());
    }
    return out;
  }

  /**
   * Writes the model as a Hugging Face directory ({@code config.json}, {@code
   * generation_config.json}, {@code model.safetensors} with transformers' tensor names, stored as
   * {@code type}); the tokenizer is the caller's to add.
   */
  public void save(Path dir, HfModelWriter.StorageType type, int... eosIds) throws IOException {
    ModelConfig c = config;
    // writeConfig sets torch_dtype from the storage type.
    HfModelWriter.writeConfig(dir, c, type, eosIds);
    Map<String, float[]> v = values();
    int hd = c.headDim();
    int h = c.hiddenSize();
    int qRows = c.numHeads() * hd;
    int kvRows = c.numKvHeads() * hd;
    int inter = c.intermediateSize();
    HfModelWriter.writeSafetensors(
        dir.resolve("model.safetensors"),
        HfModelWriter.tensorShapes(c),
        type,
        (name, count, sink) -> {
          float[] src;
          int from;
          if (name.equals("model.embed_tokens.weight")) {
            src = v.get("embed");
            from = 0;
          } else if (name.equals("model.norm.weight")) {
            src = v.get("final_norm");
            from = 0;
          } else {
            String[] parts = name.split("\\.");
            String p = "layers." + parts[2] + ".";
            String rest = name.substring(("model.layers." + parts[2] + ".").length());
            switch (rest) {
              case "input_layernorm.weight" -> {
                src = v.get(p + "input_norm");
                from = 0;
              }
              case "post_attention_layernorm.weight" -> {
                src = v.get(p + "post_norm");
                from = 0;
              }
              case "self_attn.q_proj.weight" -> {
                src = v.get(p + "qkv");
                from = 0;
              }
              case "self_attn.k_proj.weight" -> {
                src = v.get(p + "qkv");
                from = qRows * h;
              }
              case "self_attn.v_proj.weight" -> {
                src = v.get(p + "qkv");
                from = (qRows + kvRows) * h;
              }
              case "self_attn.o_proj.weight" -> {
                src = v.get(p + "o");
                from = 0;
              }
              case "mlp.gate_proj.weight" -> {
                src = v.get(p + "gate_up");
                from = 0;
              }
              case "mlp.up_proj.weight" -> {
                src = v.get(p + "gate_up");
                from = inter * h;
              }
              case "mlp.down_proj.weight" -> {
                src = v.get(p + "down");
                from = 0;
              }
              default -> throw new IllegalStateException("no trained parameter for " + name);
            }
          }
          for (long i = 0; i < count; i++) {
            sink.accept(src[(int) (from + i)]);
          }
        });
  }

  /** The device the parameters live on. */
  public Device device() {
    return manager.getDevice();
  }

  /** A child manager for one step's temporaries, on the model's device. */
  public NDManager newScope() {
    return manager.newSubManager();
  }

  @Override
  public void close() {
    manager.close();
  }
}
