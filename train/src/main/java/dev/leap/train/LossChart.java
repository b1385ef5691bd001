package dev.leap.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

/** Draws the loss curve of a {@code train-log.jsonl} as a PNG (XChart): per-step loss and its moving mean. */
public final class LossChart {
  private LossChart() {}

  public static void write(Path log, Path png) throws IOException {
    List<Double> steps = new ArrayList<>();
    List<Double> loss = new ArrayList<>();
    List<Double> mean = new ArrayList<>();
    ObjectMapper m = new ObjectMapper();
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
    }
    if (steps.isEmpty()) {
      return;
    }
    XYChart chart = new XYChartBuilder().width(800).height(450)
        .title("Training loss (answer tokens, nats per token)").xAxisTitle("step").yAxisTitle("loss").build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.addSeries("loss", steps, loss).setMarker(SeriesMarkers.NONE);
    chart.addSeries("moving mean (0.95)", steps, mean).setMarker(SeriesMarkers.NONE);
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    BitmapEncoder.saveBitmap(chart, png.toString().replaceFirst("\\.png$", ""), BitmapEncoder.BitmapFormat.PNG);
  }
}
