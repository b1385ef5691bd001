package dev.leap.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Llama-family decoder (Llama 2/3, Mistral, Qwen2/2.5, Qwen3, SmolLM) on DJL's engine, on one
 * device: RMSNorm, RoPE (default or {@code llama3} scaling), grouped-query attention over a
 * slot-indexed {@link KvPool}, SwiGLU, tied or untied embeddings.
 *
 * <p>One {@link #forward} runs a batch of sequences of different lengths: decode steps of one token
 * beside multi-token extensions (a prompt, or the tokens of a jump). Per-token work (projections,
 * MLP, norms) runs on the flattened new tokens without padding; attention groups the sequences by
 * how many new tokens they have (single-token decodes together, short extensions together, long
 * prefills alone), gathers each sequence's K/V from the pool by slot id, and masks causally. q/k/v
 * and gate/up weights are fused at load time; the final norm and the vocabulary projection run only
 * for the rows whose logits are asked for.
 *
 * <p>Dtype ({@link Precision}): weights, activations and the KV pool in the compute dtype (the
 * checkpoint's by default: the demo model computes in float16); RMSNorm statistics, attention
 * scores, mask and softmax, and the returned logits in float32, as transformers keeps them.
 *
 * <p>Memory: weights and the pool live in the model's manager; everything a forward pass makes is
 * attached to the manager the caller passes (close it after reading the logits). Not thread-safe:
 * one thread runs forward passes.
 */
public final class LlamaModel implements AutoCloseable {
  /**
   * Sequences with more new tokens than this get their own attention call (no padding of others).
   */
  static final int SHORT_EXTEND = 64;

  /**
   * One sequence's share of a batched forward pass.
   *
   * @param tokens the new tokens, at positions {@code startPosition...}
   * @param startPosition how many tokens the sequence already has K/V for
   * @param contextSlots their slots: the first {@code startPosition} entries are read (the array
   *     may be longer, so a caller can pass a growing list's backing array without copying it)
   * @param newSlots the slots the new tokens' K/V go to
   * @param allLogits logits for every new token, not only the last
   */
  public record SequenceInput(
      int[] tokens, int startPosition, int[] contextSlots, int[] newSlots, boolean allLogits) {
    public SequenceInput {
      if (tokens.length == 0) {
        throw new IllegalArgumentException("a sequence needs at least one new token");
      }
      if (newSlots.length != tokens.length) {
        throw new IllegalArgumentException(
            tokens.length + " new tokens but " + newSlots.length + " new slots");
      }
      if (contextSlots.length < startPosition) {
        throw new IllegalArgumentException(
            "start position "
                + startPosition
                + " but only "
                + contextSlots.length
                + " context slots");
      }
    }
  }

  private final ModelConfig config;
  private final Device device;
  private final NDManager manager;
  private final KvPool pool;
  private final NDArray embed;

  /** The vocabulary projection's rows {@code [vocab, hidden]} (the embedding when tied). */
  private final NDArray head;

  private final NDArray lmHeadT;

  /** {@link #lmHeadT} in float32 when {@link #wideCopies}, else null. */
  private final NDArray lmHeadTWide;

  private final NDArray finalNorm;
  private final LayerWeights[] layers;
  private final NDArray ropeCos;
  private final NDArray ropeSin;
  private final Precision precision;
  private final DataType dtype;

  /** The computation is not in float32: norms and softmax cast to float32 and back. */
  private final boolean narrow;

  /**
   * Narrow weights on the CPU: a product with at least {@link #WIDE_ROWS} rows runs in float32 (see
   * {@link #linear}).
   */
  private final boolean widenWideProducts;

  /**
   * {@code [headDim, headDim]}: {@code x.matMul(rotateHalf)} is {@code [-x2, x1]}, RoPE's
   * rotate-half in one op.
   */
  private final NDArray rotateHalf;

  /**
   * Float32 copies of the products' weights kept beside the narrow ones (CPU only, {@link
   * CpuF32Weights}): products of {@link #WIDE_ROWS} rows or more read them instead of casting the
   * narrow weight each pass.
   */
  private final boolean wideCopies;

  /**
   * Scalars as 0-d float32 tensors made once: DJL makes a tensor for every scalar operand (a {@code
   * x.add(1e-5f)} costs about 4 times a tensor op's host time), and a pass has 22 of them.
   */
  private final NDArray epsScalar;

  private final NDArray rsqrtPower;
  private final NDArray scoreScale;

  /**
   * The decode step as one TorchScript call ({@link FusedDecode}); null where the model's layers do
   * not fit its script (biases on some layers only).
   */
  private final FusedDecode fused;

  /** Whether decode steps run {@link #fused} (see {@link #setFusedDecode}). */
  private volatile boolean fusedDecode = true;

  /**
   * Constrained steps whose allowed tokens are at most this many compute only those logits (0:
   * never).
   */
  private volatile int sparseLogitsLimit = DEFAULT_SPARSE_LOGITS_LIMIT;

  /**
   * Allowed tokens up to which a constrained step computes only their logits ({@link
   * #logits(NDArray, NDArray)}) instead of the whole vocabulary's. Measured on the demo model (F16,
   * CPU, batch 1): gathering k rows of the projection costs about 0.2 µs per row and the product
   * over all 50,257 rows 1.3-3 ms, so a gathered set pays below about 5,000 rows (a cached one
   * always).
   */
  public static final int DEFAULT_SPARSE_LOGITS_LIMIT = 4096;

  /**
   * Whether to keep float32 copies of the weights beside float16/bfloat16 ones on the CPU, where
   * PyTorch has no fast narrow GEMM: {@code AUTO} keeps them when the copies (twice the narrow
   * weights' bytes) fit in a quarter of the free physical memory; {@code ON} always (on the CPU);
   * {@code OFF} never (products of 8+ rows then cast the weight every pass).
   */
  public enum CpuF32Weights {
    AUTO,
    ON,
    OFF;

    /** {@code auto}, {@code on} or {@code off}. */
    public static CpuF32Weights parse(String s) {
      return switch (s == null ? "auto" : s.toLowerCase(Locale.ROOT)) {
        case "auto" -> AUTO;
        case "on", "true" -> ON;
        case "off", "false" -> OFF;
        default ->
            throw new IllegalArgumentException(
                "CPU float32 weight copies must be auto, on or off, got '" + s + "'");
      };
    }
  }

  /**
   * Rows from which a narrow product with a layer weight is computed in float32 on the CPU: PyTorch
   * has no fast float16 GEMM on CPUs without native float16 arithmetic (on this project's AVX-512
   * EPYC a float16 product costs about one GEMV per row: [64 x 256] x [256 x 1536] takes 2.4 ms in
   * float16, 0.55 ms cast to float32 and back), while its float16 GEMV is the fastest way through a
   * large weight (the vocabulary projection at one row: 1.4-2.5 ms against 5-8 ms in float32).
   * Measured crossover for the layer weights: about 8 rows.
   */
  static final int WIDE_ROWS = 8;

  /**
   * The same for the vocabulary projection, whose cast to float32 costs more than a layer's (50,257
   * x 256: about 50 ms, as much as 20 float16 rows): measured crossover about 32 rows.
   */
  static final int WIDE_ROWS_VOCAB = 32;

  private LlamaModel(
      ModelConfig config,
      Device device,
      NDManager manager,
      SafeTensors st,
      int kvCapacity,
      Precision precision,
      CpuF32Weights f32Weights) {
    this.config = config;
    this.device = device;
    this.manager = manager;
    this.precision = precision;
    this.dtype = precision.dataType();
    this.narrow = precision != Precision.F32;
    this.widenWideProducts = narrow && !device.isGpu();
    WeightReader weights = new WeightReader(st, manager, precision);
    int h = config.hiddenSize();
    int hd = config.headDim();
    this.embed = weights.tensor("model.embed_tokens.weight", config.vocabSize(), h);
    NDArray head =
        config.tieWordEmbeddings() || !st.has("lm_head.weight")
            ? embed
            : weights.tensor("lm_head.weight", config.vocabSize(), h);
    if (!config.tieWordEmbeddings() && !st.has("lm_head.weight")) {
      throw new IllegalArgumentException(
          "tensor lm_head.weight is missing and tie_word_embeddings is false");
    }
    this.head = head;
    this.lmHeadT = head.transpose();
    this.finalNorm = weights.tensor("model.norm.weight", h);
    this.layers = new LayerWeights[config.numLayers()];
    for (int i = 0; i < layers.length; i++) {
      layers[i] = LayerWeights.read(weights, config, i);
    }
    float[][] rope = Rope.table(config, config.maxPositionEmbeddings());
    // Computed in float32 and cast once, as transformers casts cos/sin to the activations' dtype.
    this.ropeCos =
        weights.cast(manager.create(rope[0], new Shape(config.maxPositionEmbeddings(), hd)));
    this.ropeSin =
        weights.cast(manager.create(rope[1], new Shape(config.maxPositionEmbeddings(), hd)));
    float[] rot = new float[hd * hd];
    for (int i = 0; i < hd / 2; i++) {
      rot[(i + hd / 2) * hd + i] = -1; // out[i] = -x[i + half]
      rot[i * hd + i + hd / 2] = 1; // out[i + half] = x[i]
    }
    this.rotateHalf = weights.cast(manager.create(rot, new Shape(hd, hd)));
    this.pool =
        new KvPool(manager, config.numLayers(), kvCapacity, config.numKvHeads(), hd, precision);
    this.epsScalar = manager.create((float) config.rmsNormEps());
    this.rsqrtPower = manager.create(-0.5f);
    this.scoreScale = manager.create((float) (1.0 / Math.sqrt(hd)));
    this.wideCopies =
        widenWideProducts
            && switch (f32Weights) {
              case ON -> true;
              case OFF -> false;
              case AUTO -> 2 * narrowWeightBytes() <= freePhysicalBytes() / 4;
            };
    if (wideCopies) {
      for (LayerWeights l : layers) {
        l.addF32Copies();
      }
      this.lmHeadTWide = lmHeadT.toType(DataType.FLOAT32, false);
    } else {
      this.lmHeadTWide = null;
    }
    this.fused = fusedDecode(manager);
  }

  private FusedDecode fusedDecode(NDManager manager) {
    List<NDArray> norms = new ArrayList<>();
    List<NDArray> products = new ArrayList<>();
    List<NDArray> wides = new ArrayList<>();
    List<NDArray> qkvBias = new ArrayList<>();
    List<NDArray> oBias = new ArrayList<>();
    List<NDArray> qkNorms = new ArrayList<>();
    for (LayerWeights l : layers) {
      norms.add(l.inputNorm);
      norms.add(l.postNorm);
      products.addAll(List.of(l.qkvT, l.oT, l.gateUpT, l.downT));
      if (wideCopies) {
        wides.addAll(List.of(l.qkvTWide, l.oTWide, l.gateUpTWide, l.downTWide));
      }
      if (l.qkvBias != null) {
        qkvBias.add(l.qkvBias);
      }
      if (l.oBias != null) {
        oBias.add(l.oBias);
      }
      if (l.qNorm != null) {
        qkNorms.add(l.qNorm);
        qkNorms.add(l.kNorm);
      }
    }
    norms.add(finalNorm);
    int n = layers.length;
    if ((!qkvBias.isEmpty() && qkvBias.size() != n)
        || (!oBias.isEmpty() && oBias.size() != n)
        || (!qkNorms.isEmpty() && qkNorms.size() != 2 * n)) {
      return null; // the script takes each of these for every layer or none
    }
    try {
      return new FusedDecode(
          manager,
          embed,
          ropeCos,
          ropeSin,
          rotateHalf,
          norms,
          products,
          wides,
          qkvBias,
          oBias,
          qkNorms,
          pool,
          epsScalar,
          rsqrtPower,
          scoreScale,
          config,
          narrow,
          widenWideProducts);
    } catch (RuntimeException | LinkageError e) {
      // an engine other than DJL's PyTorch (no TorchScript): every step runs as DJL ops
      return null;
    }
  }

  /** Bytes of the products' narrow weights (what float32 copies double). */
  private long narrowWeightBytes() {
    long elems = lmHeadT.size();
    for (LayerWeights l : layers) {
      elems += l.productElements();
    }
    return elems * precision.width();
  }

  private static long freePhysicalBytes() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean sun) {
      return sun.getFreeMemorySize();
    }
    return 0;
  }

  /**
   * Loads a Hugging Face model directory onto {@code device} with a KV pool of {@code kvCapacity}
   * slots.
   */
  public static LlamaModel load(Path dir, Device device, int kvCapacity) {
    return load(dir, device, kvCapacity, "auto");
  }

  /**
   * Loads a Hugging Face model directory onto {@code device} computing in {@code dtype} ({@code
   * auto} = the checkpoint's, see {@link Precision#resolve}).
   */
  public static LlamaModel load(Path dir, Device device, int kvCapacity, String dtype) {
    return load(dir, device, kvCapacity, dtype, CpuF32Weights.AUTO);
  }

  /**
   * Loads a Hugging Face model directory onto {@code device} computing in {@code dtype}, with or
   * without float32 copies of narrow weights on the CPU ({@link CpuF32Weights}).
   */
  public static LlamaModel load(
      Path dir, Device device, int kvCapacity, String dtype, CpuF32Weights f32Weights) {
    if (kvCapacity < 1) {
      throw new IllegalArgumentException("KV capacity must be >= 1 slot, got " + kvCapacity);
    }
    ModelConfig config = ModelConfig.load(dir);
    try (SafeTensors st = SafeTensors.open(dir)) {
      Precision precision = Precision.resolve(dtype, st.mainDtype(), device);
      NDManager manager = NDManager.newBaseManager(device);
      try {
        return new LlamaModel(config, device, manager, st, kvCapacity, precision, f32Weights);
      } catch (RuntimeException e) {
        manager.close();
        throw e;
      }
    }
  }

  public ModelConfig config() {
    return config;
  }

  public Device device() {
    return device;
  }

  /** The compute dtype of weights, activations and the KV pool. */
  public Precision precision() {
    return precision;
  }

  public KvPool pool() {
    return pool;
  }

  /**
   * Whether float32 copies of the narrow weights are kept for wide products on the CPU ({@link
   * CpuF32Weights}).
   */
  public boolean hasF32WeightCopies() {
    return wideCopies;
  }

  /**
   * Constrained steps whose rows allow at most this many tokens altogether compute only those
   * tokens' logits; 0 turns that off. Default {@value #DEFAULT_SPARSE_LOGITS_LIMIT}.
   */
  public int sparseLogitsLimit() {
    return sparseLogitsLimit;
  }

  /** See {@link #sparseLogitsLimit()}. */
  public void setSparseLogitsLimit(int tokens) {
    if (tokens < 0) {
      throw new IllegalArgumentException("the sparse logits limit must be >= 0, got " + tokens);
    }
    this.sparseLogitsLimit = tokens;
  }

  /** Whether decode steps can run as one TorchScript call ({@link FusedDecode}). */
  public boolean hasFusedDecode() {
    return fused != null;
  }

  /** Whether decode steps run as one TorchScript call when they can; default true. */
  public boolean fusedDecode() {
    return fusedDecode && fused != null;
  }

  /**
   * Turns the fused decode step on or off (off: every step runs as DJL ops; the two give the same
   * hidden states).
   */
  public void setFusedDecode(boolean on) {
    this.fusedDecode = on;
  }

  /** The manager that owns weights and the pool (a parent for long-lived arrays such as masks). */
  public NDManager manager() {
    return manager;
  }

  /**
   * Runs the new tokens of every sequence through the model, writes their K/V into the pool at
   * their new slots, and returns the logits {@code [rows, vocab]} (float32 whatever the compute
   * dtype, on the device, attached to {@code step}) for the last new token of each sequence, or for
   * all its new tokens when {@code allLogits}, in batch order.
   */
  public NDArray forward(NDManager step, List<SequenceInput> batch) {
    return logits(hidden(step, batch));
  }

  /**
   * The forward pass up to the vocabulary projection: the final-normed hidden states {@code [rows,
   * hidden]} (compute dtype, attached to {@code step}) of the rows {@link #forward} would return
   * logits for, in the same order. {@link #logits(NDArray)} or {@link #logits(NDArray, NDArray)}
   * finish it.
   */
  public NDArray hidden(NDManager step, List<SequenceInput> batch) {
    int b = batch.size();
    int n = 0;
    for (SequenceInput s : batch) {
      n += s.tokens().length;
      if (s.startPosition() + s.tokens().length > config.maxPositionEmbeddings()) {
        throw new IllegalArgumentException(
            "position "
                + (s.startPosition() + s.tokens().length - 1)
                + " is beyond the model's context (max_position_embeddings "
                + config.maxPositionEmbeddings()
                + ")");
      }
    }
    long[] ids = new long[n];
    long[] positions = new long[n];
    long[] slots = new long[n];
    int[] offset = new int[b];
    int r = 0;
    for (int i = 0; i < b; i++) {
      SequenceInput s = batch.get(i);
      offset[i] = r;
      for (int t = 0; t < s.tokens().length; t++) {
        int id = s.tokens()[t];
        if (id < 0 || id >= config.vocabSize()) {
          throw new IllegalArgumentException(
              "token id " + id + " is outside the vocabulary 0.." + (config.vocabSize() - 1));
        }
        ids[r] = id;
        positions[r] = s.startPosition() + t;
        slots[r] = s.newSlots()[t];
        r++;
      }
    }
    int hd = config.headDim();
    NDArray idsArr = step.create(ids);
    NDArray posArr = step.create(positions);
    NDArray slotArr = step.create(slots);
    AttentionGroup.Plan groups = AttentionGroup.plan(batch, offset, n, step);
    if ((n == b || (b == 1 && n <= SHORT_EXTEND))
        && groups.inOrder()
        && fusedDecode
        && fused != null) {
      // decode steps (one new token each) or a lone short extension (a jump): one in-order group;
      // long prefills stay DJL ops (their time is the products; not measured to gain)
      AttentionGroup grp = groups.groups().get(0);
      boolean lastOnly = b == 1 && n > 1 && !batch.get(0).allLogits();
      return fused.step(step, idsArr, posArr, slotArr, grp.contextSlots(), grp.mask(), b, lastOnly);
    }
    NDArray x = own(step, embed.get(new NDIndex("{}", idsArr)));
    NDArray cos = own(step, ropeCos.get(new NDIndex("{}", posArr))).reshape(n, 1, hd);
    NDArray sin = own(step, ropeSin.get(new NDIndex("{}", posArr))).reshape(n, 1, hd);
    NDIndex slotIndex = new NDIndex("{}", slotArr); // built once, used by every layer
    for (int li = 0; li < layers.length; li++) {
      // Each layer's temporaries (attention scores above all: [heads, new, context] floats) live in
      // their own scope, closed when the layer is done: a pass holds one layer's, not every
      // layer's.
      try (NDManager layerScope = step.newSubManager()) {
        x.attach(layerScope); // the layer's input goes with its scope; ops on it allocate there
        x = layer(layerScope, li, x, cos, sin, slotIndex, groups, n);
        x.attach(step);
      }
    }
    // Logits only for the rows asked for.
    int rows = 0;
    for (SequenceInput s : batch) {
      rows += s.allLogits() ? s.tokens().length : 1;
    }
    NDArray sel = x;
    if (rows != n) {
      long[] pick = new long[rows];
      int p = 0;
      for (int i = 0; i < b; i++) {
        SequenceInput s = batch.get(i);
        if (s.allLogits()) {
          for (int t = 0; t < s.tokens().length; t++) {
            pick[p++] = offset[i] + t;
          }
        } else {
          pick[p++] = offset[i] + s.tokens().length - 1;
        }
      }
      sel = x.get(new NDIndex("{}", step.create(pick)));
    }
    return rmsNorm(sel, finalNorm);
  }

  /**
   * The logits {@code [rows, vocab]} (float32) of {@link #hidden}'s rows over the whole vocabulary.
   */
  public NDArray logits(NDArray hidden) {
    long rows = hidden.getShape().get(0);
    NDArray logits =
        wideCopies
            ? linear(hidden, lmHeadT, lmHeadTWide, (int) rows, true)
            : linear(hidden, lmHeadT, null, rows >= WIDE_ROWS_VOCAB ? (int) rows : 0, true);
    return logits.getDataType() == DataType.FLOAT32
        ? logits
        : logits.toType(DataType.FLOAT32, false);
  }

  /**
   * The projection's rows of the tokens {@code ids} (ascending or not; each below the vocabulary
   * size), gathered on the device and transposed to {@code [hidden, k]}, attached to {@code owner}:
   * the second operand of {@link #logits(NDArray, NDArray)}, which a caller may keep for later
   * steps.
   */
  public NDArray headRows(NDManager owner, long[] ids) {
    NDArray idx = owner.create(ids);
    NDArray rows = own(owner, head.get(new NDIndex("{}", idx)));
    return rows.transpose();
  }

  /**
   * {@link #headRows} from the float32 copy of the projection ({@link CpuF32Weights}), for products
   * of {@link #WIDE_ROWS} rows or more; null without copies.
   */
  public NDArray headRowsWide(NDManager owner, long[] ids) {
    if (!wideCopies) {
      return null;
    }
    NDArray idx = owner.create(ids);
    NDArray rows = own(owner, lmHeadTWide.transpose().get(new NDIndex("{}", idx)));
    return rows.transpose();
  }

  /**
   * Whether a product of {@code rows} rows computes in float32 ({@link #headRowsWide} is then the
   * operand to pass).
   */
  public boolean widensProduct(int rows) {
    return widenWideProducts && rows >= WIDE_ROWS;
  }

  /**
   * The logits {@code [rows, k]} (float32) of {@link #hidden}'s rows for the {@code k} tokens whose
   * projection rows {@code headRows} ({@link #headRows}) holds, in that order: equal (up to the
   * products' rounding) to those columns of {@link #logits(NDArray)}. A constrained step whose
   * other tokens are masked to -inf samples the same token from these.
   */
  public NDArray logits(NDArray hidden, NDArray headRows) {
    return logits(hidden, headRows, null);
  }

  /**
   * {@link #logits(NDArray, NDArray)} with the float32 rows ({@link #headRowsWide}, or null) for a
   * widened product.
   */
  public NDArray logits(NDArray hidden, NDArray headRows, NDArray headRowsWide) {
    long rows = hidden.getShape().get(0);
    NDArray logits = linear(hidden, headRows, headRowsWide, (int) rows, true);
    return logits.getDataType() == DataType.FLOAT32
        ? logits
        : logits.toType(DataType.FLOAT32, false);
  }

  /**
   * One decoder layer on the flattened new tokens {@code x} [n, hidden]; its temporaries go to
   * {@code scope}. Ops per layer are kept few (each DJL op costs microseconds of host time, which
   * at batch 1 is most of a small model's step): q/k/v and gate/up come out of one product each and
   * are split as views, RoPE runs on q and k together with rotate-half as one product, and the pool
   * write reuses one index for every layer.
   */
  private NDArray layer(
      NDManager scope,
      int li,
      NDArray x,
      NDArray cos,
      NDArray sin,
      NDIndex slotIndex,
      AttentionGroup.Plan groups,
      int n) {
    int hd = config.headDim();
    int heads = config.numHeads();
    int kv = config.numKvHeads();
    LayerWeights l = layers[li];
    NDArray hN = rmsNorm(x, l.inputNorm);
    NDArray qkv = linear(hN, l.qkvT, l.qkvTWide, n, false);
    if (l.qkvBias != null) {
      qkv = qkv.add(l.qkvBias);
    }
    NDList qkAndV = qkv.split(new long[] {(long) (heads + kv) * hd}, 1);
    NDArray qk = qkAndV.get(0).reshape(n, heads + kv, hd);
    NDArray v = qkAndV.get(1).reshape(n, kv, hd);
    if (l.qNorm != null) {
      NDList parts = qk.split(new long[] {heads}, 1);
      qk = rmsNorm(parts.get(0), l.qNorm).concat(rmsNorm(parts.get(1), l.kNorm), 1);
    }
    qk = qk.mul(cos).add(qk.matMul(rotateHalf).mul(sin)); // x cos + rotate_half(x) sin
    NDList qAndK = qk.split(new long[] {heads}, 1);
    NDArray q = qAndK.get(0);
    pool.write(li, slotIndex, qAndK.get(1), v);
    NDArray attn = attention(scope, li, q, groups, n);
    NDArray o = linear(attn, l.oT, l.oTWide, n, false);
    if (l.oBias != null) {
      o = o.add(l.oBias);
    }
    x = x.add(o);
    NDArray h2 = rmsNorm(x, l.postNorm);
    NDList gu = linear(h2, l.gateUpT, l.gateUpTWide, n, false).split(2, 1);
    NDArray gate = gu.get(0);
    NDArray act = gate.mul(Activation.sigmoid(gate)).mul(gu.get(1));
    return x.add(linear(act, l.downT, l.downTWide, n, false));
  }

  /**
   * {@code x.matMul(w)} for {@code rows} rows of {@code x}; with narrow weights on the CPU and at
   * least {@link #WIDE_ROWS} rows, computed in float32 (the weight's float32 copy {@code wide} when
   * kept, else the weight cast for this pass; the result cast back). Without copies the vocabulary
   * projection passes 0 rows below {@link #WIDE_ROWS_VOCAB}. {@code floatOut}: a widened product's
   * result stays float32 (logits).
   */
  private NDArray linear(NDArray x, NDArray w, NDArray wide, int rows, boolean floatOut) {
    if (widenWideProducts && rows >= WIDE_ROWS) {
      // A cast belongs to its source's manager: the weight's cast would live as long as the model.
      NDArray w32 = wide != null ? wide : own(x.getManager(), w.toType(DataType.FLOAT32, false));
      NDArray y = x.toType(DataType.FLOAT32, false).matMul(w32);
      return floatOut ? y : y.toType(dtype, false);
    }
    return x.matMul(w);
  }

  /**
   * Attention for every group of the plan. A single dense group in batch order (every all-decode
   * batch, a lone prefill) reads q as it is; others gather their rows (padding reads a zero row). A
   * group whose mask is all zeros (equal context lengths, one token each) adds none. A one-token
   * group skips the transposes that order (sequence, new token) pairs. With narrow weights on the
   * CPU every group attends in float32 (q, K and V cast, the output cast back): PyTorch's float16
   * bmm has no fast CPU kernel here.
   */
  private NDArray attention(NDManager step, int layer, NDArray q, AttentionGroup.Plan plan, int n) {
    int hd = config.headDim();
    int heads = config.numHeads();
    int kv = config.numKvHeads();
    int g = config.groups();
    NDArray qExt = null;
    List<NDArray> outs = new ArrayList<>(plan.groups().size());
    for (AttentionGroup grp : plan.groups()) {
      int bs = grp.sequences();
      int t = grp.maxNew();
      int c = grp.maxContext();
      NDArray qRows;
      if (plan.inOrder()) {
        qRows = q;
      } else {
        if (qExt == null) {
          qExt =
              q.reshape(n, heads * hd)
                  .concat(step.zeros(new Shape(1, heads * hd), q.getDataType()), 0);
        }
        qRows = qExt.get(grp.rowIndex());
      }
      NDArray qg =
          t == 1
              ? qRows.reshape(bs, kv, g, hd)
              : qRows.reshape(bs, t, kv, g, hd).transpose(0, 2, 3, 1, 4).reshape(bs, kv, g * t, hd);
      NDArray kAll =
          own(step, pool.keys(layer).get(grp.contextIndex()))
              .reshape(bs, c, kv, hd)
              .transpose(0, 2, 3, 1);
      NDArray vAll =
          own(step, pool.values(layer).get(grp.contextIndex()))
              .reshape(bs, c, kv, hd)
              .transpose(0, 2, 1, 3);
      // float16 bmm is slow on the CPU (no native float16 arithmetic: q.k and p.v of one decode at
      // context 200 took 78-195 µs per layer in float16, 13 µs in float32)
      boolean wide = widenWideProducts;
      if (wide) {
        qg = qg.toType(DataType.FLOAT32, false);
        kAll = kAll.toType(DataType.FLOAT32, false);
        vAll = vAll.toType(DataType.FLOAT32, false);
      }
      NDArray scores;
      if (narrow && !wide) {
        // scale, mask and softmax in float32, as transformers does; the cast is this step's own:
        // scaled in place
        scores = qg.matMul(kAll).toType(DataType.FLOAT32, false).muli(scoreScale);
      } else {
        // float32 already: q scaled before the product ([rows, heads, headDim] instead of [heads,
        // rows, context])
        scores = qg.mul(scoreScale).matMul(kAll);
      }
      if (grp.mask() != null) {
        scores =
            scores.reshape(bs, kv, g, t, c).addi(grp.mask()); // in place: no second scores tensor
      }
      NDArray probs = scores.softmax(-1);
      if (narrow && !wide) {
        probs = probs.toType(dtype, false);
      }
      NDArray out = probs.reshape(bs, kv, g * t, c).matMul(vAll);
      out =
          t == 1
              ? out.reshape(bs, heads * hd)
              : out.reshape(bs, kv, g, t, hd).transpose(0, 3, 1, 2, 4).reshape(bs * t, heads * hd);
      if (wide) {
        out = out.toType(dtype, false);
      }
      outs.add(grp.isDense() ? out : out.get(grp.validIndex()));
    }
    NDArray all = outs.size() == 1 ? outs.get(0) : NDArrays.concat(new NDList(outs), 0);
    return plan.order() == null ? all : all.get(new NDIndex("{}", plan.order()));
  }

  /**
   * RMSNorm with its statistics in float32 (transformers' LlamaRMSNorm), the weight applied in the
   * compute dtype.
   */
  private NDArray rmsNorm(NDArray x, NDArray weight) {
    NDArray xf = narrow ? x.toType(DataType.FLOAT32, false) : x;
    NDArray var = xf.square().mean(new int[] {-1}, true);
    NDArray normed = xf.mul(var.add(epsScalar).pow(rsqrtPower));
    return (narrow ? normed.toType(dtype, false) : normed).mul(weight);
  }

  private static NDArray own(NDManager step, NDArray a) {
    a.attach(step);
    return a;
  }

  @Override
  public void close() {
    if (fused != null) {
      fused.close();
    }
    manager.close();
  }
}
