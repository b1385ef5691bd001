package dev.leap.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.TokenIndex;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.vocab.TokenizerJsonVocabulary;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap explain}: the compiled automaton's states, jump edges, and (with a tokenizer) mask
 * sizes.
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = "Compile a constraint and show its states, jump edges and compile time.")
public final class ExplainCommand implements Callable<Integer>, JsonOutput {

  @Spec CommandSpec spec;

  @Mixin ConstraintOptionsMixin constraint;

  @Option(
      names = "--tokenizer",
      paramLabel = "FILE",
      description =
          "A tokenizer.json: also build the token index and report each state's allowed-token count.")
  Path tokenizer;

  @Option(
      names = "--json",
      description = "Print one JSON object: initialState, compileMs, indexMs, states.")
  boolean json;

  @Override
  public boolean json() {
    return json;
  }

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    ConstraintOptionsMixin.Compiled compiled = constraint.compile();
    double compileMs = (System.nanoTime() - t0) / 1e6;
    PrintWriter out = spec.commandLine().getOut();
    if (compiled.fsm() == null) {
      explainGrammar(out, compiled.grammar(), compileMs);
      out.flush();
      return 0;
    }
    CompressedFsm fsm = compiled.fsm();
    TokenIndex index = null;
    double indexMs = 0;
    if (tokenizer != null) {
      TokenizerJsonVocabulary vocab = TokenizerJsonVocabulary.load(tokenizer);
      long t1 = System.nanoTime();
      index = TokenIndex.of(fsm.dfa(), vocab).buildAll();
      indexMs = (System.nanoTime() - t1) / 1e6;
    }
    ObjectNode report = report(fsm, index, compileMs, indexMs);
    if (compiled.grammar() != null) {
      report.put("grammar", compiled.grammar().describe());
    }
    if (json) {
      out.println(Json.MAPPER.writeValueAsString(report));
    } else {
      if (compiled.grammar() != null) {
        out.print(compiled.grammar().describe());
      }
      printText(out, fsm, index, report);
    }
    out.flush();
    return 0;
  }

  /**
   * A grammar with recursion: its rules (inlined or called through the stack) and, with a
   * tokenizer, its token sets.
   */
  private void explainGrammar(PrintWriter out, Grammar g, double compileMs) throws Exception {
    CompiledGrammar cg = null;
    if (tokenizer != null) {
      cg = CompiledGrammar.compile(g, TokenizerJsonVocabulary.load(tokenizer));
    }
    if (json) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("source", g.source());
      o.put("recursive", true);
      o.put("compileMs", compileMs);
      o.put("grammar", g.describe());
      ArrayNode rules = o.putArray("stackRules");
      g.compiledRules().forEach(rules::add);
      if (cg != null) {
        o.put("indexMs", cg.compileMs());
        o.put("stackTopStates", cg.stackTopStates());
        o.put("uncertainTokensTotal", cg.uncertainTotal());
        o.put("uncertainTokensMax", cg.uncertainMax());
      } else {
        o.putNull("indexMs");
      }
      out.println(Json.MAPPER.writeValueAsString(o));
      return;
    }
    out.print(g.describe());
    out.printf("compile: %.2f ms%n", compileMs);
    if (cg != null) {
      out.println("token sets: " + cg.describe());
    }
  }

  /** The report as JSON: one row per state. */
  static ObjectNode report(CompressedFsm fsm, TokenIndex index, double compileMs, double indexMs) {
    ObjectMapper m = Json.MAPPER;
    ObjectNode o = m.createObjectNode();
    o.put("source", fsm.source());
    o.put("initialState", fsm.dfa().initialState());
    o.put("stateCount", fsm.stateCount());
    o.put("compileMs", compileMs);
    if (index != null) {
      o.put("indexMs", indexMs);
    } else {
      o.putNull("indexMs");
    }
    ArrayNode states = o.putArray("states");
    Dfa dfa = fsm.dfa();
    for (int s = 0; s < fsm.stateCount(); s++) {
      ObjectNode row = states.addObject();
      row.put("id", s);
      row.put("accepting", dfa.isAccepting(s));
      if (fsm.hasJump(s)) {
        row.put("jump", fsm.jumpString(s));
        row.put("jumpTarget", fsm.jumpTarget(s));
      } else {
        row.putNull("jump");
      }
      if (index != null) {
        row.put("allowedTokens", index.allowedCount(s));
      }
    }
    return o;
  }

  private static void printText(
      PrintWriter out, CompressedFsm fsm, TokenIndex index, ObjectNode report) throws Exception {
    ObjectMapper m = Json.MAPPER;
    int jumps = 0;
    int accepting = 0;
    for (int s = 0; s < fsm.stateCount(); s++) {
      jumps += fsm.hasJump(s) ? 1 : 0;
      accepting += fsm.dfa().isAccepting(s) ? 1 : 0;
    }
    out.printf(
        "states: %d (%d accepting), initial %d, byte classes %d, jump edges %d%n",
        fsm.stateCount(), accepting, fsm.dfa().initialState(), fsm.dfa().classCount(), jumps);
    out.printf(
        "compile: %.2f ms%s%n",
        report.get("compileMs").asDouble(),
        index == null
            ? ""
            : String.format(
                ", token index (all states): %.2f ms", report.get("indexMs").asDouble()));
    for (int s = 0; s < fsm.stateCount(); s++) {
      StringBuilder line = new StringBuilder();
      line.append(
          String.format("  state %4d%s", s, fsm.dfa().isAccepting(s) ? " (accepting)" : ""));
      if (index != null) {
        line.append(String.format("  allowed tokens %d", index.allowedCount(s)));
      }
      if (fsm.hasJump(s)) {
        line.append("  jump ")
            .append(m.writeValueAsString(fsm.jumpString(s)))
            .append(" -> ")
            .append(fsm.jumpTarget(s));
      }
      out.println(line);
    }
  }
}
