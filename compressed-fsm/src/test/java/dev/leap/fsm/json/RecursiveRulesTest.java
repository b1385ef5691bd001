package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ConstraintException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Recursion as grammar rules ({@link RecursiveRules}): when a schema gets rules (only past the
 * state limit, compact layout, a recursive {@code $ref}), what the rules accept (recursion and
 * free-form values without depth bound, exactly the schema's constraints at every level), and the
 * checks that send a schema back to the unrolled DFA (left recursion, a rule that never finishes).
 */
class RecursiveRulesTest {
  static final String TREE =
      "{\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},"
          + "\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}},\"required\":[\"v\"]}},"
          + "\"$ref\":\"#/$defs/node\"}";

  static String tree(int depth) {
    return depth == 0
        ? "{\"v\":0}"
        : "{\"v\":" + depth + ",\"kids\":[" + tree(depth - 1) + "," + tree(depth - 1) + "]}";
  }

  @Test
  void smallRecursionStaysADfaUnrolled() {
    JsonSchema.Compiled c = JsonSchema.compileDetailed(TREE, JsonSchemaOptions.defaults());
    assertTrue(c.grammar().isEmpty());
    assertTrue(CompiledMatch.matches(c, tree(2)));
    assertFalse(CompiledMatch.matches(c, tree(3)), "unrolled 3 times: a fourth level is cut");
  }

  @Test
  void pastTheStateLimitRecursionBecomesARule() {
    JsonSchema.Compiled c =
        JsonSchema.compileDetailed(TREE, JsonSchemaOptions.defaults().withMaxDfaStates(40));
    assertTrue(c.grammar().isPresent());
    System.out.println(c.grammar().get().describe());
    assertEquals(List.of("root", "#/$defs/node"), c.grammar().get().compiledRules());
    for (int d = 0; d < 8; d++) {
      assertTrue(CompiledMatch.matches(c, tree(d)), "depth " + d);
    }
    assertFalse(
        CompiledMatch.matches(c, "{\"v\":1,\"kids\":[{\"kids\":[]}]}"),
        "v is required at every level");
    assertFalse(CompiledMatch.matches(c, "{\"v\":1,\"kids\":[{\"v\":1.5}]}"));
    assertFalse(CompiledMatch.matches(c, "{\"v\":1,\"kids\":[{\"v\":1}]"));
    ConstraintException e = assertThrows(ConstraintException.class, c::fsm);
    assertTrue(e.getMessage().contains("#/$defs/node"), e.getMessage());
  }

  @Test
  void freeFormValuesInAGrammarNestWithoutBound() {
    String schema =
        TREE.replace("\"required\":[\"v\"]", "\"required\":[\"v\"],\"additionalProperties\":true");
    JsonSchema.Compiled dfa = JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults());
    JsonSchema.Compiled rules =
        JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults().withMaxDfaStates(150));
    assertTrue(dfa.grammar().isEmpty());
    assertEquals(
        List.of("root", "#/$defs/node", RecursiveRules.VALUE),
        rules.grammar().get().compiledRules());
    String deep = "{\"v\":1,\"x\":[[[{\"y\":[null]}]]]}";
    assertFalse(CompiledMatch.matches(dfa, deep), "free-form values nest 2 levels in a DFA");
    assertTrue(CompiledMatch.matches(rules, deep));
    assertTrue(
        CompiledMatch.matches(
            rules, "{\"v\":1,\"kids\":[{\"v\":2,\"w\":{\"a\":[1,\"\\u00e9\",true]}}]}"));
    assertFalse(CompiledMatch.matches(rules, "{\"v\":1,\"x\":[1,]}"));
    assertFalse(
        CompiledMatch.matches(rules, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":3}]}"),
        "kids must be an array");
  }

  @Test
  void aReferenceWithSiblingKeywordsIsOneRuleForTheMerge() {
    String schema =
        "{\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"integer\"},"
            + "\"c\":{\"$ref\":\"#/$defs/n\",\"required\":[\"k\"]}}}},\"$ref\":\"#/$defs/n\"}";
    JsonSchema.Compiled c = JsonSchema.compileAsRules(schema, JsonSchemaOptions.defaults());
    List<String> rules = c.grammar().get().compiledRules();
    assertEquals(3, rules.size(), rules.toString());
    assertTrue(rules.get(2).startsWith("#/$defs/n with 1 sibling keywords"), rules.toString());
    String nested =
        "{\"c\":{\"k\":1,\"c\":{\"k\":2,\"c\":{\"k\":3,\"c\":{\"k\":4,\"c\":{\"k\":5}}}}}}";
    assertTrue(CompiledMatch.matches(c, nested));
    assertTrue(CompiledMatch.matches(c, "{}"));
    assertFalse(
        CompiledMatch.matches(c, "{\"c\":{\"k\":1,\"c\":{\"c\":{\"k\":3}}}}"),
        "k is required below the top");
  }

  @Test
  void leftRecursionAndNeverFinishingRulesAreRejectedByTheChecks() {
    ConstraintException left =
        assertThrows(
            ConstraintException.class,
            () ->
                JsonSchema.compileAsRules(
                    "{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"null\"}]}",
                    JsonSchemaOptions.defaults()));
    assertTrue(
        left.getMessage().contains("left-recursive") && left.getMessage().contains("\"#\""),
        left.getMessage());
    ConstraintException never =
        assertThrows(
            ConstraintException.class,
            () ->
                JsonSchema.compileAsRules(
                    "{\"type\":\"object\",\"properties\":{\"n\":{\"$ref\":\"#\"}},\"required\":[\"n\"]}",
                    JsonSchemaOptions.defaults()));
    assertTrue(never.getMessage().contains("never finishes"), never.getMessage());
    // compileDetailed keeps today's answers for both: the unrolled DFA (null only), and no value at
    // all.
    JsonSchema.Compiled nul =
        JsonSchema.compileDetailed(
            "{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"null\"}]}", JsonSchemaOptions.defaults());
    assertTrue(nul.grammar().isEmpty() && CompiledMatch.matches(nul, "null"));
  }

  @Test
  void theIndentedLayoutNeverGetsRules() {
    assertThrows(
        dev.leap.fsm.AutomatonTooLargeException.class,
        () ->
            JsonSchema.compileDetailed(
                TREE, JsonSchemaOptions.defaults().withIndent(2).withMaxDfaStates(40)));
  }

  @Test
  void describeSaysWhichRulesAreRecursive() {
    String d =
        JsonSchema.compileDetailed(TREE, JsonSchemaOptions.defaults().withMaxDfaStates(40))
            .grammar()
            .get()
            .describe();
    assertTrue(d.startsWith("context-free grammar: 2 rules called through the stack"), d);
    assertTrue(
        d.contains("  root: compiled, not recursive")
            && d.contains("  #/$defs/node: compiled, recursive"),
        d);
  }
}
