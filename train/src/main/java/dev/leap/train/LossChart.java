package dev.leap.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.train.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the loss curves of a {@code train-log.jsonl} as a PNG (XChart): the per-step answer loss,
 * its moving mean, and the auxiliary loss on the articles' repeated bigrams.
 */
public final class LossChart {
  private LossChart() {}

  public static void write(Path log, Path png) throws IOException {
    List<Double> steps = new ArrayList<>();
    List<Double> loss = new ArrayList<>();
    List<Double> mean = new ArrayList<>();
    List<Double> recall = new ArrayList<>();
    ObjectMapper m = Json.MAPPER;
    double avg = Double.NaN;
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = m.readTree(line);
      double l = n.get("loss").asDouble();
      avg = Double.isNaN(avg) ? l : 0.95 * avg + 0.05 * l;
      steps.add(n.get("step").asDouble());
      loss.add(l);
      mean.add(avg);
      recall.add(n.path("recallLoss").asDouble(Double.NaN));
    }
    if (steps.isEmpty()) {
      return;
    }
    XYChart chart =
        new XYChartBuilder()
            .width(800)
            .height(450)
            .title("Training loss (nats per token)")
            .xAxisTitle("step")
            .yAxisTitle("loss")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.addSeries("answer tokens", steps, loss).setMarker(SeriesMarkers.NONE);
    chart.addSeries("moving mean (0.95)", steps, mean).setMarker(SeriesMarkers.NONE);
    if (recall.stream().allMatch(d -> d > 0)) {
      chart.addSeries("recall targets (auxiliary)", steps, recall).setMarker(SeriesMarkers.NONE);
    }
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    BitmapEncoder.saveBitmap(
        chart, png.toString().replaceFirst("\\.png$", ""), BitmapEncoder.BitmapFormat.PNG);
  }

  /**
   * Draws the early signal of a copy-recipe {@code train-log.jsonl} (the lines with a measurement):
   * the swap test on held-out cards and articles (nats) and the mean teacher-forced exact match
   * over the fields (share), against the step; the mention gap and the swap test on held-out drills
   * where the log has them. Writes nothing when the log has no measurement.
   */
  public static void writeSignal(Path log, Path png) throws IOException {
    List<Double> steps = new ArrayList<>();
    List<Double> swapCards = new ArrayList<>();
    List<Double> swapArticles = new ArrayList<>();
    List<Double> exactCards = new ArrayList<>();
    List<Double> exactArticles = new ArrayList<>();
    List<Double> mentionGap = new ArrayList<>();
    List<Double> swapDrills = new ArrayList<>();
    ObjectMapper m = Json.MAPPER;
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = m.readTree(line);
      if (!n.has("swapCards")) {
        continue;
      }
      steps.add(n.get("step").asDouble());
      swapCards.add(n.get("swapCards").asDouble());
      swapArticles.add(n.get("swapArticles").asDouble());
      exactCards.add(mean(n.get("exactCards")));
      exactArticles.add(mean(n.get("exactArticles")));
      mentionGap.add(n.path("mentionGap").asDouble(Double.NaN));
      swapDrills.add(n.path("swapDrills").asDouble(Double.NaN));
    }
    if (steps.isEmpty()) {
      return;
    }
    XYChart chart =
        new XYChartBuilder()
            .width(800)
            .height(450)
            .title("Early signal on held-out cards and articles (300-600 tokens)")
            .xAxisTitle("step")
            .yAxisTitle("swap test (nats) / exact match (share)")
            .build();
    chart.addSeries("swap test, cards", steps, swapCards);
    chart.addSeries("swap test, articles", steps, swapArticles);
    chart.addSeries("exact match, cards", steps, exactCards);
    chart.addSeries("exact match, articles", steps, exactArticles);
    if (mentionGap.stream().allMatch(d -> Double.isFinite(d))) {
      chart.addSeries("mention gap, articles", steps, mentionGap);
    }
    if (swapDrills.stream().allMatch(d -> Double.isFinite(d))) {
      chart.addSeries("swap test, held-out drills", steps, swapDrills);
    }
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    BitmapEncoder.saveBitmap(
        chart, png.toString().replaceFirst("\\.png$", ""), BitmapEncoder.BitmapFormat.PNG);
  }

  private static double mean(JsonNode fields) {
    double s = 0;
    int n = 0;
    for (JsonNode f : fields) {
      s += f.asDouble();
      n++;
    }
    return n == 0 ? 0 : s / n;
  }
}
