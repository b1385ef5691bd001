package dev.leap.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.bench.Json;
import dev.leap.model.HfModelWriter;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code leap bench forward} on a small random model on the CPU: a row per batch size and per
 * prefill length, the probe's five distinct tokens, the attention path it was asked for; bad
 * options are refused with their reason.
 */
class ForwardCommandTest {

  static int run(StringWriter out, StringWriter err, String... args) {
    CommandLine cl = new CommandLine(new ForwardCommand());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void writesARowPerBatchAndPrefill(@TempDir Path tmp) throws Exception {
    ModelConfig c =
        new ModelConfig(
            "llama", 50257, 32, 48, 2, 4, 2, 8, 512, 1e-5, 1e4, "default", 8, 1, 4, 32, true, false,
            false, false, "float32");
    Path dir = tmp.resolve("m");
    HfModelWriter.write(dir, c, 7, 0.3, HfModelWriter.StorageType.F32, 50256);
    HfTokenizer.copyGpt2(dir.resolve("tokenizer.json"));
    for (String fused : new String[] {"off", "on"}) {
      Path json = tmp.resolve("forward-" + fused + ".json");
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int rc =
          run(
              out,
              err,
              "--model",
              dir.toString(),
              "--batches",
              "1,3",
              "--context",
              "6",
              "--steps",
              "2",
              "--repeats",
              "2",
              "--prefill-tokens",
              "5,40",
              "--fused-attention",
              fused,
              "--out",
              json.toString());
      assertEquals(0, rc, err.toString());
      JsonNode r = Json.MAPPER.readTree(json.toFile());
      assertEquals(fused.equals("on"), r.get("fusedAttention").asBoolean(), r.toString());
      assertEquals(2, r.get("decode").size(), r.toString());
      assertEquals(3, r.get("decode").get(1).get("batch").asInt());
      assertTrue(r.get("decode").get(1).get("stepMs").asDouble() > 0, r.toString());
      assertEquals(2, r.get("prefill").size(), r.toString());
      assertEquals(40, r.get("prefill").get(1).get("tokens").asInt());
      assertTrue(r.get("prefill").get(1).get("firstMs").asDouble() > 0, r.toString());
      Set<Integer> probe = new HashSet<>();
      for (JsonNode t : r.get("probeTop5")) {
        probe.add(t.get("token").asInt());
      }
      assertEquals(5, probe.size(), r.toString());
      assertTrue(out.toString().contains("| 40 |"), out.toString());
    }
  }

  @Test
  void badOptionsAreRefusedWithTheirReason() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int rc = run(out, err, "--repeats", "1");
    assertNotEquals(0, rc);
    assertTrue(err.toString().contains("--repeats must be at least 2"), err.toString());
    err = new StringWriter();
    rc = run(out, err, "--fused-attention", "sometimes");
    assertNotEquals(0, rc);
    assertTrue(err.toString().contains("auto, on or off"), err.toString());
  }
}
