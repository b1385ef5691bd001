package dev.leap.bench;

import java.util.List;

/** Nearest-rank percentiles, the one definition the benchmarks report. */
public final class Percentile {
  private Percentile() {}

  /**
   * The smallest value with at least {@code q} (0..1) of the values at or below it; NaN when empty.
   */
  public static double of(List<Double> values, double q) {
    double[] t = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return t.length == 0
        ? Double.NaN
        : t[Math.min(t.length - 1, Math.max(0, (int) Math.ceil(t.length * q) - 1))];
  }
}
