package dev.leap.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.ByteAutomaton;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code leap match}: one JSON string per stdin line; prints whether each whole text matches. */
@Command(
    name = "match",
    mixinStandardHelpOptions = true,
    description =
        "Read JSON Lines from stdin (each line one JSON string) and print true or false per line:"
            + " does the whole text match the constraint.")
public final class MatchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ConstraintOptionsMixin constraint;

  @Override
  public Integer call() throws Exception {
    ConstraintOptionsMixin.Compiled compiled = constraint.compile();
    ObjectMapper mapper = Json.MAPPER;
    PrintWriter out = spec.commandLine().getOut();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    int n = 0;
    while ((line = in.readLine()) != null) {
      n++;
      JsonNode node;
      try {
        node = mapper.readTree(line);
      } catch (JsonProcessingException e) {
        out.flush();
        throw new CliError("line " + n + " of stdin is not JSON: " + e.getOriginalMessage());
      }
      if (node == null || !node.isTextual()) {
        out.flush();
        throw new CliError(
            "line "
                + n
                + " of stdin is not a JSON string (each line must be one, e.g. \"text\\n\")");
      }
      ByteAutomaton a = compiled.automaton();
      int state = a.walk(a.initialState(), node.asText().getBytes(StandardCharsets.UTF_8));
      out.println(state != ByteAutomaton.DEAD && a.isAccepting(state));
    }
    out.flush();
    return 0;
  }
}
