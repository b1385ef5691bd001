package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.fsm.Dfa;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonSchema#RULES_ABOVE_STATES}: a compact schema with a reference named from several
 * places whose automaton passes the size compiles as grammar rules, which accept exactly what the
 * DFA (the same schema without the rule) accepts. Over seeded generated schemas (a few definitions,
 * typed values only, so that no free-form value nests deeper in the rules), at a small size so that
 * the rule applies: texts drawn from the DFA by random walks are accepted by the rules, and texts
 * changed by a byte, cut or extended are accepted by both or by neither. Below the size, a schema
 * without a shared reference and the indented layout stay one DFA, identical to the twin's.
 */
class JsonSchemaRulesAboveTest {
  private static final ObjectMapper M = new ObjectMapper();
  private static final int SIZE = 150;

  @Test
  void aLargeAutomatonWithSharedReferencesBecomesRulesOfTheSameLanguage() throws Exception {
    long seed = 2741L;
    SplittableRandom r = new SplittableRandom(seed);
    int asRules = 0;
    int texts = 0;
    for (int k = 0; k < 30; k++) {
      String schema = schema(r, true);
      String what = "schema " + k + " (seed " + seed + "): " + schema;
      JsonNode root = M.readTree(schema);
      JsonSchemaOptions o = JsonSchemaOptions.defaults();
      JsonSchema.Compiled dfa = JsonSchema.compileDetailed(root, o, true, 0);
      JsonSchema.Compiled policy = JsonSchema.compileDetailed(root, o, true, SIZE);
      assertTrue(dfa.grammar().isEmpty(), what + ": one DFA without the rule");
      if (policy.grammar().isEmpty()) {
        assertTrue(
            dfa.fsm().dfa().stateCount() <= SIZE,
            what + ": a DFA of " + dfa.fsm().dfa().stateCount() + " states kept");
        continue;
      }
      asRules++;
      Predicate<byte[]> rules = CompiledMatch.of(policy);
      Dfa d = dfa.fsm().dfa();
      for (int i = 0; i < 40; i++) {
        byte[] text = walk(d, r);
        if (text == null) {
          continue;
        }
        texts++;
        String t = new String(text, StandardCharsets.UTF_8);
        assertTrue(rules.test(text), what + ": the rules reject " + t);
        for (byte[] changed : changes(text, r)) {
          assertEquals(
              d.matches(changed),
              rules.test(changed),
              what + ": " + new String(changed, StandardCharsets.UTF_8));
        }
      }
    }
    assertTrue(asRules >= 10, "the rule applied to " + asRules + " of 30");
    assertTrue(texts >= 300, texts + " texts compared");
  }

  @Test
  void belowTheSizeWithoutSharedReferencesOrIndentedItStaysTheDfa() throws Exception {
    SplittableRandom r = new SplittableRandom(2742L);
    for (int k = 0; k < 12; k++) {
      String unshared = schema(r, false);
      JsonNode root = M.readTree(unshared);
      JsonSchemaOptions compact = JsonSchemaOptions.defaults();
      JsonSchemaOptions indented = compact.withIndent(2);
      for (JsonSchemaOptions o : List.of(compact, indented)) {
        assertEquals(
            JsonSchemaLeanTest.outcome(root, o, true),
            outcome(root, o, SIZE),
            unshared + " with indent " + o.indent());
      }
      String shared = schema(r, true);
      JsonNode sroot = M.readTree(shared);
      assertEquals(
          JsonSchemaLeanTest.outcome(sroot, indented, true),
          outcome(sroot, indented, SIZE),
          "indented: " + shared);
      assertEquals(
          JsonSchemaLeanTest.outcome(sroot, compact, true),
          outcome(sroot, compact, 1_000_000),
          "below the size: " + shared);
    }
  }

  /**
   * A schema with many recursive sites (no DFA attempt: {@link JsonSchema#skipsLean}) and a shared
   * reference compiles as rules with the shared references as rules too: the same language as
   * recursion alone as rules ({@link JsonSchema#compileAsRules}), on seeded instances and their
   * changes.
   */
  @Test
  void manyRecursiveSitesWithSharedReferencesAcceptAsRecursionAlone() throws Exception {
    SplittableRandom r = new SplittableRandom(2743L);
    int texts = 0;
    for (int k = 0; k < 6; k++) {
      int sites = JsonSchema.LEAN_MAX_RECURSIVE_SITES + r.nextInt(6);
      StringBuilder props = new StringBuilder("\"id\":{\"enum\":[\"a\",\"bc\",\"d\"]}");
      for (int i = 0; i < sites; i++) {
        props.append(",\"p").append(i).append("\":");
        props.append(
            i % 2 == 0
                ? "{\"$ref\":\"#/$defs/n\"}"
                : "{\"type\":\"array\",\"maxItems\":2,\"items\":{\"$ref\":\"#/$defs/n\"}}");
      }
      props.append(",\"q0\":{\"$ref\":\"#/$defs/m\"},\"q1\":{\"$ref\":\"#/$defs/m\"}");
      String schema =
          "{\"$defs\":{\"m\":{\"enum\":[1,22]},\"n\":{\"type\":\"object\",\"properties\":{"
              + props
              + "}}},\"$ref\":\"#/$defs/n\"}";
      String what = "schema " + k + " (" + sites + " sites)";
      JsonSchema.Compiled policy = JsonSchema.compileDetailed(schema, JsonSchemaOptions.defaults());
      JsonSchema.Compiled recursion =
          JsonSchema.compileAsRules(schema, JsonSchemaOptions.defaults());
      assertTrue(policy.grammar().isPresent() && recursion.grammar().isPresent(), what);
      Predicate<byte[]> a = CompiledMatch.of(policy);
      Predicate<byte[]> b = CompiledMatch.of(recursion);
      for (int i = 0; i < 40; i++) {
        byte[] text = instance(r, sites, 0).getBytes(StandardCharsets.UTF_8);
        texts++;
        assertTrue(a.test(text), what + ": " + new String(text, StandardCharsets.UTF_8));
        assertTrue(b.test(text), what + ": " + new String(text, StandardCharsets.UTF_8));
        for (byte[] changed : changes(text, r)) {
          assertEquals(
              b.test(changed),
              a.test(changed),
              what + ": " + new String(changed, StandardCharsets.UTF_8));
        }
      }
    }
    assertTrue(texts >= 200, texts + " texts");
  }

  /** A compact instance of the schema above: members in order, each optional, nesting to 3. */
  private static String instance(SplittableRandom r, int sites, int depth) {
    List<String> members = new ArrayList<>();
    if (r.nextBoolean()) {
      members.add("\"id\":\"" + List.of("a", "bc", "d").get(r.nextInt(3)) + "\"");
    }
    for (int i = 0; i < sites && depth < 3; i++) {
      if (r.nextInt(sites) < 2) {
        String v;
        if (i % 2 == 0) {
          v = instance(r, sites, depth + 1);
        } else {
          List<String> items = new ArrayList<>();
          for (int j = r.nextInt(3); j > 0; j--) {
            items.add(instance(r, sites, depth + 1));
          }
          v = "[" + String.join(",", items) + "]";
        }
        members.add("\"p" + i + "\":" + v);
      }
    }
    for (String q : List.of("q0", "q1")) {
      if (r.nextBoolean()) {
        members.add("\"" + q + "\":" + (r.nextBoolean() ? "1" : "22"));
      }
    }
    return "{" + String.join(",", members) + "}";
  }

  /** {@link JsonSchemaLeanTest#outcome} of the policy's form with size {@code size}. */
  private static String outcome(JsonNode root, JsonSchemaOptions o, int size) {
    StringBuilder sb = new StringBuilder();
    JsonSchema.Compiled c = JsonSchema.compileDetailed(root, o, true, size);
    assertFalse(c.grammar().isPresent(), "rules where a DFA was expected");
    JsonSchemaLeanTest.table(c.fsm().dfa(), sb);
    sb.append("ignored ").append(c.ignored()).append("\nnarrowed ").append(c.narrowed());
    return sb.toString();
  }

  /**
   * A schema of two or three definitions (objects of enums, integers, bounded strings, arrays), the
   * first named from several places when {@code shared}, each at most once otherwise.
   */
  private static String schema(SplittableRandom r, boolean shared) {
    int defs = 2 + r.nextInt(2);
    StringBuilder d = new StringBuilder();
    for (int i = 0; i < defs; i++) {
      d.append(i == 0 ? "" : ",").append("\"d").append(i).append("\":{\"type\":\"object\"");
      d.append(",\"properties\":{");
      int props = 2 + r.nextInt(3);
      for (int p = 0; p < props; p++) {
        d.append(p == 0 ? "" : ",").append("\"k").append(i).append(p).append("\":");
        d.append(
            switch (r.nextInt(4)) {
              case 0 -> "{\"enum\":[\"alpha\",\"beta\",\"gamma" + p + "\"]}";
              case 1 ->
                  "{\"type\":\"integer\",\"minimum\":0,\"maximum\":" + (9 + r.nextInt(990)) + "}";
              case 2 -> "{\"type\":\"string\",\"maxLength\":" + (1 + r.nextInt(4)) + "}";
              default -> "{\"type\":\"array\",\"maxItems\":2,\"items\":{\"type\":\"boolean\"}}";
            });
      }
      d.append("},\"required\":[\"k").append(i).append("0\"]}");
    }
    StringBuilder root = new StringBuilder("{\"$defs\":{").append(d).append("},");
    root.append("\"type\":\"object\",\"properties\":{");
    List<String> members = new ArrayList<>();
    int uses = shared ? 2 + r.nextInt(4) : 1;
    for (int u = 0; u < uses; u++) {
      members.add(
          "\"u"
              + u
              + "\":"
              + (r.nextBoolean()
                  ? "{\"$ref\":\"#/$defs/d0\"}"
                  : "{\"type\":\"array\",\"maxItems\":2,\"items\":{\"$ref\":\"#/$defs/d0\"}}"));
    }
    for (int i = 1; i < defs; i++) {
      members.add("\"v" + i + "\":{\"$ref\":\"#/$defs/d" + i + "\"}");
    }
    root.append(String.join(",", members)).append("},\"required\":[\"u0\"]}");
    return root.toString();
  }

  /** A text of {@code d}'s language by a random walk (null if none within 2,000 bytes). */
  private static byte[] walk(Dfa d, SplittableRandom r) {
    byte[] out = new byte[2_000];
    int n = 0;
    int s = d.initialState();
    while (n < out.length) {
      if (d.isAccepting(s) && r.nextInt(4) == 0) {
        return Arrays.copyOf(out, n);
      }
      int[] next = new int[256];
      int count = 0;
      for (int b = 0; b < 256; b++) {
        if (d.step(s, b) != Dfa.DEAD) {
          next[count++] = b;
        }
      }
      if (count == 0) {
        return d.isAccepting(s) ? Arrays.copyOf(out, n) : null;
      }
      int b = next[r.nextInt(count)];
      out[n++] = (byte) b;
      s = d.step(s, b);
    }
    return null;
  }

  /** {@code text} with one byte changed, cut short, and with a byte more. */
  private static List<byte[]> changes(byte[] text, SplittableRandom r) {
    List<byte[]> out = new ArrayList<>();
    if (text.length > 0) {
      byte[] c = text.clone();
      String bytes = "{}[],:\"0a1 ";
      c[r.nextInt(c.length)] = (byte) bytes.charAt(r.nextInt(bytes.length()));
      out.add(c);
      out.add(Arrays.copyOf(text, r.nextInt(text.length)));
    }
    byte[] longer = Arrays.copyOf(text, text.length + 1);
    longer[text.length] = (byte) "}]\",0".charAt(r.nextInt(5));
    out.add(longer);
    return out;
  }
}
