package dev.leap.runtime;

import java.util.List;

/**
 * How tokens are chosen, and when to stop.
 *
 * <p>{@code temperature == 0} is greedy decoding (the default, so that runs are reproducible);
 * otherwise logits are divided by the temperature, restricted to the {@code topK} most likely
 * tokens ({@code 0} = no limit) and to the smallest set whose probability reaches {@code topP}
 * ({@code 1} = no limit), and sampled with a random generator seeded by {@code seed}. A
 * constraint's mask is applied before all of that.
 *
 * @param maxTokens output tokens at most (sampled and jumped together), at least 1
 * @param stop strings that end the output when they appear in it (the stop string is not included)
 */
public record SamplingParams(
    double temperature, int topK, double topP, long seed, int maxTokens, List<String> stop) {

  public static final int DEFAULT_MAX_TOKENS = 256;

  public SamplingParams {
    if (!(temperature >= 0) || Double.isInfinite(temperature)) {
      throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
    }
    if (topK < 0) {
      throw new IllegalArgumentException("topK must be >= 0 (0 = no limit), got " + topK);
    }
    if (!(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
    }
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be >= 1, got " + maxTokens);
    }
    stop = stop == null ? List.of() : List.copyOf(stop);
    for (String s : stop) {
      if (s.isEmpty()) {
        throw new IllegalArgumentException("a stop string must not be empty");
      }
    }
  }

  /** Greedy decoding, {@value #DEFAULT_MAX_TOKENS} tokens at most. */
  public static SamplingParams greedy() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public boolean isGreedy() {
    return temperature == 0;
  }

  /**
   * Builder with the defaults: greedy, no top-k/top-p limit, seed 0, 256 tokens, no stop strings.
   */
  public static final class Builder {
    private Builder() {}

    private double temperature = 0;
    private int topK = 0;
    private double topP = 1;
    private long seed = 0;
    private int maxTokens = DEFAULT_MAX_TOKENS;
    private List<String> stop = List.of();

    public Builder temperature(double t) {
      this.temperature = t;
      return this;
    }

    public Builder topK(int k) {
      this.topK = k;
      return this;
    }

    public Builder topP(double p) {
      this.topP = p;
      return this;
    }

    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    public Builder maxTokens(int n) {
      this.maxTokens = n;
      return this;
    }

    public Builder stop(List<String> s) {
      this.stop = s;
      return this;
    }

    public Builder stop(String... s) {
      this.stop = List.of(s);
      return this;
    }

    public SamplingParams build() {
      return new SamplingParams(temperature, topK, topP, seed, maxTokens, stop);
    }
  }
}
