package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.testkit.Shared;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.Test;

/**
 * The regexes and texts that seven peer projects (XGrammar, guidance, Outlines, outlines-core,
 * llguidance, lm-format-enforcer, SGLang) give their own matchers in their tests ({@code
 * corpora/peer-test-suites/cases.json}, its README gives sources and format), as full-match checks
 * of Leap's DFA.
 *
 * <p>The truth is computed here, independently of the peers' labels (which follow their own
 * dialects): the peers' regexes are Python's, so the oracle is {@code re.fullmatch(p, s, re.ASCII)}
 * read through {@code java.util.regex} with the dialect differences rewritten and counted ({@link
 * PythonRegex}). A pattern Leap does not compile must be a {@link RegexSyntaxException} (counted as
 * rejected, with its description), never a wrong answer. A text with a lone surrogate (no UTF-8
 * encoding) is skipped and counted. Any answer different from the oracle fails the test unless
 * {@link #KNOWN} lists it with its reason; a listed difference that no longer occurs fails it too,
 * so the list stays true.
 */
class PeerRegexCasesTest {
  static final String CASES = "corpora/peer-test-suites/cases.json";

  /**
   * Truth differences between Python's {@code re} and the oracle or Leap, by pattern: none. (The
   * dialect differences the oracle rewrites are counted in the printed table instead.)
   */
  static final Map<String, String> KNOWN = Map.of();

  static final class Row {
    int patterns;
    int compiled;
    final Map<String, Integer> rejected = new TreeMap<>();
    int texts;
    int agree;
    int valid;
    int validAccepted;
    int invalidAccepted;
    int skipped;
  }

  @Test
  void peerRegexesAgreeWithPythonRe() throws IOException {
    Path file = Shared.require(CASES);
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    PythonRegex python = new PythonRegex();
    Map<String, Row> bySource = new TreeMap<>();
    Map<String, Integer> skipped = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    Map<String, String> knownSeen = new LinkedHashMap<>();
    for (JsonNode c : root.get("regex")) {
      String source = c.get(0).asText();
      String where = c.get(1).asText();
      String regex = c.get(2).asText();
      Row row = bySource.computeIfAbsent(source, k -> new Row());
      row.patterns++;
      Pattern oracle;
      try {
        oracle = python.compile(regex);
      } catch (PatternSyntaxException e) {
        fail(
            source
                + " "
                + where
                + ": the oracle cannot compile /"
                + regex
                + "/: "
                + e.getMessage());
        return;
      }
      CompressedFsm fsm = null;
      try {
        fsm = CompressedFsm.compile(regex, 100_000);
      } catch (RegexSyntaxException e) {
        row.rejected.merge(e.getDescription(), 1, Integer::sum);
        continue;
      } catch (EmptyLanguageException e) {
        fsm = null; // matches nothing
      }
      row.compiled++;
      for (JsonNode t : c.get(3)) {
        String text = t.get(0).asText();
        if (!wellFormed(text)) {
          row.skipped++;
          skipped.merge("text with a lone surrogate (no UTF-8)", 1, Integer::sum);
          continue;
        }
        boolean truth;
        try {
          truth = oracle.matcher(text).matches();
        } catch (StackOverflowError e) {
          row.skipped++;
          skipped.merge("oracle overflowed its stack", 1, Integer::sum);
          continue;
        }
        boolean leap = fsm != null && fsm.dfa().matches(text.getBytes(StandardCharsets.UTF_8));
        row.texts++;
        row.valid += truth ? 1 : 0;
        row.validAccepted += truth && leap ? 1 : 0;
        row.invalidAccepted += !truth && leap ? 1 : 0;
        if (truth == leap) {
          row.agree++;
        } else if (KNOWN.containsKey(regex)) {
          knownSeen.put(regex, KNOWN.get(regex));
        } else {
          wrong.add(
              source
                  + " "
                  + where
                  + ": /"
                  + regex
                  + "/ on "
                  + quote(text)
                  + ": Python says "
                  + truth
                  + ", Leap says "
                  + leap);
        }
      }
    }
    System.out.print(table(bySource, python.rewrites, skipped));
    if (!wrong.isEmpty()) {
      fail(wrong.size() + " wrong answers:\n" + String.join("\n", wrong));
    }
    assertEquals(
        KNOWN.keySet(), knownSeen.keySet(), "listed truth differences that no longer occur");
    int texts = bySource.values().stream().mapToInt(r -> r.texts).sum();
    assertTrue(texts > 8000, "too few texts checked: " + texts);
  }

  static String table(
      Map<String, Row> bySource, Map<String, Integer> rewrites, Map<String, Integer> skipped) {
    StringBuilder sb =
        new StringBuilder(
            "Peers' test suites, regexes (truth: Python re.fullmatch with re.ASCII, through java.util.regex)\n");
    sb.append(
        "| source | patterns | compiled | rejected as unsupported | texts | agree | valid accepted | invalid accepted |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    Row total = new Row();
    for (Map.Entry<String, Row> e : bySource.entrySet()) {
      Row r = e.getValue();
      sb.append(line(e.getKey(), r));
      total.patterns += r.patterns;
      total.compiled += r.compiled;
      r.rejected.forEach((k, v) -> total.rejected.merge(k, v, Integer::sum));
      total.texts += r.texts;
      total.agree += r.agree;
      total.valid += r.valid;
      total.validAccepted += r.validAccepted;
      total.invalidAccepted += r.invalidAccepted;
    }
    sb.append(line("**total**", total));
    sb.append("rejected as unsupported, by reason: ");
    total.rejected.forEach((k, v) -> sb.append(v).append(" ").append(k).append("; "));
    sb.append('\n');
    sb.append("oracle rewrites (Python dialect -> java.util.regex), by pattern: ")
        .append(rewrites)
        .append('\n');
    sb.append("texts skipped: ").append(skipped).append('\n');
    return sb.toString();
  }

  private static String line(String source, Row r) {
    int rejected = r.rejected.values().stream().mapToInt(Integer::intValue).sum();
    return String.format(
        "| %s | %d | %d | %d | %d | %d | %d/%d | %d |%n",
        source,
        r.patterns,
        r.compiled,
        rejected,
        r.texts,
        r.agree,
        r.validAccepted,
        r.valid,
        r.invalidAccepted);
  }

  static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    s.codePoints()
        .forEach(
            cp -> {
              if (cp < 0x20 || cp == 0x7f || cp == '"' || cp == '\\') {
                sb.append(String.format("\\u%04x", cp));
              } else {
                sb.appendCodePoint(cp);
              }
            });
    return sb.append('"').toString();
  }
}
