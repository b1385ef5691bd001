package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.grammar.RuleAutomata;
import dev.leap.testkit.Shared;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JSON Schema compiler's behaviour, pinned schema by schema: every schema of the JSON Schema
 * Test Suite (draft 2020-12), of the peer projects' test cases and of a seeded sample of
 * JSONSchemaBench is compiled in two option sets (compact and strict; indent 2 and lenient), and a
 * fingerprint of the result is compared with the one recorded in {@code json-fingerprints.txt}. By
 * default only the fingerprints marked {@code quick} are checked (the fastest to compute, about
 * {@link #QUICK_BUDGET_MS} when recorded, most of the corpus); {@code -Dleap.fingerprints.all=true}
 * checks all of them (minutes: the large JSONSchemaBench schemas).
 *
 * <p>A fingerprint is a hash of the minimal DFA's canonical form (states renumbered in
 * breadth-first order from the initial state, bytes in ascending order; with the accepting bits),
 * of the lists of what was ignored and narrowed, and, for the compact set, of the regex text
 * ({@link JsonSchema#toRegex}); or of the exception's class and message where compilation fails. A
 * schema compiled to a grammar (recursion as rules, see {@link JsonSchema#compileDetailed}) has a
 * fingerprint of its own kind, {@code grammar HASH}: each rule's name and canonical automaton
 * (calls as their marker bytes), in rule order, instead of the one DFA. Equal fingerprints mean the
 * same automaton, so the same jump edges and masks.
 *
 * <p>To record the fingerprints again (only when a change of behaviour is intended), run {@code mvn
 * -o -pl compressed-fsm test -Dtest=JsonSchemaFingerprintTest -Dleap.fingerprints.record=true} and
 * commit the file with the change that explains it; {@code -Dleap.fingerprints.update=true} instead
 * rewrites only the lines that changed and lists them.
 */
class JsonSchemaFingerprintTest {
  static final String RESOURCE = "json-fingerprints.txt";
  static final Path RECORDED = Path.of("src/test/resources/dev/leap/fsm/json", RESOURCE);

  /** One schema in this many of each JSONSchemaBench subset (with {@link #SEED}). */
  static final int SAMPLE_ONE_IN = 6;

  static final long SEED = 15L;

  /**
   * The time the default check may take, as measured when recording (the rest is checked with
   * {@code -Dleap.fingerprints.all=true}).
   */
  static final long QUICK_BUDGET_MS = 25_000;

  static final ObjectMapper M = new ObjectMapper();
  static final Map<String, JsonSchemaOptions> OPTION_SETS = new LinkedHashMap<>();

  static {
    OPTION_SETS.put("compact", JsonSchemaOptions.defaults());
    OPTION_SETS.put(
        "indent2-lenient", JsonSchemaOptions.defaults().withIndent(2).withLenient(true));
  }

  @Test
  void everySchemaCompilesAsRecorded() throws IOException {
    Map<String, String> schemas = corpus();
    if (Boolean.getBoolean("leap.fingerprints.record")) {
      record(schemas);
      return;
    }
    if (Boolean.getBoolean("leap.fingerprints.update")) {
      update(schemas);
      return;
    }
    boolean all = Boolean.getBoolean("leap.fingerprints.all");
    long start = System.nanoTime();
    List<String> differ = new ArrayList<>();
    int checked = 0;
    for (String[] r : recorded()) {
      if (!all && !r[1].equals("quick")) {
        continue;
      }
      int space = r[0].lastIndexOf(' ');
      String schema = schemas.get(r[0].substring(0, space));
      assertTrue(schema != null, r[0] + " is recorded but not in the corpus sample");
      String set = r[0].substring(space + 1);
      checked++;
      if (!r[2].equals(fingerprint(schema, OPTION_SETS.get(set), set.equals("compact")))) {
        differ.add(r[0]);
      }
    }
    System.out.printf(
        "JSON Schema fingerprints: %d checked (%s) in %.1f s%n",
        checked, all ? "all" : "quick", (System.nanoTime() - start) / 1e9);
    assertTrue(checked > 1000, "only " + checked + " fingerprints checked");
    assertTrue(
        differ.isEmpty(),
        differ.size()
            + " schemas compile differently from the recorded fingerprints: "
            + differ.subList(0, Math.min(20, differ.size())));
  }

  /**
   * Writes every fingerprint, marking as {@code quick} the fastest to compute until their sum
   * reaches {@link #QUICK_BUDGET_MS} (the default check), the others {@code full}.
   */
  static void record(Map<String, String> schemas) throws IOException {
    Map<String, String> prints = new LinkedHashMap<>();
    Map<String, Long> millis = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : schemas.entrySet()) {
      for (Map.Entry<String, JsonSchemaOptions> o : OPTION_SETS.entrySet()) {
        String key = e.getKey() + " " + o.getKey();
        long t0 = System.nanoTime();
        prints.put(key, fingerprint(e.getValue(), o.getValue(), o.getKey().equals("compact")));
        millis.put(key, (System.nanoTime() - t0) / 1_000_000);
      }
    }
    List<String> byTime = new ArrayList<>(millis.keySet());
    byTime.sort(java.util.Comparator.comparingLong(millis::get));
    java.util.Set<String> quick = new java.util.HashSet<>();
    long sum = 0;
    for (String k : byTime) {
      sum += millis.get(k);
      if (sum > QUICK_BUDGET_MS) {
        break;
      }
      quick.add(k);
    }
    List<String> lines = new ArrayList<>();
    prints.forEach(
        (k, v) -> lines.add(k + "\t" + (quick.contains(k) ? "quick" : "full") + "\t" + v));
    Files.createDirectories(RECORDED.getParent());
    Files.write(RECORDED, lines, StandardCharsets.UTF_8);
    System.out.println(
        "recorded "
            + lines.size()
            + " fingerprints ("
            + quick.size()
            + " quick) in "
            + RECORDED.toAbsolutePath());
  }

  /**
   * Computes every recorded fingerprint again and rewrites only the lines that differ (their {@code
   * quick}/{@code full} marks kept), printing each change as {@code name: old kind -> new kind} and
   * a count per change of kind: for a change of behaviour that touches few schemas.
   */
  static void update(Map<String, String> schemas) throws IOException {
    List<String> lines = new ArrayList<>();
    Map<String, Integer> kinds = new java.util.TreeMap<>();
    int changed = 0;
    for (String[] r : recorded()) {
      int space = r[0].lastIndexOf(' ');
      String set = r[0].substring(space + 1);
      String now =
          fingerprint(
              schemas.get(r[0].substring(0, space)), OPTION_SETS.get(set), set.equals("compact"));
      if (!now.equals(r[2])) {
        changed++;
        String change = kind(r[2]) + " -> " + kind(now);
        kinds.merge(change, 1, Integer::sum);
        System.out.println("changed: " + r[0] + ": " + change);
      }
      lines.add(r[0] + "\t" + r[1] + "\t" + now);
    }
    Files.write(RECORDED, lines, StandardCharsets.UTF_8);
    System.out.println("updated " + changed + " of " + lines.size() + " fingerprints: " + kinds);
  }

  /** {@code ok}, {@code grammar} or {@code fail CLASS}. */
  private static String kind(String fingerprint) {
    String[] p = fingerprint.split(" ");
    return p[0].equals("fail") ? p[0] + " " + p[1] : p[0];
  }

  /**
   * The schemas by name ({@code suite/FILE/i}, {@code peer/i}, {@code bench/SUBSET/LINE}), in a
   * fixed order.
   */
  static Map<String, String> corpus() throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    Path root = Shared.require("corpora").getParent();
    Path suite = root.resolve("corpora/json-schema-test-suite/draft2020-12");
    if (Files.isDirectory(suite)) {
      List<Path> files;
      try (Stream<Path> s = Files.list(suite)) {
        files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
      }
      for (Path f : files) {
        int i = 0;
        for (JsonNode group : M.readTree(f.toFile())) {
          out.put("suite/" + f.getFileName() + "/" + i++, group.get("schema").toString());
        }
      }
    }
    Path peer = root.resolve("corpora/peer-test-suites/cases.json");
    if (Files.exists(peer)) {
      int i = 0;
      for (JsonNode c : M.readTree(peer.toFile()).path("schema")) {
        out.put("peer/" + i++, c.get(2).toString());
      }
    }
    Path bench = root.resolve("corpora/jsonschemabench");
    SplittableRandom rnd = new SplittableRandom(SEED);
    for (String subset : SchemaBenchCorpus.SUBSETS) {
      Path f = bench.resolve(subset + ".jsonl.gz");
      if (!Files.exists(f)) {
        continue;
      }
      try (BufferedReader in = SchemaBenchCorpus.open(f)) {
        String line;
        int n = 0;
        while ((line = in.readLine()) != null) {
          n++;
          if (rnd.nextInt(SAMPLE_ONE_IN) == 0) {
            out.put("bench/" + subset + "/" + n, M.readTree(line).get("schema").toString());
          }
        }
      }
    }
    return out;
  }

  /** The recorded lines: name and option set, {@code quick} or {@code full}, fingerprint. */
  static List<String[]> recorded() throws IOException {
    List<String[]> out = new ArrayList<>();
    try (InputStream in = JsonSchemaFingerprintTest.class.getResourceAsStream(RESOURCE)) {
      assertTrue(in != null, RESOURCE + " is missing (record it, see the class javadoc)");
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        out.add(line.split("\t"));
      }
    }
    return out;
  }

  /** {@code ok HASH} or {@code fail CLASS HASH} (see the class javadoc). */
  static String fingerprint(String schema, JsonSchemaOptions options, boolean withRegex) {
    MessageDigest md = sha256();
    String kind = "ok ";
    try {
      JsonSchema.Compiled c = JsonSchema.compileDetailed(schema, options);
      if (c.grammar().isPresent()) {
        // Recursion as rules: each rule's name and canonical automaton (calls as their marker
        // bytes).
        kind = "grammar ";
        List<String> names = c.grammar().get().compiledRules();
        List<Dfa> rules = RuleAutomata.of(c.grammar().get());
        for (int k = 0; k < names.size(); k++) {
          md.update(("rule " + names.get(k) + "\n").getBytes(StandardCharsets.UTF_8));
          canonical(rules.get(k), md);
        }
      } else {
        canonical(c.fsm().dfa(), md);
      }
      md.update(String.join("\n", c.ignored()).getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      md.update(String.join("\n", c.narrowed()).getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException | StackOverflowError e) {
      return "fail " + e.getClass().getSimpleName() + " " + hash(String.valueOf(e.getMessage()));
    }
    if (withRegex) {
      md.update((byte) 0);
      try {
        md.update(JsonSchema.toRegex(schema, options).getBytes(StandardCharsets.UTF_8));
      } catch (RuntimeException | StackOverflowError e) {
        md.update(
            (e.getClass().getSimpleName() + ": " + e.getMessage())
                .getBytes(StandardCharsets.UTF_8));
      }
    }
    return kind + HexFormat.of().formatHex(md.digest(), 0, 12);
  }

  /**
   * Feeds {@code dfa} to {@code md} in a form independent of its state numbering: states in
   * breadth-first order from the initial one, each as its accepting bit and its transitions as
   * maximal byte runs with one target ({@code -1}: dead).
   */
  static void canonical(Dfa dfa, MessageDigest md) {
    int[] id = new int[dfa.stateCount()];
    java.util.Arrays.fill(id, -1);
    int[] order = new int[dfa.stateCount()];
    int n = 0;
    id[dfa.initialState()] = n;
    order[n++] = dfa.initialState();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      int s = order[i];
      sb.setLength(0);
      sb.append(dfa.isAccepting(s) ? 'A' : 'N');
      int prev = Integer.MIN_VALUE;
      for (int b = 0; b < 256; b++) {
        int t = dfa.step(s, b);
        if (t != Dfa.DEAD && id[t] < 0) {
          id[t] = n;
          order[n++] = t;
        }
        int c = t == Dfa.DEAD ? -1 : id[t];
        if (c != prev) {
          sb.append(' ').append(b).append(':').append(c);
          prev = c;
        }
      }
      sb.append('\n');
      md.update(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
    md.update(("states " + n + "/" + dfa.stateCount()).getBytes(StandardCharsets.UTF_8));
  }

  static String hash(String s) {
    return HexFormat.of().formatHex(sha256().digest(s.getBytes(StandardCharsets.UTF_8)), 0, 12);
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
