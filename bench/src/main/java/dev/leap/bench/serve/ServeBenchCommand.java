package dev.leap.bench.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.BenchData;
import dev.leap.bench.Json;
import dev.leap.bench.Percentile;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.LeapServer;
import dev.leap.train.data.City;
import dev.leap.train.data.CityDocument;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench serve}: the load benchmark of the HTTP server, as vLLM's {@code
 * benchmarks/serve.py} defines it. Two servers over the same model, jump-forward on and off
 * (started in this process on free ports, unless {@code --url-jump}/{@code --url-plain} name
 * running ones), get the same workload (SGLang's character prompts with {@code character_regex}, or
 * held-out city articles with {@code city_regex}) with Poisson arrivals at each rate, streamed; per
 * mode and rate: request throughput, output tokens/s, goodput (requests within the TTFT and TPOT
 * limits), TTFT, TPOT, inter-chunk latency and tokens per chunk, errors, and whether every output
 * matches its regex.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description =
        "Load benchmark of leap serve: Poisson arrivals, streamed, jump-forward on and off in one run.")
public final class ServeBenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--model",
      defaultValue = "demo",
      paramLabel = "DIR|demo",
      description = "Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(
      names = "--url-jump",
      description = "A running server with jump-forward (else one is started here).")
  String urlJump;

  @Option(
      names = "--url-plain",
      description = "A running server without jump-forward (else one is started here).")
  String urlPlain;

  @Option(
      names = "--workload",
      defaultValue = "characters",
      description = "characters or longdoc. Default: ${DEFAULT-VALUE}.")
  String workload;

  @Option(
      names = "--rates",
      defaultValue = "1,2,4",
      split = ",",
      description = "Arrival rates in requests/s. Default: ${DEFAULT-VALUE}.")
  double[] rates;

  @Option(
      names = "--requests",
      defaultValue = "50",
      description = "Requests per rate and mode. Default: ${DEFAULT-VALUE}.")
  int requests;

  @Option(names = "--max-tokens", defaultValue = "256", description = "Default: ${DEFAULT-VALUE}.")
  int maxTokens;

  @Option(
      names = "--slo-ttft-ms",
      defaultValue = "2000",
      description = "Goodput: TTFT limit. Default: ${DEFAULT-VALUE}.")
  double sloTtft;

  @Option(
      names = "--slo-tpot-ms",
      defaultValue = "200",
      description = "Goodput: TPOT limit. Default: ${DEFAULT-VALUE}.")
  double sloTpot;

  @Option(
      names = "--dtype",
      defaultValue = "auto",
      description =
          "Dtype of the servers started here: auto (the"
              + " checkpoint's), f32, f16 or bf16 (not on the CPU). Default: ${DEFAULT-VALUE}.")
  String dtype;

  @Option(
      names = "--seed",
      defaultValue = "0",
      description = "Arrival times. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--out",
      defaultValue = "bench-results/serve.json",
      description = "Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--chart",
      defaultValue = "bench-results/serve.png",
      description = "Default: ${DEFAULT-VALUE}.")
  Path chart;

  private record Job(String prompt, String regex) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    if (requests < 1 || rates.length == 0 || Arrays.stream(rates).anyMatch(r -> !(r > 0))) {
      throw new IllegalArgumentException("--requests must be >= 1 and --rates positive numbers");
    }
    List<LeapServer> started = new ArrayList<>();
    try {
      String jump = urlJump;
      String plain = urlPlain;
      if (jump == null || plain == null) {
        Path dir = DemoModel.resolve(model, spec.commandLine().getErr());
        o.println("serve bench: starting two servers on " + dir + " (jump-forward on / off)");
        o.flush();
        if (jump == null) {
          jump = start(dir, true, started);
        }
        if (plain == null) {
          plain = start(dir, false, started);
        }
      }
      List<Job> jobs = jobs();
      LoadClient client = new LoadClient();
      // Warm both servers' code paths.
      client.send(jump, jobs.get(0).prompt(), jobs.get(0).regex(), maxTokens);
      client.send(plain, jobs.get(0).prompt(), jobs.get(0).regex(), maxTokens);
      ObjectMapper m = Json.MAPPER;
      ObjectNode report = m.createObjectNode();
      report.put("benchmark", "serve");
      report.put("workload", workload);
      report.put("requestsPerRate", requests);
      report.put("sloTtftMs", sloTtft);
      report.put("sloTpotMs", sloTpot);
      ArrayNode runs = report.putArray("runs");
      List<double[]> ttftJump = new ArrayList<>();
      List<double[]> ttftPlain = new ArrayList<>();
      o.println(
          "| mode | rate (req/s) | done | errors | valid | throughput (req/s) | output tok/s | goodput (req/s) | TTFT p50/p99 (ms) | TPOT p50/p99 (ms) | ITL p50/p99 (ms) | tokens/chunk |");
      o.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (int ri = 0; ri < rates.length; ri++) {
        double rate = rates[ri];
        String[][] order =
            ri % 2 == 0
                ? new String[][] {{"jump-forward", jump}, {"token-by-token", plain}}
                : new String[][] {{"token-by-token", plain}, {"jump-forward", jump}};
        for (String[] mode : order) {
          ObjectNode run = run(client, mode[1], rate, jobs, mode[0]);
          runs.add(run);
          o.println(run.get("row").asText());
          o.flush();
          (mode[0].equals("jump-forward") ? ttftJump : ttftPlain)
              .add(
                  new double[] {
                    rate, run.get("ttftMsP50").asDouble(), run.get("outputTokensPerSec").asDouble()
                  });
        }
      }
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(
          out,
          m.writerWithDefaultPrettyPrinter().writeValueAsString(report),
          StandardCharsets.UTF_8);
      drawChart(ttftJump, ttftPlain);
      o.printf("%nwrote %s and %s%n", out, chart);
      o.flush();
      return 0;
    } finally {
      for (LeapServer s : started) {
        s.close();
      }
    }
  }

  private String start(Path dir, boolean jumpForward, List<LeapServer> started) throws Exception {
    LeapRuntime rt =
        LeapRuntime.builder().setModelDir(dir).optJumpForward(jumpForward).optDtype(dtype).build();
    LeapServer s = new LeapServer(rt, LeapServer.Options.defaults().withPort(0)).start();
    started.add(s);
    return "http://127.0.0.1:" + s.port();
  }

  private List<Job> jobs() throws Exception {
    List<Job> jobs = new ArrayList<>();
    if (workload.equals("characters")) {
      String regex = BenchData.characterRegex();
      for (String name : BenchData.characterNames()) {
        jobs.add(new Job(BenchData.characterPrompt(name), regex));
      }
    } else if (workload.equals("longdoc")) {
      String regex = BenchData.cityRegex();
      Tokenizer tok = Tokenizer.gpt2();
      for (int d = 0; d < 5; d++) {
        City city = City.of(City.EVAL_SEED_BASE + d);
        String doc = CityDocument.text(city, City.EVAL_SEED_BASE + d, 2500 + 250 * d, tok);
        for (String q : CityDocument.questions().subList(0, 4)) {
          jobs.add(new Job(CityDocument.prompt(doc, q), regex));
        }
      }
    } else {
      throw new IllegalArgumentException(
          "--workload must be characters or longdoc, got '" + workload + "'");
    }
    return jobs;
  }

  private ObjectNode run(LoadClient client, String url, double rate, List<Job> jobs, String mode)
      throws Exception {
    SplittableRandom r = new SplittableRandom(seed + Double.doubleToLongBits(rate));
    ExecutorService pool =
        Executors.newCachedThreadPool(
            t -> {
              Thread th = new Thread(t, "serve-bench");
              th.setDaemon(true);
              return th;
            });
    List<CompletableFuture<LoadClient.Outcome>> fs = new ArrayList<>();
    long t0 = System.nanoTime();
    double at = 0;
    for (int i = 0; i < requests; i++) {
      at += -Math.log(1 - r.nextDouble()) / rate;
      long wait = t0 + (long) (at * 1e9) - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      Job j = jobs.get(i % jobs.size());
      fs.add(
          CompletableFuture.supplyAsync(
              () -> client.send(url, j.prompt(), j.regex(), maxTokens), pool));
    }
    List<LoadClient.Outcome> outs = fs.stream().map(CompletableFuture::join).toList();
    double wall = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    int errors = 0;
    int valid = 0;
    int good = 0;
    long tokens = 0;
    long chunks = 0;
    List<Double> ttft = new ArrayList<>();
    List<Double> tpot = new ArrayList<>();
    List<Double> itl = new ArrayList<>();
    List<String> errorTexts = new ArrayList<>();
    for (int i = 0; i < outs.size(); i++) {
      LoadClient.Outcome oc = outs.get(i);
      if (oc.error() != null) {
        errors++;
        if (errorTexts.size() < 5) {
          errorTexts.add(oc.status() + " " + oc.error());
        }
        continue;
      }
      if (Pattern.compile(jobs.get(i % jobs.size()).regex()).matcher(oc.text()).matches()) {
        valid++;
      }
      tokens += oc.outputTokens();
      chunks += oc.chunks();
      ttft.add(oc.ttftMs());
      if (!Double.isNaN(oc.tpotMs())) {
        tpot.add(oc.tpotMs());
      }
      itl.addAll(oc.interChunkMs());
      if (oc.ttftMs() <= sloTtft && (Double.isNaN(oc.tpotMs()) || oc.tpotMs() <= sloTpot)) {
        good++;
      }
    }
    ObjectNode run = Json.MAPPER.createObjectNode();
    run.put("mode", mode);
    run.put("rate", rate);
    run.put("requests", requests);
    run.put("errors", errors);
    run.put("valid", valid);
    run.put("wallSec", wall);
    run.put("requestThroughput", (requests - errors) / wall);
    run.put("outputTokensPerSec", tokens / wall);
    run.put("goodput", good / wall);
    run.put("ttftMsP50", Percentile.of(ttft, 0.50));
    run.put("ttftMsP99", Percentile.of(ttft, 0.99));
    run.put("tpotMsP50", Percentile.of(tpot, 0.50));
    run.put("tpotMsP99", Percentile.of(tpot, 0.99));
    run.put("itlMsP50", Percentile.of(itl, 0.50));
    run.put("itlMsP99", Percentile.of(itl, 0.99));
    run.put("tokensPerChunk", chunks == 0 ? 0 : (double) tokens / chunks);
    ArrayNode e = run.putArray("errorSamples");
    errorTexts.forEach(e::add);
    run.put(
        "row",
        String.format(
            Locale.ROOT,
            "| %s | %.2f | %d | %d | %d | %.2f | %.1f | %.2f | %.0f / %.0f | %.1f / %.1f | %.1f / %.1f | %.2f |",
            mode,
            rate,
            requests - errors,
            errors,
            valid,
            (requests - errors) / wall,
            tokens / wall,
            good / wall,
            Percentile.of(ttft, 0.50),
            Percentile.of(ttft, 0.99),
            Percentile.of(tpot, 0.50),
            Percentile.of(tpot, 0.99),
            Percentile.of(itl, 0.50),
            Percentile.of(itl, 0.99),
            chunks == 0 ? 0.0 : (double) tokens / chunks));
    return run;
  }

  private void drawChart(List<double[]> jump, List<double[]> plain) throws Exception {
    XYChart c =
        new XYChartBuilder()
            .width(800)
            .height(450)
            .title("leap serve: TTFT p50 by arrival rate (" + workload + ")")
            .xAxisTitle("arrival rate (requests/s)")
            .yAxisTitle("TTFT p50 (ms)")
            .build();
    c.addSeries(
        "jump-forward",
        jump.stream().mapToDouble(x -> x[0]).toArray(),
        jump.stream().mapToDouble(x -> x[1]).toArray());
    c.addSeries(
        "token-by-token",
        plain.stream().mapToDouble(x -> x[0]).toArray(),
        plain.stream().mapToDouble(x -> x[1]).toArray());
    Files.createDirectories(chart.toAbsolutePath().getParent());
    BitmapEncoder.saveBitmap(c, chart.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
