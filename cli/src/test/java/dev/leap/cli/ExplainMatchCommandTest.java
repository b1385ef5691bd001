package dev.leap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.testkit.Shared;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ExplainMatchCommandTest {

  record Run(int code, String out, String err) {}

  static Run run(String stdin, String... args) {
    InputStream old = System.in;
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    try {
      System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
      CommandLine cli = LeapCli.commandLine();
      cli.setOut(new PrintWriter(out));
      cli.setErr(new PrintWriter(err));
      int code = cli.execute(args);
      return new Run(code, out.toString(), err.toString());
    } finally {
      System.setIn(old);
    }
  }

  @Test
  void explainListsTheJumpEdgesOfTheCharacterRegex() throws Exception {
    String regex = Shared.sglangRegex("character_regex");
    Run r = run("", "explain", "--json", "--regex", regex);
    assertEquals(0, r.code(), r.err());
    JsonNode o = new ObjectMapper().readTree(r.out());
    int initial = o.get("initialState").asInt();
    JsonNode states = o.get("states");
    assertEquals("{\n    \"name\": \"", states.get(initial).get("jump").asText());
    int jumps = 0;
    boolean sawGryffindor = false;
    for (JsonNode s : states) {
      if (!s.get("jump").isNull()) {
        jumps++;
        sawGryffindor |=
            s.get("jump").asText().startsWith("ryffindor\",\n    \"blood status\": \"");
      }
    }
    assertTrue(jumps > 10, "jump edges: " + jumps);
    assertTrue(sawGryffindor);
    assertTrue(o.get("indexMs").isNull());
  }

  @Test
  void explainWithATokenizerCountsAllowedTokens() throws Exception {
    Path tok = Shared.require("tokenizers/gpt2/tokenizer.json");
    Run r =
        run(
            "",
            "explain",
            "--json",
            "--regex",
            Shared.sglangRegex("city_regex"),
            "--tokenizer",
            tok.toString());
    assertEquals(0, r.code(), r.err());
    JsonNode o = new ObjectMapper().readTree(r.out());
    assertTrue(o.get("indexMs").asDouble() >= 0);
    int zero = 0;
    for (JsonNode s : o.get("states")) {
      // Only the final state (accepting, nothing may follow; no EOS in tokenizer.json alone) allows
      // none.
      if (s.get("allowedTokens").asInt() == 0) {
        zero++;
        assertTrue(s.get("accepting").asBoolean(), "state " + s);
      }
    }
    assertEquals(1, zero);
  }

  @Test
  void matchPrintsOneAnswerPerLine() {
    Run r = run("\"abc\"\n\"ade\"\n\"ab\"\n\"a\\nb\"\n", "match", "--regex", "a(bc|de)|a\\nb");
    assertEquals(0, r.code(), r.err());
    assertEquals("true\ntrue\nfalse\ntrue\n", r.out().replace("\r\n", "\n"));
  }

  @Test
  void badInputIsOneLineAndNonZero() {
    Run r = run("", "explain", "--regex", "a(b");
    assertEquals(1, r.code());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertTrue(r.err().contains("index 1"), r.err());
    r = run("", "match", "--regex", "(a|b)*a(a|b){24}");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("state limit"), r.err());
    r = run("", "explain", "--regex", "[^\\x00-\\x{10FFFF}]");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("matches no text"), r.err());
    r = run("\"ok\"\nnot json\n", "match", "--regex", "ok");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("line 2"), r.err());
    r = run("", "explain", "--json", "--regex", "a\\1");
    assertEquals(1, r.code());
    assertTrue(r.out().startsWith("{\"error\":"), r.out());
    r = run("", "explain", "--regex", "a", "--tokenizer", "/nonexistent/tokenizer.json");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("/nonexistent/tokenizer.json"), r.err());
  }

  @Test
  void grammarsExplainTheirRulesAndMatchWithAStack() throws Exception {
    java.nio.file.Path g = java.nio.file.Files.createTempFile("arith", ".gbnf");
    java.nio.file.Files.writeString(
        g, "root ::= e\ne ::= t ([+-] t)*\nt ::= [0-9]+ | \"(\" e \")\"\n");
    Run r = run("", "explain", "--grammar", g.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("context-free grammar") && r.out().contains("recursive"), r.out());
    r =
        run(
            "\"(1+2)-3\"\n\"((1)\"\n\"1+\"\n\"((((((((7))))))))\"\n",
            "match",
            "--grammar",
            g.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(List.of("true", "false", "false", "true"), r.out().lines().toList());
    // Without recursion a grammar is one DFA, explained like a regex.
    java.nio.file.Files.writeString(g, "root ::= \"a\" [0-9]{2}\n");
    r = run("", "explain", "--grammar", g.toString());
    assertTrue(r.out().contains("regular grammar: one DFA") && r.out().contains("jump"), r.out());
    java.nio.file.Files.writeString(g, "root ::= \"a\" value\n");
    r = run("", "explain", "--grammar", g.toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("line 1") && r.err().contains("value"), r.err());
    r = run("", "match", "--grammar", "/nonexistent/g.gbnf");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("grammar file not found: /nonexistent/g.gbnf"), r.err());
    java.nio.file.Files.delete(g);
  }
}
