package dev.leap.bench.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Generation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * What one decoding mode did over a set of requests: the results at batch 1 (latency, counts) and
 * the wall time of each parallel run (throughput).
 */
final class ModeResult {
  final String name;
  final List<Generation> batch1 = new ArrayList<>();

  /** The truth of each batch-1 request (field name to value), in the same order. */
  final List<Map<String, String>> truths = new ArrayList<>();

  /** What identifies each batch-1 request in the report (a name, a document and a question). */
  final List<String> labels = new ArrayList<>();

  /**
   * The group of each batch-1 request whose outputs are not independent (longdoc: its document);
   * empty when every request is its own.
   */
  final List<Integer> groups = new ArrayList<>();

  final List<Double> parallelWallMs = new ArrayList<>();
  final List<Long> parallelOutputTokens = new ArrayList<>();
  final List<Integer> parallelRequests = new ArrayList<>();
  final List<Double> parallelForwardPassesPerRequest = new ArrayList<>();
  int canonical;
  int valid;

  ModeResult(String name) {
    this.name = name;
  }

  /** Checks validity (the DFA's complete flag and java.util.regex) and canonical tokenization. */
  void score(Pattern regex, Tokenizer tok) {
    valid = 0;
    canonical = 0;
    for (Generation g : batch1) {
      if (!g.isError() && g.isComplete() && regex.matcher(g.text()).matches()) {
        valid++;
      }
      if (!g.isError() && Arrays.equals(g.tokenIds(), tok.encode(g.text()))) {
        canonical++;
      }
    }
  }

  /** Fields equal to the truth, over all fields of all batch-1 requests. */
  double fieldAccuracy() {
    int right = 0;
    int all = 0;
    for (int i = 0; i < truths.size(); i++) {
      right +=
          batch1.get(i).isError() ? 0 : FieldScore.correct(batch1.get(i).text(), truths.get(i));
      all += truths.get(i).size();
    }
    return all == 0 ? Double.NaN : (double) right / all;
  }

  /**
   * The standard error of {@link #fieldAccuracy} over {@link #groups} (each request its own group
   * when there are none): {@link FieldScore#groupedStandardError}.
   */
  double fieldAccuracyStandardError() {
    Map<Integer, int[]> byGroup = new LinkedHashMap<>();
    for (int i = 0; i < truths.size(); i++) {
      int[] c = byGroup.computeIfAbsent(groups.isEmpty() ? i : groups.get(i), k -> new int[2]);
      c[0] += batch1.get(i).isError() ? 0 : FieldScore.correct(batch1.get(i).text(), truths.get(i));
      c[1] += truths.get(i).size();
    }
    int[] right = byGroup.values().stream().mapToInt(c -> c[0]).toArray();
    int[] all = byGroup.values().stream().mapToInt(c -> c[1]).toArray();
    return FieldScore.groupedStandardError(right, all);
  }

  /**
   * Per field name (in the truths' order), the share of the batch-1 requests whose output has it
   * equal to the truth; requests whose truth lacks the field do not count for it.
   */
  Map<String, Double> fieldAccuracyByField() {
    Map<String, int[]> counts = new LinkedHashMap<>();
    for (int i = 0; i < truths.size(); i++) {
      Set<String> right =
          batch1.get(i).isError()
              ? Set.of()
              : FieldScore.correctFields(batch1.get(i).text(), truths.get(i));
      for (String f : truths.get(i).keySet()) {
        int[] c = counts.computeIfAbsent(f, k -> new int[2]);
        c[0] += right.contains(f) ? 1 : 0;
        c[1]++;
      }
    }
    Map<String, Double> out = new LinkedHashMap<>();
    counts.forEach((f, c) -> out.put(f, (double) c[0] / c[1]));
    return out;
  }

  static double median(List<Double> xs) {
    if (xs.isEmpty()) {
      return Double.NaN;
    }
    double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  double latencyMsP50() {
    List<Double> t = new ArrayList<>();
    for (Generation g : batch1) {
      t.add(g.stats().totalMs());
    }
    return median(t);
  }

  double ttftMsP50(int from) {
    List<Double> t = new ArrayList<>();
    for (int i = from; i < batch1.size(); i++) {
      t.add(batch1.get(i).stats().timeToFirstTokenMs());
    }
    return median(t);
  }

  double mean(ToDoubleFunction<Generation> f) {
    return batch1.stream().mapToDouble(f).average().orElse(Double.NaN);
  }

  double forwardPassesPerRequest() {
    return mean(g -> g.stats().forwardPasses());
  }

  double outputTokensPerRequest() {
    return mean(g -> g.tokenIds().length);
  }

  /** Median over parallel runs of output tokens per second. */
  double throughputTokensPerSec() {
    List<Double> t = new ArrayList<>();
    for (int i = 0; i < parallelWallMs.size(); i++) {
      t.add(parallelOutputTokens.get(i) / (parallelWallMs.get(i) / 1000));
    }
    return median(t);
  }

  double throughputRequestsPerSec() {
    List<Double> t = new ArrayList<>();
    for (int i = 0; i < parallelWallMs.size(); i++) {
      t.add(parallelRequests.get(i) / (parallelWallMs.get(i) / 1000));
    }
    return median(t);
  }

  ObjectNode toJson(ObjectNode o) {
    int n = batch1.size();
    o.put("name", name);
    o.put("requests", n);
    o.put("validShare", n == 0 ? 0 : (double) valid / n);
    o.put("canonicalShare", n == 0 ? 0 : (double) canonical / n);
    o.put("forwardPassesPerRequest", forwardPassesPerRequest());
    o.put("tokensSampledPerRequest", mean(g -> g.stats().tokensSampled()));
    o.put("tokensJumpedPerRequest", mean(g -> g.stats().tokensJumped()));
    o.put("bytesJumpedPerRequest", mean(g -> g.stats().bytesJumped()));
    o.put("outputTokensPerRequest", outputTokensPerRequest());
    o.put("forwardPassesPerOutputToken", forwardPassesPerRequest() / outputTokensPerRequest());
    o.put("latencyMsP50", latencyMsP50());
    o.put("timeToFirstTokenMsP50", ttftMsP50(0));
    o.put("promptTokensPerRequest", mean(g -> g.stats().promptTokens()));
    o.put("cachedPromptTokensPerRequest", mean(g -> g.stats().cachedPromptTokens()));
    if (!truths.isEmpty()) {
      o.put("fieldAccuracy", fieldAccuracy());
      o.put("fieldAccuracyStandardError", fieldAccuracyStandardError());
      ObjectNode byField = o.putObject("fieldAccuracyByField");
      fieldAccuracyByField().forEach(byField::put);
      var outputs = o.putArray("outputs");
      for (int i = 0; i < batch1.size(); i++) {
        Generation g = batch1.get(i);
        ObjectNode r = outputs.addObject();
        r.put("request", i < labels.size() ? labels.get(i) : String.valueOf(i));
        r.put("text", g.isError() ? null : g.text());
        if (g.isError()) {
          r.put("error", g.error());
        }
        r.put("complete", g.isComplete());
        r.put("fieldsCorrect", g.isError() ? 0 : FieldScore.correct(g.text(), truths.get(i)));
        ObjectNode t = r.putObject("truth");
        truths.get(i).forEach(t::put);
      }
    }
    if (!parallelWallMs.isEmpty()) {
      o.put("parallelRuns", parallelWallMs.size());
      o.put("parallelRequests", parallelRequests.get(0));
      o.put("throughputTokensPerSec", throughputTokensPerSec());
      o.put("throughputRequestsPerSec", throughputRequestsPerSec());
      o.put("parallelWallMsP50", median(parallelWallMs));
      o.put("parallelForwardPassesPerRequest", median(parallelForwardPassesPerRequest));
    }
    return o;
  }
}
