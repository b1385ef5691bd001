package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Any JSON value (where a schema is {@code true} or says nothing about a value), nested at most a
 * given depth: containers deeper than that are not generated. One shared node per (level as the
 * layout writes it, depth), embedded as a minimal automaton when the converter embeds automata.
 * When the converter writes recursion as rules ({@link RecursiveRules}), any value is instead a
 * call of the free-form value rule, nested without bound.
 */
final class AnyValues {
  private final Converter converter;
  private final Map<Long, Re> memo = new HashMap<>();

  AnyValues(Converter converter) {
    this.converter = converter;
  }

  /**
   * Any JSON value at nesting {@code level} with containers nested at most {@code depth} levels.
   */
  Re value(int level, int depth) {
    if (converter.rules != null) {
      return converter.rules.anyValue(); // nested without bound, through the stack
    }
    long key = ((long) converter.layout.levelKey(level) << 32) | depth;
    Re re = memo.get(key);
    if (re == null) {
      re = tree(level, depth);
      if (converter.automata) {
        re =
            new Re.Automaton(Automata.compile(re, "JSON Schema", converter.options.maxDfaStates()));
      }
      memo.put(key, re);
    }
    return re;
  }

  private Re tree(int level, int depth) {
    List<Re> options =
        new ArrayList<>(
            List.of(
                lit("null"),
                lit("true"),
                lit("false"),
                converter.numbers.number(JsonNodeFactory.instance.objectNode(), ""),
                StringValues.anyString()));
    if (depth > 0) {
      JsonLayout layout = converter.layout;
      String in = layout.newline(level + 1);
      String out = layout.newline(level);
      Re inner = value(level + 1, depth - 1);
      Re member = seq(lit(in), StringValues.anyString(), lit(layout.colon()), inner);
      options.add(
          alt(
              List.of(
                  lit("[]"),
                  seq(
                      lit("[" + in),
                      inner,
                      rep(seq(lit("," + in), inner), 0, -1),
                      lit(out + "]")))));
      options.add(
          alt(
              List.of(
                  lit("{}"),
                  seq(lit("{"), member, rep(seq(lit(","), member), 0, -1), lit(out + "}")))));
    }
    return alt(options);
  }
}
