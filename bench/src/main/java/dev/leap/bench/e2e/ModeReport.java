package dev.leap.bench.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.runtime.Generation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * How {@code leap bench characters|longdoc} compare modes and write what they found: the check that
 * no request failed, the greedy differences between two modes run on the same requests in the same
 * order (each as its label and the first differing characters), the characters table and chart, and
 * the JSON result file.
 *
 * <p>Invariant: two modes compared hold the same requests at the same indices ({@link
 * ModeResult#batch1}, {@link ModeResult#labels}); a difference is reported by the second mode's
 * label. Numbers are formatted with {@link Locale#ROOT}.
 */
final class ModeReport {
  private ModeReport() {}

  /** A benchmark whose requests failed measures nothing: say why and stop. */
  static void failIfErrors(ModeResult m) {
    for (Generation g : m.batch1) {
      if (g.isError()) {
        throw new IllegalStateException("a request failed in mode " + m.name + ": " + g.error());
      }
    }
  }

  /**
   * Every request whose output differs between the two modes (same requests, same order), as its
   * label and the first difference.
   */
  static List<String> greedyDifferences(ModeResult tbt, ModeResult jf) {
    List<String> differences = new ArrayList<>();
    for (int i = 0; i < jf.batch1.size(); i++) {
      String a = tbt.batch1.get(i).text();
      String b = jf.batch1.get(i).text();
      if (!a.equals(b)) {
        differences.add(jf.labels.get(i) + ": " + firstDifference(a, b));
      }
    }
    return differences;
  }

  private static String firstDifference(String a, String b) {
    int i = 0;
    while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    int from = Math.max(0, i - 20);
    return "at char "
        + i
        + ": ..."
        + escape(a.substring(from, Math.min(a.length(), i + 20)))
        + " | ..."
        + escape(b.substring(from, Math.min(b.length(), i + 20)));
  }

  private static String escape(String s) {
    return s.replace("\n", "\\n");
  }

  /** The characters table: the two modes side by side, with a ratio where one means something. */
  static String table(ModeResult tbt, ModeResult jf, double agreement, int parallel) {
    StringBuilder sb = new StringBuilder();
    sb.append("| metric | token-by-token | jump-forward | ratio |\n|---|---:|---:|---:|\n");
    row(
        sb,
        "latency p50 at batch 1 (ms)",
        tbt.latencyMsP50(),
        jf.latencyMsP50(),
        tbt.latencyMsP50() / jf.latencyMsP50(),
        "x faster");
    row(
        sb,
        "throughput at parallel " + parallel + " (output tokens/s)",
        tbt.throughputTokensPerSec(),
        jf.throughputTokensPerSec(),
        jf.throughputTokensPerSec() / tbt.throughputTokensPerSec(),
        "x higher");
    row(
        sb,
        "throughput at parallel " + parallel + " (requests/s)",
        tbt.throughputRequestsPerSec(),
        jf.throughputRequestsPerSec(),
        jf.throughputRequestsPerSec() / tbt.throughputRequestsPerSec(),
        "x higher");
    row(
        sb,
        "forward passes per request",
        tbt.forwardPassesPerRequest(),
        jf.forwardPassesPerRequest(),
        tbt.forwardPassesPerRequest() / jf.forwardPassesPerRequest(),
        "x fewer");
    row(
        sb,
        "tokens sampled per request",
        tbt.mean(g -> g.stats().tokensSampled()),
        jf.mean(g -> g.stats().tokensSampled()),
        Double.NaN,
        "");
    row(
        sb,
        "tokens jumped per request",
        tbt.mean(g -> g.stats().tokensJumped()),
        jf.mean(g -> g.stats().tokensJumped()),
        Double.NaN,
        "");
    row(
        sb,
        "output tokens per request",
        tbt.outputTokensPerRequest(),
        jf.outputTokensPerRequest(),
        Double.NaN,
        "");
    row(
        sb,
        "valid outputs (%)",
        100.0 * tbt.valid / tbt.batch1.size(),
        100.0 * jf.valid / jf.batch1.size(),
        Double.NaN,
        "");
    row(
        sb,
        "fields equal to the truth (%)",
        100.0 * tbt.fieldAccuracy(),
        100.0 * jf.fieldAccuracy(),
        Double.NaN,
        "");
    row(
        sb,
        "canonical tokenization (%)",
        100.0 * tbt.canonical / tbt.batch1.size(),
        100.0 * jf.canonical / jf.batch1.size(),
        Double.NaN,
        "");
    sb.append(
        String.format(
            Locale.ROOT, "| greedy agreement between the modes | | | %.0f%% |%n", agreement * 100));
    return sb.toString();
  }

  private static void row(
      StringBuilder sb, String name, double a, double b, double ratio, String unit) {
    sb.append(
        String.format(
            Locale.ROOT,
            "| %s | %.1f | %.1f | %s |%n",
            name,
            a,
            b,
            Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2f%s", ratio, unit)));
  }

  /** Two bar charts side by side as one PNG: batch-1 latency p50 and throughput at parallel. */
  static void drawChart(Path file, ModeResult tbt, ModeResult jf, int parallel) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    CategoryChart latency =
        new CategoryChartBuilder()
            .width(520)
            .height(380)
            .title("Latency at batch 1 (median, ms)")
            .yAxisTitle("ms")
            .build();
    latency.addSeries(
        "p50 latency",
        List.of("token-by-token", "jump-forward"),
        List.of(tbt.latencyMsP50(), jf.latencyMsP50()));
    latency.getStyler().setLegendVisible(false);
    CategoryChart throughput =
        new CategoryChartBuilder()
            .width(520)
            .height(380)
            .title("Throughput at parallel " + parallel + " (output tokens/s)")
            .yAxisTitle("tokens/s")
            .build();
    throughput.addSeries(
        "throughput",
        List.of("token-by-token", "jump-forward"),
        List.of(tbt.throughputTokensPerSec(), jf.throughputTokensPerSec()));
    throughput.getStyler().setLegendVisible(false);
    String base = file.toString().replaceFirst("\\.png$", "");
    BitmapEncoder.saveBitmap(
        List.of(latency, throughput), 1, 2, base, BitmapEncoder.BitmapFormat.PNG);
  }

  /**
   * The JSON head every end-to-end result file shares: the benchmark, the model, the settings, one
   * object per mode and the share of requests whose greedy outputs agree (left out when NaN).
   */
  static ObjectNode report(
      String benchmark,
      Path dir,
      String device,
      int maxTokens,
      double temperature,
      int parallel,
      List<ModeResult> modes,
      double agreement) {
    ObjectMapper m = Json.MAPPER;
    ObjectNode json = m.createObjectNode();
    json.put("benchmark", benchmark);
    json.put("model", dir.toString());
    json.put("device", device);
    json.put("maxTokens", maxTokens);
    json.put("temperature", temperature);
    json.put("parallel", parallel);
    ArrayNode arr = json.putArray("modes");
    for (ModeResult mr : modes) {
      mr.toJson(arr.addObject());
    }
    if (!Double.isNaN(agreement)) {
      json.put("greedyAgreementShare", agreement);
    }
    return json;
  }

  /** {@code json}, pretty-printed, into {@code file} (its directory made when missing). */
  static void write(Path file, ObjectNode json) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    Json.MAPPER.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), json);
  }
}
