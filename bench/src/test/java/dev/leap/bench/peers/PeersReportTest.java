package dev.leap.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeersReportTest {
  @Test
  void tableHeaderNamesLeapsModesAndEachThreadCount() {
    StringWriter w = new StringWriter();
    try (PrintWriter o = new PrintWriter(w)) {
      PeersReport.tableHeader(o, "batch 1, greedy", List.of(1, 2));
    }
    assertEquals(
        "| batch 1, greedy | Leap jump-forward | Leap token-by-token | llama.cpp 1 thread |"
            + " llama.cpp 2 threads |"
            + System.lineSeparator()
            + "|---|---:|---:|---:|---:|"
            + System.lineSeparator(),
        w.toString());
  }
}
