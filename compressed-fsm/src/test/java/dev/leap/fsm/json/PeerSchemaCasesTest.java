package dev.leap.fsm.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.EmptyLanguageException;
import dev.leap.testkit.Shared;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The JSON Schemas and instances that seven peer projects give their own matchers in their tests
 * ({@code corpora/peer-test-suites/cases.json}), as a conformance test of {@link JsonSchema}.
 *
 * <p>Each schema is compiled once with the defaults (compact JSON). The truth for each instance
 * comes from an independent validator, networknt's {@code json-schema-validator}, with {@code
 * format} asserted (draft 2020-12 unless the schema names its draft; nothing fetched). An instance
 * is serialized compactly with its keys in its own order and in the order Leap generates them
 * ({@link KeyOrder}); it counts as accepted if either is (as in {@link JsonSchemaSuiteTest}). A
 * {@code text} instance (a raw string that is not JSON) is invalid and is matched as it is.
 *
 * <p>The test fails on any invalid instance accepted that {@link #KNOWN} does not list as a
 * difference of the validator from the specification, each with its reason, and on a listed one
 * that no longer occurs. Valid instances rejected are Leap's documented generation rules ({@code
 * docs/json-schema.md}), counted per source by the rule they meet ({@link #whyRejected}); those of
 * no recognised rule are printed.
 *
 * <p>The validator errs both ways. Narrower than the specification: the instances in {@link
 * #KNOWN}. Wider: it calls valid some {@code date-time} and {@code time} strings with text after
 * the offset ({@code "1963-06-19T08:30:06Zx"}, {@code "23:59:60+00:00x"}); Leap rejects them, so
 * they count as valid rejected under {@code format} (a wider validator can hide a wrong answer,
 * never invent one; Leap's {@code time} ends at the offset, see {@code Formats}, and its {@code
 * date} is checked against {@code java.time} in {@link JsonSchemaExactTest}).
 */
class PeerSchemaCasesTest {
  static final String CASES = "corpora/peer-test-suites/cases.json";
  static final ObjectMapper M = new ObjectMapper();

  private static final String TLD =
      "networknt checks an e-mail's top-level domain against IANA's list; RFC 5321's"
          + " Mailbox (format: email) asks only for the syntax, which this address meets";

  /**
   * Invalid instances that Leap accepts, by compact text, where the validator is wrong (narrower
   * than the specification), each with its reason.
   */
  static final Map<String, String> KNOWN =
      known(
          "\"example@s.example\"", TLD,
          "\"example@s.exampl\"", TLD,
          "\"FirstName.LastName@EasierReading.orgx\"", TLD,
          "\"FirstName.LastName@EasierReading.or\"", TLD,
          "\"x@example.comx\"", TLD,
          "\"mailhost!username@example.or\"", TLD,
          "\"user.name+tag+sorting@example.comx\"", TLD,
          "\"very.common@example.comx\"", TLD,
          "\"~test@example.comx\"", TLD,
          "\"joe.bloggs@example.comx\"", TLD,
          "\"te~st@example.comx\"", TLD,
          "\"user_name@example.co.ukx\"", TLD,
          "\"user@example.comx\"", TLD,
          "\"2020-06-15T10:00:00+23:59\"",
              "RFC 3339's time-numoffset allows hours 00-23; networknt reads offsets with"
                  + " java.time, which stops at +18:00");

  static final class Row {
    int schemas;
    int compiled;
    final Map<String, Integer> unsupported = new TreeMap<>();
    int instances;
    int agree;
    int valid;
    int validAccepted;
    int invalidAccepted;
    int validatorErrors;
    final Map<String, Integer> rejectedBecause = new TreeMap<>();
  }

  @Test
  void peerInstancesAgreeWithAValidator() throws IOException {
    Path file = Shared.require(CASES);
    JsonNode root = M.readTree(file.toFile());
    Map<String, Row> bySource = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    List<String> rejectedValid = new ArrayList<>();
    Set<String> knownSeen = new LinkedHashSet<>();
    long start = System.nanoTime();
    for (JsonNode c : root.get("schema")) {
      String source = c.get(0).asText();
      String where = c.get(1).asText();
      JsonNode schemaNode = c.get(2);
      Row row = bySource.computeIfAbsent(source, k -> new Row());
      row.schemas++;
      Schema validator = validator(schemaNode);
      CompressedFsm fsm;
      try {
        fsm = JsonSchema.compile(schemaNode.toString(), JsonSchemaOptions.defaults());
      } catch (EmptyLanguageException e) {
        fsm = null; // accepts nothing
      } catch (JsonSchemaException e) {
        row.unsupported.merge(e.keyword(), 1, Integer::sum);
        continue;
      } catch (AutomatonTooLargeException e) {
        row.unsupported.merge("automaton too large", 1, Integer::sum);
        continue;
      } catch (ConstraintException e) {
        row.unsupported.merge(e.getClass().getSimpleName(), 1, Integer::sum);
        continue;
      }
      row.compiled++;
      for (JsonNode inst : c.get(3)) {
        boolean isText = inst.get(0).asText().equals("text");
        JsonNode payload = inst.get(1);
        boolean truth;
        boolean leap;
        String shown;
        if (isText) {
          truth = false;
          shown = payload.asText();
          leap = fsm != null && fsm.dfa().matches(shown.getBytes(StandardCharsets.UTF_8));
        } else {
          truth = validator.validate(payload).isEmpty();
          shown = M.writeValueAsString(payload);
          String ordered = M.writeValueAsString(KeyOrder.schemaOrder(payload, schemaNode));
          leap =
              fsm != null
                  && (fsm.dfa().matches(shown.getBytes(StandardCharsets.UTF_8))
                      || fsm.dfa().matches(ordered.getBytes(StandardCharsets.UTF_8)));
        }
        row.instances++;
        row.valid += truth ? 1 : 0;
        row.validAccepted += truth && leap ? 1 : 0;
        if (truth == leap) {
          row.agree++;
        } else if (leap) {
          String key = shown;
          if (KNOWN.containsKey(key)) {
            knownSeen.add(key);
            row.validatorErrors++;
          } else {
            row.invalidAccepted++;
            wrong.add(
                source
                    + " "
                    + where
                    + ": schema "
                    + schemaNode
                    + " accepts invalid "
                    + shown
                    + " "
                    + errors(validator, payload, isText));
          }
        } else {
          String why = whyRejected(fsm, schemaNode, payload);
          row.rejectedBecause.merge(why, 1, Integer::sum);
          rejectedValid.add(
              why
                  + ": "
                  + source
                  + " "
                  + where
                  + ": schema "
                  + schemaNode
                  + " rejects valid "
                  + shown);
        }
      }
    }
    System.out.print(table(bySource));
    System.out.printf(
        "in %.1f s; valid instances rejected for other rules:%n",
        (System.nanoTime() - start) / 1e9);
    rejectedValid.stream()
        .filter(r -> r.startsWith(OTHER))
        .sorted()
        .forEach(r -> System.out.println("  " + r));
    if (!wrong.isEmpty()) {
      fail(wrong.size() + " invalid instances accepted:\n" + String.join("\n", wrong));
    }
    assertEquals(KNOWN.keySet(), knownSeen, "listed truth differences that no longer occur");
    int instances = bySource.values().stream().mapToInt(r -> r.instances).sum();
    assertTrue(instances > 15000, "too few instances checked: " + instances);
  }

  static final String SPELLING = "number spelling";
  static final String BEYOND = "members beyond properties";
  static final String OTHER = "other";
  static final ObjectMapper PLAIN =
      new ObjectMapper()
          .enable(com.fasterxml.jackson.core.JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

  /**
   * Why Leap rejects a valid instance, by which documented generation rule it meets: accepted once
   * its numbers are written as Leap writes them ({@code 1} for {@code 1.0}, no exponent): {@link
   * #SPELLING}; accepted once members that {@code properties} does not list are removed: {@link
   * #BEYOND}; else {@code format} or {@code pattern} when the schema has one (Leap generates a
   * subset of a format's strings; a pattern outside the dialect is narrowed), else "other".
   */
  static String whyRejected(CompressedFsm fsm, JsonNode schema, JsonNode value) throws IOException {
    if (fsm == null) {
      return "empty language";
    }
    JsonNode plain = plainNumbers(value);
    if (acceptsAnyOrder(fsm, plain, schema)) {
      return SPELLING;
    }
    JsonNode pruned = listedOnly(plain, schema, schema, 0);
    if (acceptsAnyOrder(fsm, pruned, schema)) {
      return BEYOND;
    }
    String text = schema.toString();
    return text.contains("\"format\"")
        ? "format"
        : text.contains("\"pattern\"") ? "pattern" : OTHER;
  }

  private static boolean acceptsAnyOrder(CompressedFsm fsm, JsonNode v, JsonNode schema)
      throws IOException {
    return fsm.dfa().matches(PLAIN.writeValueAsBytes(v))
        || fsm.dfa().matches(PLAIN.writeValueAsBytes(KeyOrder.schemaOrder(v, schema)));
  }

  /**
   * {@code v} with every number as Leap writes it: whole numbers without a fraction, no exponent.
   */
  static JsonNode plainNumbers(JsonNode v) {
    if (v.isNumber()) {
      java.math.BigDecimal d = new java.math.BigDecimal(v.asText()).stripTrailingZeros();
      return d.scale() <= 0
          ? M.getNodeFactory().numberNode(d.toBigIntegerExact())
          : M.getNodeFactory().numberNode(d);
    }
    if (v.isObject()) {
      com.fasterxml.jackson.databind.node.ObjectNode o = M.createObjectNode();
      v.fields().forEachRemaining(e -> o.set(e.getKey(), plainNumbers(e.getValue())));
      return o;
    }
    if (v.isArray()) {
      com.fasterxml.jackson.databind.node.ArrayNode a = M.createArrayNode();
      v.forEach(x -> a.add(plainNumbers(x)));
      return a;
    }
    return v;
  }

  /**
   * {@code v} without the members that no {@code properties} of {@code schema} lists (its own and
   * its {@code allOf}/{@code anyOf}/{@code oneOf} branches', local references followed),
   * recursively through listed members and {@code items}; an object whose schema lists none keeps
   * all.
   */
  static JsonNode listedOnly(JsonNode v, JsonNode schema, JsonNode root, int depth) {
    schema = deref(schema, root);
    if (depth > 16 || schema == null || !schema.isObject()) {
      return v;
    }
    if (v.isObject()) {
      Map<String, JsonNode> listed = new LinkedHashMap<>();
      collectProperties(schema, root, listed, 0);
      if (listed.isEmpty()) {
        return v;
      }
      com.fasterxml.jackson.databind.node.ObjectNode o = M.createObjectNode();
      v.fields()
          .forEachRemaining(
              e -> {
                if (listed.containsKey(e.getKey())) {
                  o.set(
                      e.getKey(),
                      listedOnly(e.getValue(), listed.get(e.getKey()), root, depth + 1));
                }
              });
      return o;
    }
    if (v.isArray() && schema.has("items")) {
      com.fasterxml.jackson.databind.node.ArrayNode a = M.createArrayNode();
      JsonNode items = schema.get("items");
      v.forEach(x -> a.add(listedOnly(x, items, root, depth + 1)));
      return a;
    }
    return v;
  }

  private static void collectProperties(
      JsonNode schema, JsonNode root, Map<String, JsonNode> out, int depth) {
    schema = deref(schema, root);
    if (depth > 8 || schema == null || !schema.isObject()) {
      return;
    }
    JsonNode props = schema.get("properties");
    if (props != null && props.isObject()) {
      props.fields().forEachRemaining(e -> out.putIfAbsent(e.getKey(), e.getValue()));
    }
    for (String k : new String[] {"allOf", "anyOf", "oneOf"}) {
      for (JsonNode branch : schema.path(k)) {
        collectProperties(branch, root, out, depth + 1);
      }
    }
  }

  /**
   * {@code schema} with local references ({@code #...} JSON pointers) followed, or null where one
   * does not resolve.
   */
  private static JsonNode deref(JsonNode schema, JsonNode root) {
    for (int i = 0; i < 8 && schema != null && schema.path("$ref").isTextual(); i++) {
      String ref = schema.get("$ref").asText();
      if (!ref.startsWith("#")) {
        return null;
      }
      JsonNode target = root.at(ref.substring(1));
      schema = target.isMissingNode() ? null : target;
    }
    return schema;
  }

  private static String errors(Schema validator, JsonNode payload, boolean isText) {
    if (isText) {
      return "(not JSON)";
    }
    return validator.validate(payload).stream().map(Error::toString).toList().toString();
  }

  /**
   * networknt's validator for {@code schema}: its own draft or 2020-12, {@code format} asserted,
   * nothing fetched.
   */
  static Schema validator(JsonNode schema) {
    // A base URI, so that a relative $id such as "customer" resolves as the specification says.
    return REGISTRY.getSchema(SchemaLocation.of("https://peer.test/schema.json"), schema);
  }

  static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(
          SpecificationVersion.DRAFT_2020_12,
          b ->
              b.schemaLoader(l -> l.fetchRemoteResources(false))
                  .schemaCacheEnabled(false)
                  .schemaRegistryConfig(
                      SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

  static String table(Map<String, Row> bySource) {
    StringBuilder sb =
        new StringBuilder(
            "Peers' test suites, JSON Schemas (truth: networknt json-schema-validator, format asserted)\n");
    sb.append(
        "| source | schemas | compiled | rejected as unsupported | instances | agree | valid accepted | invalid accepted"
            + " | validator errors (listed) | valid rejected, by rule |\n");
    sb.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
    Row total = new Row();
    for (Map.Entry<String, Row> e : bySource.entrySet()) {
      Row r = e.getValue();
      sb.append(line(e.getKey(), r));
      total.schemas += r.schemas;
      total.compiled += r.compiled;
      r.unsupported.forEach((k, v) -> total.unsupported.merge(k, v, Integer::sum));
      total.instances += r.instances;
      total.agree += r.agree;
      total.valid += r.valid;
      total.validAccepted += r.validAccepted;
      total.invalidAccepted += r.invalidAccepted;
      total.validatorErrors += r.validatorErrors;
      r.rejectedBecause.forEach((k, v) -> total.rejectedBecause.merge(k, v, Integer::sum));
    }
    sb.append(line("**total**", total));
    return sb.toString();
  }

  private static String line(String source, Row r) {
    int n = r.unsupported.values().stream().mapToInt(Integer::intValue).sum();
    StringBuilder why = new StringBuilder();
    r.unsupported.forEach(
        (k, v) -> why.append(why.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
    StringBuilder rules = new StringBuilder();
    r.rejectedBecause.forEach(
        (k, v) -> rules.append(rules.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
    return String.format(
        "| %s | %d | %d | %d%s | %d | %d | %d/%d | %d | %d | %s |%n",
        source,
        r.schemas,
        r.compiled,
        n,
        n == 0 ? "" : " (" + why + ")",
        r.instances,
        r.agree,
        r.validAccepted,
        r.valid,
        r.invalidAccepted,
        r.validatorErrors,
        rules);
  }

  static Map<String, String> known(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }
}
