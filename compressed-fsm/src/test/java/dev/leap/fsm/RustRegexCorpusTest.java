package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import dev.leap.testkit.RandomRegex;
import dev.leap.testkit.Shared;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rust-lang/regex test files as full-match checks.
 *
 * <p>Mapping: each case asks whether its whole haystack matches. The expected answer is {@code
 * true} when a listed match span covers the whole haystack, {@code false} when the case lists no
 * match at all, and otherwise comes from {@code java.util.regex} {@code matches()} on the same
 * pattern (Rust lists leftmost-first spans, which do not show every full match, e.g. {@code a|ab}
 * on {@code ab}). A pattern outside Leap's dialect must be a {@link RegexSyntaxException} (counted
 * as rejected), never a wrong answer; a case Rust itself rejects ({@code compiles = false}) must be
 * rejected too. Skipped, with a reason each: several patterns at once, case-insensitive or
 * ASCII-mode ({@code unicode = false}) runs, search bounds, custom line terminators, haystacks that
 * are not valid UTF-8, and Perl classes ({@code \d \w \s}: Unicode in Rust, ASCII in Leap) on
 * non-ASCII haystacks.
 */
class RustRegexCorpusTest {

  @Test
  void rustRegexTestsAsFullMatches() throws IOException {
    Path dir = Shared.require("corpora/regex-tests/rust-regex");
    List<Path> files;
    try (Stream<Path> s = Files.walk(dir)) {
      files = s.filter(p -> p.toString().endsWith(".toml")).sorted().collect(Collectors.toList());
    }
    TomlMapper toml = new TomlMapper();
    int cases = 0;
    int run = 0;
    int passed = 0;
    int rejected = 0;
    Map<String, Integer> skipped = new TreeMap<>();
    StringBuilder failures = new StringBuilder();
    for (Path f : files) {
      JsonNode root = toml.readTree(f.toFile());
      for (JsonNode t : root.path("test")) {
        cases++;
        String name = dir.relativize(f) + ":" + t.path("name").asText();
        String reason = skipReason(t);
        if (reason != null) {
          skipped.merge(reason, 1, Integer::sum);
          continue;
        }
        String regex = t.get("regex").asText();
        byte[] hay = haystack(t);
        String hayText = decode(hay);
        if (hayText == null) {
          skipped.merge("haystack is not valid UTF-8", 1, Integer::sum);
          continue;
        }
        boolean mustReject = t.has("compiles") && !t.get("compiles").asBoolean();
        CompressedFsm fsm = null;
        boolean empty = false;
        try {
          fsm = CompressedFsm.compile(regex, 20_000);
        } catch (RegexSyntaxException e) {
          rejected++;
          continue;
        } catch (EmptyLanguageException e) {
          empty = true;
        } catch (AutomatonTooLargeException e) {
          skipped.merge("over the DFA state limit", 1, Integer::sum);
          continue;
        }
        if (mustReject) {
          failures
              .append(name)
              .append(": Rust rejects /")
              .append(regex)
              .append("/ but Leap compiled it\n");
          continue;
        }
        if (usesPerlClass(regex) && !isAscii(hayText)) {
          skipped.merge(
              "Perl class on a non-ASCII haystack (Unicode in Rust, ASCII in Leap)",
              1,
              Integer::sum);
          continue;
        }
        Boolean expected = expected(t, hay.length, regex, hayText);
        if (expected == null) {
          skipped.merge("no oracle (java.util.regex cannot compile it)", 1, Integer::sum);
          continue;
        }
        boolean actual = !empty && fsm.dfa().matches(hay);
        run++;
        if (actual == expected) {
          passed++;
        } else {
          failures
              .append(name)
              .append(": /")
              .append(regex)
              .append("/ on \"")
              .append(hayText)
              .append("\": expected ")
              .append(expected)
              .append(", DFA says ")
              .append(actual)
              .append('\n');
        }
      }
    }
    int skippedTotal = skipped.values().stream().mapToInt(Integer::intValue).sum();
    System.out.printf(
        "rust-regex corpus: %d cases; run %d, passed %d, rejected as unsupported %d, skipped %d %s%n",
        cases, run, passed, rejected, skippedTotal, skipped);
    if (failures.length() > 0) {
      fail("wrong answers:\n" + failures);
    }
    assertEquals(run, passed);
    assertTrue(run > 300, "too few cases run: " + run);
  }

  private static String skipReason(JsonNode t) {
    if (t.path("regex").isArray()) {
      return "several patterns at once";
    }
    if (t.path("case-insensitive").asBoolean(false)) {
      return "case-insensitive";
    }
    if (t.has("unicode") && !t.get("unicode").asBoolean()) {
      return "ASCII mode (unicode = false)";
    }
    if (t.has("bounds")) {
      return "search bounds";
    }
    if (t.has("line-terminator")) {
      return "custom line terminator";
    }
    return null;
  }

  private static byte[] haystack(JsonNode t) {
    String h = t.path("haystack").asText();
    if (!t.path("unescape").asBoolean(false)) {
      return h.getBytes(StandardCharsets.UTF_8);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < h.length(); i++) {
      char c = h.charAt(i);
      if (c == '\\' && i + 1 < h.length()) {
        char d = h.charAt(i + 1);
        if (d == 'x' && i + 3 < h.length()) {
          out.write(Integer.parseInt(h.substring(i + 2, i + 4), 16));
          i += 3;
          continue;
        }
        int simple =
            d == 'n'
                ? '\n'
                : d == 't' ? '\t' : d == 'r' ? '\r' : d == '\\' ? '\\' : d == '0' ? 0 : -1;
        if (simple >= 0) {
          out.write(simple);
          i++;
          continue;
        }
      }
      byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
      if (Character.isHighSurrogate(c) && i + 1 < h.length()) {
        b = h.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
        i++;
      }
      out.write(b, 0, b.length);
    }
    return out.toByteArray();
  }

  private static String decode(byte[] b) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static boolean usesPerlClass(String regex) {
    for (int i = 0; i + 1 < regex.length(); i++) {
      if (regex.charAt(i) == '\\') {
        char d = regex.charAt(i + 1);
        if ("dwsDWS".indexOf(d) >= 0) {
          return true;
        }
        i++;
      }
    }
    return false;
  }

  private static boolean isAscii(String s) {
    return s.chars().allMatch(c -> c < 0x80);
  }

  private static Boolean expected(JsonNode t, int hayLength, String regex, String hay) {
    JsonNode matches = t.path("matches");
    boolean limited = t.has("match-limit");
    if (matches.isArray() && matches.isEmpty() && !limited) {
      return false;
    }
    for (JsonNode m : matches) {
      JsonNode span = spanOf(m);
      if (span != null && span.get(0).asInt() == 0 && span.get(1).asInt() == hayLength) {
        return true;
      }
    }
    try {
      Pattern p = RandomRegex.toJava(regex);
      return p.matcher(hay).matches();
    } catch (PatternSyntaxException | StackOverflowError e) {
      return null;
    }
  }

  /** The overall match span of one listed match, in any of the file format's shapes. */
  private static JsonNode spanOf(JsonNode m) {
    if (m.isObject()) {
      if (m.has("span")) {
        return m.get("span");
      }
      if (m.has("spans")) {
        return m.get("spans").get(0);
      }
      return null;
    }
    if (m.isArray() && m.size() == 2 && m.get(0).isInt()) {
      return m;
    }
    if (m.isArray() && m.size() > 0 && m.get(0).isArray() && m.get(0).size() == 2) {
      return m.get(0);
    }
    return null;
  }
}
