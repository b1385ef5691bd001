package dev.leap.runtime;

import ai.djl.Device;
import ai.djl.engine.Engine;
import dev.leap.model.LlamaModel;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.internal.engine.Scheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A loaded model ready for constrained generation: the entry point of Leap.
 *
 * <pre>{@code
 * try (LeapRuntime rt = LeapRuntime.builder().setModelDir(Path.of("models/SmolLM2-135M")).build()) {
 *   Generation g = rt.generate("Phone: ", Constraint.regex("\\d{3}-\\d{4}"));
 *   System.out.println(g.text() + " " + g.stats());
 * }
 * }</pre>
 *
 * <p>Thread-safe: any thread may submit; one scheduler thread batches all running requests into
 * each forward pass (continuous batching). Results complete on daemon callback threads named {@code
 * leap-callback-N}, never on the scheduler thread: a callback may block, even on this runtime.
 * {@link #close()} completes every request it accepted and has not finished with an error result
 * ("the runtime is closed"), then releases the model's native memory; a request submitted during or
 * after it gets that error result too.
 */
public final class LeapRuntime implements AutoCloseable {
  private final LlamaModel model;
  private final Tokenizer tokenizer;
  private final Scheduler scheduler;
  private final Path modelDir;

  private LeapRuntime(Builder b) {
    this.modelDir = b.modelDir;
    Device device = parseDevice(b.device);
    LlamaModel m;
    try {
      m =
          LlamaModel.load(
              b.modelDir,
              device,
              b.kvCapacity,
              b.dtype,
              LlamaModel.CpuF32Weights.parse(b.cpuF32Weights));
      m.setSparseLogitsLimit(b.sparseLogitsLimit);
      if (!b.fusedAttention.equals("auto")
          && m.setFusedAttention(b.fusedAttention.equals("on")) != b.fusedAttention.equals("on")) {
        m.close();
        throw new IllegalArgumentException(
            "fused attention on: this PyTorch cannot run scaled_dot_product_attention"
                + " (PyTorch 2.5 or later needed); use auto or off");
      }
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      if (!device.isGpu()) {
        throw e;
      }
      // PyTorch's reasons run to pages: keep the first line, bounded.
      String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
      throw new IllegalArgumentException(
          "could not load the model on "
              + b.device
              + ": "
              + (why.length() > 200 ? why.substring(0, 200) + "…" : why)
              + "; "
              + CUDA_HOWTO);
    }
    try {
      Path tok = b.modelDir.resolve("tokenizer.json");
      this.tokenizer = Files.exists(tok) ? Tokenizer.loadFromModelDir(b.modelDir) : null;
      this.scheduler =
          new Scheduler(
              m,
              tokenizer,
              new Scheduler.Options(
                  b.kvCapacity,
                  b.maxBatch,
                  b.jumpForward,
                  b.prefixCache,
                  b.healing,
                  b.checkInvariants,
                  Scheduler.DEFAULT_CONSTRAINT_CACHE_SIZE,
                  b.prefillChunk,
                  b.smallReserve >= 0
                      ? b.smallReserve
                      : Scheduler.defaultSmallReserve(b.kvCapacity),
                  b.compileThreads,
                  b.compileTimeoutMs));
    } catch (RuntimeException e) {
      m.close();
      throw e;
    }
    this.model = m;
  }

  private static final String CUDA_HOWTO =
      "to run on a GPU, point PYTORCH_LIBRARY_PATH at a CUDA build of libtorch, set"
          + " PYTORCH_VERSION and PYTORCH_FLAVOR (e.g. cu130) and leave out the CPU native artifact;"
          + " scripts/cuda builds DJL's JNI for that libtorch (README, Devices)";

  /**
   * The DJL device for a name: {@code cpu} (also for null), {@code gpu} or {@code gpuN}, checked
   * before any model is loaded.
   *
   * @throws IllegalArgumentException for another name, a GPU without CUDA (saying how to get it) or
   *     a GPU index past those visible
   */
  public static Device parseDevice(String name) {
    if (name == null) {
      return Device.cpu();
    }
    Device d;
    try {
      d = Device.fromName(name);
    } catch (RuntimeException e) {
      d = null;
    }
    if (d == null || !(Device.Type.CPU.equals(d.getDeviceType()) || d.isGpu())) {
      throw new IllegalArgumentException(
          "unknown device '" + name + "': use cpu, gpu or gpuN (N = 0, 1, ...)");
    }
    if (d.isGpu()) {
      int gpus = Engine.getInstance().getGpuCount();
      if (gpus == 0) {
        throw new IllegalArgumentException(
            "device "
                + name
                + ": CUDA is not available (this build loads PyTorch's"
                + " CPU natives, or no GPU is visible); "
                + CUDA_HOWTO);
      }
      if (d.getDeviceId() >= gpus) {
        throw new IllegalArgumentException(
            "device "
                + name
                + ": only "
                + gpus
                + " GPU(s) visible (gpu0.."
                + "gpu"
                + (gpus - 1)
                + ")");
      }
    }
    return d;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Generates under {@code constraint} with {@code params}; blocks until done. Never throws for a
   * bad request: see {@link Generation#error()}.
   */
  public Generation generate(String prompt, Constraint constraint, SamplingParams params) {
    return submit(GenerationRequest.of(prompt, constraint, params)).join();
  }

  /**
   * Greedy generation under {@code constraint}, {@value SamplingParams#DEFAULT_MAX_TOKENS} tokens
   * at most.
   */
  public Generation generate(String prompt, Constraint constraint) {
    return generate(prompt, constraint, SamplingParams.greedy());
  }

  /**
   * Queues one request and returns its handle: the future of its result (an error result rather
   * than an exception; never throws, also during or after {@link #close()}), completed on the
   * runtime's callback threads ({@code leap-callback-N}, never the scheduler thread, so a dependent
   * stage may block on this runtime), and the way to cancel it ({@link GenerationHandle#cancel()}).
   */
  public GenerationHandle submit(GenerationRequest request) {
    return submit(request, null);
  }

  /**
   * As {@link #submit(GenerationRequest)}, with the output delivered to {@code listener} as it
   * grows (streaming; see {@link OutputListener} for what it may do). A null listener streams
   * nothing.
   */
  public GenerationHandle submit(GenerationRequest request, OutputListener listener) {
    GenerationHandle handle = new GenerationHandle();
    handle.bind(scheduler.submit(Objects.requireNonNull(request, "request"), handle, listener));
    return handle;
  }

  /**
   * Runs many requests together (batched by the scheduler); results in the order of the requests.
   */
  public List<Generation> generateAll(List<GenerationRequest> requests) {
    List<CompletableFuture<Generation>> futures = new ArrayList<>(requests.size());
    for (GenerationRequest r : requests) {
      futures.add(submit(r));
    }
    List<Generation> out = new ArrayList<>(futures.size());
    for (CompletableFuture<Generation> f : futures) {
      out.add(f.join());
    }
    return out;
  }

  /** The model's tokenizer, or {@code null} if its directory has no {@code tokenizer.json}. */
  public Tokenizer tokenizer() {
    return tokenizer;
  }

  public Path modelDir() {
    return modelDir;
  }

  /** The model's device name, e.g. {@code cpu()}. */
  public String device() {
    return model.device().toString();
  }

  /**
   * The dtype the model computes in: {@code f32}, {@code f16} or {@code bf16} ({@code optDtype}).
   */
  public String dtype() {
    return model.precision().label();
  }

  /**
   * KV slots free right now (with the prefix cache off and no request running, equals {@link
   * #kvCapacity()}).
   */
  public int freeKvSlots() {
    return scheduler.freeSlots();
  }

  /**
   * The model's context length in tokens (prompt and output together): {@code
   * max_position_embeddings}.
   */
  public int contextLength() {
    return model.config().maxPositionEmbeddings();
  }

  /** KV slots held by the prefix cache. */
  public int cachedKvSlots() {
    return scheduler.cachedSlots();
  }

  public int kvCapacity() {
    return scheduler.kvCapacity();
  }

  /**
   * NDArrays alive in the runtime's per-request scopes (constant between requests: for leak
   * checks).
   */
  public int liveNativeArrays() {
    return scheduler.liveNativeArrays();
  }

  /** Forward passes run since the runtime started. */
  public long forwardPasses() {
    return scheduler.totalForwardPasses();
  }

  /**
   * Of {@link #forwardPasses()}, those whose next tokens were sampled from the allowed tokens'
   * logits alone ({@link Builder#optSparseLogitsLimit}).
   */
  public long sparseLogitsPasses() {
    return scheduler.sparseLogitsPasses();
  }

  /**
   * Whether float32 copies of the narrow weights are kept on the CPU ({@link
   * Builder#optCpuF32Weights}).
   */
  public boolean hasCpuF32WeightCopies() {
    return model.hasF32WeightCopies();
  }

  /** Requests in the running batch right now (vLLM's {@code num_requests_running}). */
  public int runningRequests() {
    return scheduler.runningRequests();
  }

  /**
   * Requests submitted but not running yet: their constraint compiling, or waiting for a place in
   * the batch or for KV slots (vLLM's {@code num_requests_waiting}).
   */
  public int waitingRequests() {
    return scheduler.waitingRequests();
  }

  private boolean closed;

  /** Idempotent; a second call (from any thread) returns once the first has released everything. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    scheduler.close();
    model.close();
    if (tokenizer instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the tokenizer failed", e);
      }
    }
  }

  /** Options: {@code set…} for the required model directory, {@code opt…} for the rest. */
  public static final class Builder {
    private Path modelDir;
    private String device;
    private String dtype = "auto";
    private int kvCapacity = 32_768;
    private int maxBatch = 64;
    private boolean jumpForward = true;
    private boolean prefixCache = true;
    private boolean healing = true;
    private boolean checkInvariants = false;
    private int prefillChunk = Scheduler.DEFAULT_PREFILL_CHUNK;
    private int smallReserve = -1;
    private int compileThreads = Scheduler.DEFAULT_COMPILE_THREADS;
    private long compileTimeoutMs = Scheduler.DEFAULT_COMPILE_TIMEOUT_MS;
    private int sparseLogitsLimit = LlamaModel.DEFAULT_SPARSE_LOGITS_LIMIT;
    private String cpuF32Weights = "auto";
    private String fusedAttention = "auto";

    private Builder() {}

    /**
     * A Hugging Face model directory: {@code config.json}, safetensors weights, {@code
     * tokenizer.json}.
     */
    public Builder setModelDir(Path dir) {
      this.modelDir = dir;
      return this;
    }

    /**
     * A DJL device name such as {@code cpu} or {@code gpu0}; default CPU. A GPU without CUDA, or an
     * unknown name, fails {@link #build()} with a one-line {@link IllegalArgumentException}.
     */
    public Builder optDevice(String device) {
      this.device = device;
      return this;
    }

    /**
     * The dtype of weights, activations and the KV cache: {@code auto} (default: the checkpoint's
     * dtype; the demo model's is f16), {@code f32}, {@code f16} or {@code bf16}. RMSNorm
     * statistics, the attention softmax, the rotary tables and the logits sampled from stay
     * float32, as in transformers. {@code bf16} on the CPU fails {@link #build()} with a one-line
     * {@link IllegalArgumentException} (DJL 0.35.1's PyTorch engine aborts on bfloat16 CPU
     * tensors), and {@code auto} computes a bfloat16 checkpoint in f32 there.
     */
    public Builder optDtype(String dtype) {
      this.dtype = dtype;
      return this;
    }

    /**
     * KV cache capacity in tokens (slots), shared by all requests and the prefix cache; default
     * 32,768.
     */
    public Builder optKvCapacity(int slots) {
      this.kvCapacity = slots;
      return this;
    }

    /** Most sequences in one forward pass; default 64. */
    public Builder optMaxBatch(int n) {
      this.maxBatch = n;
      return this;
    }

    /** Jump over forced text instead of decoding it token by token; default on. */
    public Builder optJumpForward(boolean on) {
      this.jumpForward = on;
      return this;
    }

    /** Reuse cached K/V of shared prompt prefixes through the radix cache; default on. */
    public Builder optPrefixCache(boolean on) {
      this.prefixCache = on;
      return this;
    }

    /** Hold back jump tokens the model could merge with what follows; default on. */
    public Builder optHealing(boolean on) {
      this.healing = on;
      return this;
    }

    /**
     * Tokens of long prompts (and long jump extensions) prefilled per step, in chunks interleaved
     * with the other requests' decode steps; default {@value Scheduler#DEFAULT_PREFILL_CHUNK}. Peak
     * memory grows linearly with the prompt; a smaller chunk lowers it further and costs more
     * steps.
     */
    public Builder optPrefillChunk(int tokens) {
      this.prefillChunk = tokens;
      return this;
    }

    /**
     * KV slots (and one batch place in eight) kept for small requests, those needing at most a
     * quarter of it (prompt plus {@code maxTokens}): big requests never take the last of them, so a
     * small request starts while big ones run. Default: an eighth of the KV capacity; 0 turns it
     * off.
     */
    public Builder optSmallRequestReserve(int slots) {
      this.smallReserve = slots;
      return this;
    }

    /**
     * Threads compiling constraints (shared by all requests, so a slow one delays only the requests
     * that use it); default {@value Scheduler#DEFAULT_COMPILE_THREADS}.
     */
    public Builder optCompileThreads(int threads) {
      this.compileThreads = threads;
      return this;
    }

    /**
     * Time limit of one constraint's compilation in milliseconds (0: none); past it the requests
     * waiting for it get an error result naming the limit and the compilation is stopped. Default
     * {@value Scheduler#DEFAULT_COMPILE_TIMEOUT_MS}.
     */
    public Builder optCompileTimeoutMs(long ms) {
      this.compileTimeoutMs = ms;
      return this;
    }

    /**
     * A step whose rows are all constrained and allow at most this many tokens altogether computes
     * the logits of those tokens alone (their rows of the vocabulary projection gathered on the
     * device, cached per allowed set) instead of the whole vocabulary's: the same tokens are
     * sampled, greedy or not, since the others are masked anyway. 0 turns it off; default {@value
     * LlamaModel#DEFAULT_SPARSE_LOGITS_LIMIT}.
     */
    public Builder optSparseLogitsLimit(int tokens) {
      if (tokens < 0) {
        throw new IllegalArgumentException("the sparse logits limit must be >= 0, got " + tokens);
      }
      this.sparseLogitsLimit = tokens;
      return this;
    }

    /**
     * With f16/bf16 weights on the CPU, where PyTorch has no fast half-precision matrix product,
     * keep float32 copies of the weights for products of 8 or more rows (batched decoding, jump
     * extensions, prefill), which otherwise cast the weights every pass: {@code auto} (default:
     * when the copies, twice the half-precision weights' bytes, fit in a quarter of the free
     * physical memory), {@code on} or {@code off}. No effect on a GPU or in f32.
     */
    public Builder optCpuF32Weights(String mode) {
      LlamaModel.CpuF32Weights.parse(mode);
      this.cpuF32Weights = mode;
      return this;
    }

    /**
     * Attention of prefills, long extensions and mixed batches as PyTorch's fused {@code
     * scaled_dot_product_attention} ({@code on}) or as separate ops ({@code off}); {@code auto}
     * (default): on a GPU, off on the CPU. Decode steps run their own fused step either way.
     */
    public Builder optFusedAttention(String mode) {
      if (mode == null || !mode.matches("auto|on|off")) {
        throw new IllegalArgumentException(
            "fused attention must be auto, on or off, got '" + mode + "'");
      }
      this.fusedAttention = mode;
      return this;
    }

    /**
     * Check the DFA state after every jump and the KV slot ledger after every step (tests); default
     * off.
     */
    public Builder optCheckInvariants(boolean on) {
      this.checkInvariants = on;
      return this;
    }

    public LeapRuntime build() {
      if (modelDir == null) {
        throw new IllegalArgumentException("setModelDir(...) is required");
      }
      if (!Files.isDirectory(modelDir)) {
        throw new IllegalArgumentException("model directory not found: " + modelDir);
      }
      if (kvCapacity < 1 || maxBatch < 1 || prefillChunk < 1) {
        throw new IllegalArgumentException("KV capacity, max batch and prefill chunk must be >= 1");
      }
      return new LeapRuntime(this);
    }
  }
}
