package dev.leap.server.http;

import dev.leap.runtime.FinishReason;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationStats;
import dev.leap.runtime.LeapRuntime;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntSupplier;

/**
 * {@code GET /metrics} in Prometheus' text format, with vLLM's names and meanings where Leap has
 * the quantity ({@code vllm:time_to_first_token_seconds}, {@code
 * vllm:time_per_output_token_seconds} = (end-to-end − TTFT) / (output tokens − 1), {@code
 * vllm:e2e_request_latency_seconds}, {@code vllm:prompt_tokens_total}, {@code
 * vllm:generation_tokens_total}, {@code vllm:request_success_total} by finish reason, {@code
 * vllm:request_queue_time_seconds} (from arrival to the running batch), {@code
 * vllm:num_requests_running} and {@code vllm:num_requests_waiting} (samples: a request with {@code
 * n > 1} counts n times), {@code vllm:kv_cache_usage_perc}, {@code vllm:prefix_cache_queries_total}
 * and {@code vllm:prefix_cache_hits_total} in tokens) and Leap's own ({@code
 * leap:tokens_jumped_total}, {@code leap:bytes_jumped_total}, {@code leap:forward_passes_total},
 * {@code leap:http_requests_in_flight}). Thread-safe, lock-free.
 */
final class Metrics {
  private static final double[] TTFT_BUCKETS = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0
  };
  private static final double[] TPOT_BUCKETS = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0
  };
  private static final double[] E2E_BUCKETS = {
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0
  };

  private final String model;
  private final LeapRuntime runtime;
  private final IntSupplier inFlight;
  private final Histogram ttft = new Histogram(TTFT_BUCKETS);
  private final Histogram tpot = new Histogram(TPOT_BUCKETS);
  private final Histogram e2e = new Histogram(E2E_BUCKETS);
  private final Histogram queue = new Histogram(E2E_BUCKETS);
  private final AtomicLong promptTokens = new AtomicLong();
  private final AtomicLong generationTokens = new AtomicLong();
  private final AtomicLong prefixQueries = new AtomicLong();
  private final AtomicLong prefixHits = new AtomicLong();
  private final AtomicLong tokensJumped = new AtomicLong();
  private final AtomicLong bytesJumped = new AtomicLong();
  private final AtomicLongArray finished = new AtomicLongArray(FinishReason.values().length);

  Metrics(String model, LeapRuntime runtime, IntSupplier inFlight) {
    this.model = model;
    this.runtime = runtime;
    this.inFlight = inFlight;
  }

  /** Counts one finished sample. */
  void record(Generation g) {
    GenerationStats s = g.stats();
    finished.incrementAndGet(g.finishReason().ordinal());
    if (g.isError()) {
      return;
    }
    int out = g.tokenIds().length;
    promptTokens.addAndGet(s.promptTokens());
    generationTokens.addAndGet(out);
    prefixQueries.addAndGet(s.promptTokens());
    prefixHits.addAndGet(s.cachedPromptTokens());
    tokensJumped.addAndGet(s.tokensJumped());
    bytesJumped.addAndGet(s.bytesJumped());
    e2e.observe(s.totalMs() / 1000);
    queue.observe(s.queueMs() / 1000);
    if (out > 0) {
      ttft.observe(s.timeToFirstTokenMs() / 1000);
    }
    if (out > 1) {
      tpot.observe((s.totalMs() - s.timeToFirstTokenMs()) / 1000 / (out - 1));
    }
  }

  /** The exposition text. */
  String text() {
    StringBuilder sb = new StringBuilder();
    String l = "{model_name=\"" + model.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    gauge(
        sb,
        "vllm:num_requests_running",
        "Requests in the model's running batch.",
        l,
        runtime.runningRequests());
    gauge(
        sb,
        "vllm:num_requests_waiting",
        "Requests waiting to run (constraint compiling, batch or KV full).",
        l,
        runtime.waitingRequests());
    double usage =
        runtime.kvCapacity() == 0
            ? 0
            : 1.0 - (double) (runtime.freeKvSlots()) / runtime.kvCapacity();
    gauge(
        sb,
        "vllm:kv_cache_usage_perc",
        "KV-cache usage (1 = full; the prefix cache's slots count as used).",
        l,
        usage);
    counter(sb, "vllm:prompt_tokens_total", "Prompt tokens processed.", l, promptTokens.get());
    counter(
        sb,
        "vllm:generation_tokens_total",
        "Output tokens (sampled and jumped).",
        l,
        generationTokens.get());
    counter(
        sb,
        "vllm:prefix_cache_queries_total",
        "Prompt tokens looked up in the prefix cache.",
        l,
        prefixQueries.get());
    counter(
        sb,
        "vllm:prefix_cache_hits_total",
        "Prompt tokens found in the prefix cache.",
        l,
        prefixHits.get());
    sb.append(
        "# HELP vllm:request_success_total Finished requests by finish reason.\n# TYPE vllm:request_success_total counter\n");
    for (FinishReason r : FinishReason.values()) {
      sb.append("vllm:request_success_total{model_name=\"")
          .append(model)
          .append("\",finished_reason=\"")
          .append(r.jsonName())
          .append("\"} ")
          .append(finished.get(r.ordinal()))
          .append('\n');
    }
    ttft.write(sb, "vllm:time_to_first_token_seconds", "Time to first token.", model);
    tpot.write(
        sb, "vllm:time_per_output_token_seconds", "Time per output token after the first.", model);
    e2e.write(sb, "vllm:e2e_request_latency_seconds", "End-to-end request latency.", model);
    queue.write(
        sb, "vllm:request_queue_time_seconds", "Time from arrival to the running batch.", model);
    counter(
        sb,
        "leap:tokens_jumped_total",
        "Output tokens appended by jump-forward (not sampled).",
        l,
        tokensJumped.get());
    counter(
        sb,
        "leap:bytes_jumped_total",
        "Output bytes appended by jump-forward.",
        l,
        bytesJumped.get());
    counter(
        sb,
        "leap:forward_passes_total",
        "Forward passes of the model.",
        l,
        runtime.forwardPasses());
    gauge(
        sb,
        "leap:http_requests_in_flight",
        "HTTP requests being answered.",
        l,
        inFlight.getAsInt());
    return sb.toString();
  }

  private static void gauge(StringBuilder sb, String name, String help, String labels, double v) {
    sb.append("# HELP ")
        .append(name)
        .append(' ')
        .append(help)
        .append("\n# TYPE ")
        .append(name)
        .append(" gauge\n")
        .append(name)
        .append(labels)
        .append(' ')
        .append(num(v))
        .append('\n');
  }

  private static void counter(StringBuilder sb, String name, String help, String labels, long v) {
    sb.append("# HELP ")
        .append(name)
        .append(' ')
        .append(help)
        .append("\n# TYPE ")
        .append(name)
        .append(" counter\n")
        .append(name)
        .append(labels)
        .append(' ')
        .append(v)
        .append('\n');
  }

  static String num(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  /** A cumulative histogram with fixed upper bounds (and +Inf). */
  static final class Histogram {
    private final double[] bounds;
    private final AtomicLongArray counts;
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong sumMicros = new AtomicLong();

    Histogram(double[] bounds) {
      this.bounds = bounds;
      this.counts = new AtomicLongArray(bounds.length);
    }

    void observe(double v) {
      for (int i = 0; i < bounds.length; i++) {
        if (v <= bounds[i]) {
          counts.incrementAndGet(i);
          break;
        }
      }
      count.incrementAndGet();
      sumMicros.addAndGet(Math.round(v * 1e6));
    }

    void write(StringBuilder sb, String name, String help, String model) {
      sb.append("# HELP ")
          .append(name)
          .append(' ')
          .append(help)
          .append("\n# TYPE ")
          .append(name)
          .append(" histogram\n");
      long cumulative = 0;
      for (int i = 0; i < bounds.length; i++) {
        cumulative += counts.get(i);
        sb.append(name)
            .append("_bucket{model_name=\"")
            .append(model)
            .append("\",le=\"")
            .append(num(bounds[i]))
            .append("\"} ")
            .append(cumulative)
            .append('\n');
      }
      sb.append(name)
          .append("_bucket{model_name=\"")
          .append(model)
          .append("\",le=\"+Inf\"} ")
          .append(count.get())
          .append('\n');
      sb.append(name)
          .append("_sum{model_name=\"")
          .append(model)
          .append("\"} ")
          .append(num(sumMicros.get() / 1e6))
          .append('\n');
      sb.append(name)
          .append("_count{model_name=\"")
          .append(model)
          .append("\"} ")
          .append(count.get())
          .append('\n');
    }
  }
}
