package dev.leap.bench.peers;

import static dev.leap.bench.peers.PeersCommand.DECODE_TOKENS;
import static dev.leap.bench.peers.PeersCommand.median;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.bench.Json;
import dev.leap.retokenize.Tokenizer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What {@code leap bench peers} reports from both sides: whether both engines turned every prompt
 * into the same token ids, the batch-1 table (decode per token, prefills, sheet latency, sheets
 * equal to llama.cpp's, the long documents' time to first token), the throughput table, the sheets
 * where the texts differ, and the JSON to {@code --out}.
 *
 * <p>Leap has one column per mode and llama.cpp one per thread count; texts are compared with the
 * first thread count's, position by position. llama.cpp's decode time per token is the time of a
 * {@code DECODE_TOKENS + 1}-token completion less a 1-token one, over {@code DECODE_TOKENS}; every
 * timing is the median of its repeats.
 */
final class PeersReport {
  private final ObjectMapper om = Json.MAPPER;
  private final PrintWriter o;
  private final Tokenizer tok;
  private final Workload w;
  private final List<Integer> threads;
  private final List<Integer> parallel;

  /**
   * @param threads llama.cpp's thread counts, in the order of its results
   * @param parallel the throughput waves' sizes, in the order of {@link Workload#waves()}
   */
  PeersReport(
      PrintWriter o, Tokenizer tok, Workload w, List<Integer> threads, List<Integer> parallel) {
    this.o = o;
    this.tok = tok;
    this.w = w;
    this.threads = threads;
    this.parallel = parallel;
  }

  /**
   * Prints the tables and writes the JSON to {@code out}.
   *
   * @param peer llama.cpp's batch-1 results, one per thread count
   * @param peerWaves llama.cpp's throughput results, per wave one per thread count
   */
  void write(
      Path dir,
      Path gguf,
      List<JsonNode> peer,
      List<List<JsonNode>> peerWaves,
      LeapSide leap,
      Path out)
      throws IOException {
    List<String> names = w.names();
    int n = w.n();
    String grammar = w.grammar();
    List<String> longPrompts = w.longPrompts();
    List<String[]> docPrompts = w.docPrompts();
    List<List<String>> waves = w.waves();
    // Both engines run Leap's ids (LlamaCppRuns); does llama.cpp's own tokenizer agree?
    int sameIds = 0;
    List<String> idDiffs = new ArrayList<>();
    JsonNode ref = peer.get(0).path("tokens");
    List<String> all = w.tokenized();
    for (int i = 0; i < all.size(); i++) {
      int[] ours = tok.encode(all.get(i));
      int[] theirs = om.convertValue(ref.get(i), int[].class);
      if (Arrays.equals(ours, theirs)) {
        sameIds++;
      } else {
        idDiffs.add("prompt " + i + ": Leap " + ours.length + " ids, llama.cpp " + theirs.length);
      }
    }
    o.printf(
        "%nboth engines run Leap's token ids; llama.cpp's own tokenizer (the GGUF's) gives the same ids for %d of %d"
            + " prompts (long prompts: %s tokens; documents' prompts: %s tokens)%n",
        sameIds,
        all.size(),
        longPrompts.stream().map(lp -> "" + tok.encode(lp).length).toList(),
        docPrompts.stream().map(d -> "" + tok.encode(d[0]).length).toList());
    idDiffs.forEach(d -> o.println("  " + d));

    ObjectNode json = om.createObjectNode();
    json.put("model", dir.toString());
    json.put("gguf", gguf.toString());
    json.put("grammar", grammar);
    json.put("leapDtype", leap.dtype);
    json.put("leapThreads", leap.threads);
    json.put("sameTokenIds", sameIds);
    json.put("prompts", all.size());
    o.println();
    tableHeader(o, "batch 1, greedy", threads);
    StringBuilder decode =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| decode time per token (ms) | %.2f | %.2f |",
                leap.decodeMsPerToken,
                leap.decodeMsPerToken));
    StringBuilder[] prefill = new StringBuilder[longPrompts.size()];
    for (int k = 0; k < prefill.length; k++) {
      prefill[k] =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "| prefill of %d tokens (ms) | %.0f | %.0f |",
                  leap.prefillTokens[k],
                  leap.prefillMs[k],
                  leap.prefillMs[k]));
    }
    StringBuilder ttftCold =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| long document, time to first token, nothing cached"
                    + " (ms, median of %d) | %.0f | %.0f |",
                docPrompts.size(),
                median(leap.docColdMs),
                median(leap.docColdMs)));
    StringBuilder ttftWarm =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| long document, time to first token, document" + " cached (ms) | %.0f | %.0f |",
                median(leap.docWarmMs),
                median(leap.docWarmMs)));
    StringBuilder sheet =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| character sheet latency p50 (ms) | %.0f | %.0f |",
                median(leap.jfMs),
                median(leap.tbtMs)));
    StringBuilder agree =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| sheets equal to llama.cpp's (1st column) | %d of %d | %d of %d |",
                0,
                n,
                0,
                n));
    ArrayNode peersJson = json.putArray("llamaCpp");
    int[] jfEq = new int[threads.size()];
    int[] tbtEq = new int[threads.size()];
    List<String> diffs = new ArrayList<>();
    for (int k = 0; k < threads.size(); k++) {
      JsonNode r = peer.get(k);
      List<List<Double>> pre = new ArrayList<>();
      for (int q = 0; q < longPrompts.size(); q++) {
        pre.add(new ArrayList<>());
      }
      List<Double> cold = new ArrayList<>();
      List<Double> warm = new ArrayList<>();
      int docFirstEqual = 0;
      List<Double> d1 = new ArrayList<>();
      List<Double> dn = new ArrayList<>();
      List<Double> sheets = new ArrayList<>();
      for (JsonNode c : r.path("completions")) {
        String id = c.path("id").asText();
        double ms = c.path("ms").asDouble();
        if (id.startsWith("prefill")) {
          pre.get(Integer.parseInt(id.substring(7))).add(ms);
          continue;
        }
        if (id.startsWith("docCold") || id.startsWith("docWarm")) {
          int d = Integer.parseInt(id.substring(7));
          (id.startsWith("docCold") ? cold : warm).add(ms);
          String first =
              id.startsWith("docCold") ? leap.docColdText.get(d) : leap.docWarmText.get(d);
          docFirstEqual += c.path("text").asText().equals(first) ? 1 : 0;
          continue;
        }
        switch (id) {
          case "decode1" -> d1.add(ms);
          case "decodeN" -> dn.add(ms);
          default -> {
            int i = Integer.parseInt(id.substring(5));
            sheets.add(ms);
            String text = c.path("text").asText();
            if (text.equals(leap.jfTexts.get(i))) {
              jfEq[k]++;
            } else if (k == 0) {
              diffs.add(names.get(i) + ": " + firstDifference(leap.jfTexts.get(i), text));
            }
            if (text.equals(leap.tbtTexts.get(i))) {
              tbtEq[k]++;
            }
          }
        }
      }
      double perToken = (median(dn) - median(d1)) / DECODE_TOKENS;
      decode.append(String.format(Locale.ROOT, " %.2f |", perToken));
      for (int q = 0; q < prefill.length; q++) {
        prefill[q].append(String.format(Locale.ROOT, " %.0f |", median(pre.get(q))));
      }
      ttftCold.append(String.format(Locale.ROOT, " %.0f |", median(cold)));
      ttftWarm.append(String.format(Locale.ROOT, " %.0f |", median(warm)));
      sheet.append(
          String.format(Locale.ROOT, " %.0f |", sheets.isEmpty() ? Double.NaN : median(sheets)));
      agree.append(String.format(Locale.ROOT, " %d of %d |", jfEq[k], n));
      ObjectNode pj = peersJson.addObject();
      pj.put("threads", threads.get(k));
      pj.put("decodeMsPerToken", perToken);
      ArrayNode pms = pj.putArray("prefillMs");
      pre.forEach(l -> pms.add(median(l)));
      pj.put("docTtftColdMs", median(cold));
      pj.put("docTtftWarmMs", median(warm));
      pj.put("docFirstTokensEqualToLeap", docFirstEqual);
      pj.put("sheetLatencyMsP50", sheets.isEmpty() ? Double.NaN : median(sheets));
      pj.put("sheetsEqualToLeapJumpForward", jfEq[k]);
      pj.put("sheetsEqualToLeapTokenByToken", tbtEq[k]);
      pj.put("sheetsCompleted", sheets.size());
    }
    agree =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| sheets equal to llama.cpp's (%d thread%s) | %d of %d | %d of %d |",
                threads.get(0),
                threads.get(0) == 1 ? "" : "s",
                jfEq[0],
                n,
                tbtEq[0],
                n));
    for (int k = 0; k < threads.size(); k++) {
      agree.append(
          k == 0
              ? " |"
              : String.format(Locale.ROOT, " %d of %d equal to Leap jump-forward |", jfEq[k], n));
    }
    o.println(decode);
    for (StringBuilder pb : prefill) {
      o.println(pb);
    }
    o.println(sheet);
    o.println(agree);
    if (!docPrompts.isEmpty()) {
      o.println(ttftCold);
      o.println(ttftWarm);
    }
    if (!docPrompts.isEmpty()) {
      o.printf(
          Locale.ROOT,
          "%nLeap's long-document prompts: %.0f tokens, %.0f of them cached for the second question (median);"
              + " first tokens equal to llama.cpp's (%d threads): %d of %d%n",
          median(leap.docPromptTokens),
          median(leap.docCachedTokens),
          threads.get(0),
          docEqual(peer.get(0), leap),
          2 * docPrompts.size());
    }
    // Throughput rows.
    if (!parallel.isEmpty()) {
      o.println();
      tableHeader(o, "throughput, sheets at once", threads);
      ArrayNode tj = json.putArray("throughput");
      for (int w = 0; w < parallel.size(); w++) {
        int p = parallel.get(w);
        List<String> wave = waves.get(w);
        LeapSide.Wave lw = leap.waves.get(w);
        StringBuilder row =
            new StringBuilder(
                String.format(
                    Locale.ROOT,
                    "| parallel %d: output tokens/s | %.0f | %.0f |",
                    p,
                    lw.jfTokens / lw.jfMs * 1000,
                    lw.tbtTokens / lw.tbtMs * 1000));
        // Outputs compared with llama.cpp's of the same wave (first thread count), prompt by
        // prompt.
        JsonNode ref0 = peerWaves.get(w).get(0).path("concurrent").path("texts");
        List<String> refTexts = new ArrayList<>();
        ref0.forEach(tx -> refTexts.add(tx.asText()));
        StringBuilder eq =
            new StringBuilder(
                String.format(
                    Locale.ROOT,
                    "| parallel %d: sheets equal to llama.cpp's (%d thread%s)"
                        + " | %d of %d | %d of %d |",
                    p,
                    threads.get(0),
                    threads.get(0) == 1 ? "" : "s",
                    equal(lw.jfTexts, refTexts),
                    p,
                    equal(lw.tbtTexts, refTexts),
                    p));
        ObjectNode wj = tj.addObject();
        wj.put("parallel", p);
        wj.put("leapJumpForwardTokensPerSec", lw.jfTokens / lw.jfMs * 1000);
        wj.put("leapTokenByTokenTokensPerSec", lw.tbtTokens / lw.tbtMs * 1000);
        wj.put("leapJumpForwardPassesPerRequest", lw.jfPasses);
        wj.put("leapTokenByTokenPassesPerRequest", lw.tbtPasses);
        ArrayNode lj = wj.putArray("llamaCpp");
        for (int k = 0; k < threads.size(); k++) {
          JsonNode r = peerWaves.get(w).get(k).path("concurrent");
          if (r.isMissingNode()) {
            row.append(" (no result) |");
            eq.append(" |");
            continue;
          }
          long tokens = 0;
          List<String> texts = new ArrayList<>();
          for (JsonNode tx : r.path("texts")) {
            texts.add(tx.asText());
            tokens += tok.encode(tx.asText()).length;
          }
          double tps = tokens / r.path("wallMs").asDouble() * 1000;
          row.append(String.format(Locale.ROOT, " %.0f |", tps));
          eq.append(
              k == 0 ? " |" : String.format(Locale.ROOT, " %d of %d |", equal(texts, refTexts), p));
          lj.addObject()
              .put("threads", threads.get(k))
              .put("tokensPerSec", tps)
              .put("wallMs", r.path("wallMs").asDouble());
        }
        o.println(row);
        o.println(eq);
      }
    }
    o.printf(
        Locale.ROOT,
        "%nLeap: dtype %s, %d PyTorch thread%s; forward passes per sheet %.1f jump-forward, %.1f token-by-token%n",
        leap.dtype,
        leap.threads,
        leap.threads == 1 ? "" : "s",
        leap.jfPasses,
        leap.tbtPasses);
    if (!diffs.isEmpty()) {
      o.println("Sheets where llama.cpp's text differs from Leap jump-forward's:");
      diffs.forEach(d -> o.println("  " + d));
    }
    json.put("leapDecodeMsPerToken", leap.decodeMsPerToken);
    ArrayNode lp = json.putArray("leapPrefillMs");
    for (double v : leap.prefillMs) {
      lp.add(v);
    }
    json.put("leapDocTtftColdMs", median(leap.docColdMs));
    json.put("leapDocTtftWarmMs", median(leap.docWarmMs));
    json.put("leapJumpForwardLatencyMsP50", median(leap.jfMs));
    json.put("leapTokenByTokenLatencyMsP50", median(leap.tbtMs));
    ArrayNode dj = json.putArray("differences");
    diffs.forEach(dj::add);
    om.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), json);
  }

  /** How many texts are equal position by position. */
  private static int equal(List<String> a, List<String> b) {
    int eq = 0;
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      eq += a.get(i).equals(b.get(i)) ? 1 : 0;
    }
    return eq;
  }

  private static int docEqual(JsonNode peer, LeapSide leap) {
    int eq = 0;
    for (JsonNode c : peer.path("completions")) {
      String id = c.path("id").asText();
      if (id.startsWith("docCold") || id.startsWith("docWarm")) {
        int d = Integer.parseInt(id.substring(7));
        String first = id.startsWith("docCold") ? leap.docColdText.get(d) : leap.docWarmText.get(d);
        eq += c.path("text").asText().equals(first) ? 1 : 0;
      }
    }
    return eq;
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
        + a.substring(from, Math.min(a.length(), i + 20)).replace("\n", "\\n")
        + " | ..."
        + b.substring(from, Math.min(b.length(), i + 20)).replace("\n", "\\n");
  }

  /**
   * A table's header row and alignment row: the row label, Leap's two modes, llama.cpp per thread
   * count.
   */
  static void tableHeader(PrintWriter o, String label, List<Integer> threads) {
    StringBuilder h =
        new StringBuilder("| " + label + " | Leap jump-forward | Leap token-by-token |");
    for (int t : threads) {
      h.append(" llama.cpp ").append(t).append(t == 1 ? " thread |" : " threads |");
    }
    o.println(h);
    o.println("|---|---:|---:|" + "---:|".repeat(threads.size()));
  }
}
