package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Percentile;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@code leap bench abuse} times a request and reports the times: wall milliseconds per call
 * (or the call's own figure, when it returns a {@link Double}, as the time to first token does),
 * summarized as n, p50, p99 and max in the JSON and as p50/p99 in the tables (nearest rank, {@link
 * Percentile}).
 */
final class AbuseTimings {
  private AbuseTimings() {}

  /** One timed call; a {@link Double} result is its own measurement in ms. */
  interface Timed {
    Object run() throws Exception;
  }

  /** {@code n} calls of {@code what}, one after another, each's milliseconds. */
  static List<Double> times(int n, Timed what) throws Exception {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      Object v = what.run();
      ms.add(v instanceof Double d ? d : (System.nanoTime() - t0) / 1e6);
    }
    return ms;
  }

  /** {@code name: {n, p50, p99, max}} into {@code r}. */
  static void put(ObjectNode r, String name, List<Double> ms) {
    ObjectNode n = r.putObject(name);
    n.put("n", ms.size());
    n.put("p50", Percentile.of(ms, 0.5));
    n.put("p99", Percentile.of(ms, 0.99));
    n.put("max", ms.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
  }

  /** A table row: idle p50 and p99, then busy p50 and p99. */
  static void row(PrintWriter o, String name, List<Double> idle, List<Double> busy) {
    o.printf(
        "| %s | %.1f | %.1f | %.1f | %.1f |%n",
        name,
        Percentile.of(idle, 0.5),
        Percentile.of(idle, 0.99),
        Percentile.of(busy, 0.5),
        Percentile.of(busy, 0.99));
  }
}
