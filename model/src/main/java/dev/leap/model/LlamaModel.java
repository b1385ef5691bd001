package dev.leap.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
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

  /** The vocabulary projection (the embedding when tied). */
  private final VocabProjection vocab;

  /**
   * FBGEMM's float16 GEMM ({@link Fp16Gemm}) with the vocabulary projection and the layers'
   * products packed for it: float16 weights on the CPU where that kernel runs, else null.
   */
  private final Fp16Gemm gemm;

  /** Whether products run on {@link #gemm} (see {@link #setPackedProducts}). */
  private volatile boolean packedOn = true;

  private final NDArray finalNorm;
  private final LayerWeights[] layers;
  private final NDArray ropeCos;
  private final NDArray ropeSin;
  private final Precision precision;

  /** The computation is not in float32 (the fused step casts norm statistics). */
  private final boolean narrow;

  /** Which products run in float32 (narrow weights on the CPU), and the products themselves. */
  private final WideProducts products;

  /** A decoder layer and RMSNorm as DJL ops (the path of passes {@link #fused} does not run). */
  private final LayerOps layerOps;

  /**
   * {@code [headDim, headDim]}: {@code x.matMul(rotateHalf)} is {@code [-x2, x1]}, RoPE's
   * rotate-half in one op.
   */
  private final NDArray rotateHalf;

  /**
   * Float32 copies of the products' weights kept beside the narrow ones (CPU only, {@link
   * CpuF32Weights}): products of {@link WideProducts#WIDE_ROWS} rows or more read them instead of
   * casting the narrow weight each pass.
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

  /** Attention of the passes that do not run {@link #fused}. */
  private final PoolAttention attention;

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
    this.narrow = precision != Precision.F32;
    this.products = new WideProducts(precision, device);
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
    this.gemm = precision == Precision.F16 && !device.isGpu() ? Fp16Gemm.load(manager) : null;
    // with the packed products no product reads the copies: AUTO keeps none (ON still does)
    this.wideCopies =
        products.keepCopies(
            gemm != null && f32Weights == CpuF32Weights.AUTO ? CpuF32Weights.OFF : f32Weights,
            narrowWeightBytes(head));
    this.vocab = new VocabProjection(head, products, gemm, wideCopies);
    if (gemm != null) {
      for (LayerWeights l : layers) {
        l.pack(gemm);
      }
    }
    if (wideCopies) {
      for (LayerWeights l : layers) {
        l.addF32Copies();
      }
    }
    this.attention = new PoolAttention(config, pool, precision, products, scoreScale, manager);
    if (device.isGpu()) {
      attention.setFused(true);
    }
    this.layerOps =
        new LayerOps(
            config, pool, attention, products, gemm, rotateHalf, epsScalar, rsqrtPower, precision);
    this.fused =
        FusedDecode.forLayers(
            manager,
            embed,
            ropeCos,
            ropeSin,
            rotateHalf,
            layers,
            finalNorm,
            wideCopies,
            pool,
            epsScalar,
            rsqrtPower,
            scoreScale,
            config,
            narrow,
            products.widens(),
            gemm);
  }

  /** Bytes of the products' narrow weights (what float32 copies double). */
  private long narrowWeightBytes(NDArray head) {
    long elems = head.size();
    for (LayerWeights l : layers) {
      elems += l.productElements();
    }
    return elems * precision.width();
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

  /**
   * Whether the attention of passes outside {@link #fusedDecode} (prefills, long extensions, mixed
   * batches) runs as PyTorch's fused attention ({@code scaled_dot_product_attention}) instead of
   * DJL ops; the default on a GPU.
   */
  public boolean fusedAttention() {
    return attention.fused();
  }

  /**
   * Turns PyTorch's fused attention on or off (the two give the same outputs up to rounding);
   * returns whether it is on: false where this PyTorch cannot run it. Not while a pass runs.
   */
  public boolean setFusedAttention(boolean on) {
    return attention.setFused(on);
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

  /**
   * Whether products can run as FBGEMM's float16 GEMM ({@link Fp16Gemm}: float16 weights on a CPU
   * that kernel supports).
   */
  public boolean hasPackedProducts() {
    return gemm != null;
  }

  /**
   * Whether products run as FBGEMM's float16 GEMM when they can (default true): the vocabulary
   * projection (float32 logits) and the layers' products (rounded once to float16), at every row
   * count.
   */
  public boolean packedProducts() {
    return packedOn && gemm != null;
  }

  /**
   * Turns the packed products on or off (off: PyTorch's float16 products below {@link
   * WideProducts#WIDE_ROWS} rows, the vocabulary's below {@link WideProducts#WIDE_ROWS_VOCAB}, its
   * logits rounded to float16; from there float32 products from the weights' float32 copies, which
   * {@link CpuF32Weights#AUTO} does not keep beside packed products, or cast per pass).
   */
  public void setPackedProducts(boolean on) {
    this.packedOn = on;
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
    FlatBatch flat = FlatBatch.of(batch, config);
    int n = flat.rows();
    int hd = config.headDim();
    NDArray idsArr = step.create(flat.ids);
    NDArray posArr = step.create(flat.positions);
    NDArray slotArr = step.create(flat.slots);
    AttentionGroup.Plan groups = AttentionGroup.plan(batch, flat.offset, n, step);
    if ((n == b || (b == 1 && n <= SHORT_EXTEND))
        && groups.inOrder()
        && fusedDecode
        && fused != null) {
      // decode steps (one new token each) or a lone short extension (a jump): one in-order group;
      // long prefills stay DJL ops (their time is the products; not measured to gain)
      AttentionGroup grp = groups.groups().get(0);
      boolean lastOnly = b == 1 && n > 1 && !batch.get(0).allLogits();
      return fused.step(
          step,
          idsArr,
          posArr,
          slotArr,
          grp.contextSlots(),
          grp.mask(),
          b,
          lastOnly,
          packedProducts());
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
        x =
            layerOps.layer(
                layerScope, layers[li], li, x, cos, sin, slotIndex, groups, n, packedProducts());
        x.attach(step);
      }
    }
    // Logits only for the rows asked for.
    long[] pick = flat.logitRows(batch);
    NDArray sel = pick == null ? x : x.get(new NDIndex("{}", step.create(pick)));
    return layerOps.rmsNorm(sel, finalNorm);
  }

  /**
   * The logits {@code [rows, vocab]} (float32) of {@link #hidden}'s rows over the whole vocabulary.
   */
  public NDArray logits(NDArray hidden) {
    return vocab.logits(hidden, packedProducts());
  }

  /**
   * The projection's rows of the tokens {@code ids} (ascending or not; each below the vocabulary
   * size), gathered on the device and transposed to {@code [hidden, k]}, attached to {@code owner}:
   * the second operand of {@link #logits(NDArray, NDArray)}, which a caller may keep for later
   * steps.
   */
  public NDArray headRows(NDManager owner, long[] ids) {
    return vocab.rows(owner, ids);
  }

  /**
   * {@link #headRows} in float32, for the products {@link #widensProduct} says compute in float32:
   * from the float32 copy of the projection ({@link CpuF32Weights}), or gathered and cast; null
   * without copies and without a {@link #packedProducts()}.
   */
  public NDArray headRowsWide(NDManager owner, long[] ids) {
    return vocab.rowsWide(owner, ids, packedProducts());
  }

  /**
   * Whether a constrained projection ({@link #logits(NDArray, NDArray, NDArray)}) of {@code rows}
   * rows computes in float32 ({@link #headRowsWide} is then the operand to pass): products of
   * {@link WideProducts#WIDE_ROWS} rows or more with narrow weights on the CPU, and every row count
   * where the full projection is the {@link #packedProducts()}, whose logits are float32 sums (so
   * that both choose the same tokens).
   */
  public boolean widensProduct(int rows) {
    return vocab.widens(rows, packedProducts());
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
    return vocab.logits(hidden, headRows, headRowsWide, packedProducts());
  }

  /** {@code a}, attached to {@code step}. */
  static NDArray own(NDManager step, NDArray a) {
    a.attach(step);
    return a;
  }

  @Override
  public void close() {
    attention.close();
    if (fused != null) {
      fused.close();
    }
    if (gemm != null) {
      gemm.close();
    }
    manager.close();
  }
}
