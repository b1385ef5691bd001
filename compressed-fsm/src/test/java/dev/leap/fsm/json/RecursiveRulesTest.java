package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ConstraintException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecursiveRulesTest {
  static final String TREE = "{\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},"
      + "\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}},\"required\":[\"v\"]}},"
      + "\"$ref\":\"#/$defs/node\"}";

  static String tree(int depth) {
    return depth == 0 ? "{\"v\":0}" : "{\"v\":" + depth + ",\"kids\":[" + tree(depth - 1) + "," + tree(depth - 1) + "]}";
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
    JsonSchema.Compiled c = JsonSchema.compileDetailed(TREE, JsonSchemaOptions.defaults().withMaxDfaStates(40));
    assertTrue(c.grammar().isPresent());
    System.out.println(c.grammar().get().describe());
    assertEquals(List.of("root", "#/$defs/node"), c.grammar().get().compiledRules());
    for (int d = 0; d < 8; d++) {
      assertTrue(CompiledMatch.matches(c, tree(d)), "depth " + d);
    }
    assertFalse(CompiledMatch.matches(c, "{\"v\":1,\"kids\":[{\"kids\":[]}]}"), "v is required at every level");
    assertFalse(CompiledMatch.matches(c, "{\"v\":1,\"kids\":[{\"v\":1.5}]}"));
    assertFalse(CompiledMatch.matches(c, "{\"v\":1,\"kids\":[{\"v\":1}]"));
    ConstraintException e = assertThrows(ConstraintException.class, c::fsm);
    assertTrue(e.getMessage().contains("#/$defs/node"), e.getMessage());
  }
}
