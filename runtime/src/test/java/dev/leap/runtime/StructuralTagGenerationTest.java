package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.fsm.tags.ReasoningGate;
import dev.leap.fsm.tags.StructuralTags;
import dev.leap.runtime.testing.TestModels;
import dev.leap.testkit.NaiveTags;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Structural tags and reasoning gates inside continuous batching, on a small random model with
 * GPT-2's tokenizer, invariant checks on: complete outputs are accepted by the naive twin ({@link
 * NaiveTags}, from the definitions), cut outputs are prefixes of the constraint's DFA, the forced
 * text after a trigger (the rest of the begin, the content's start) and at a tag's end is jumped,
 * and a bad tag is an error result while the other requests of the batch go on.
 *
 * <p>The trigger is {@code "e"} so that a random model starts tags often: every token that ends
 * with an {@code e} opens one.
 */
class StructuralTagGenerationTest {
  static final String NUMBERS = "[0-9]{1,3}( [0-9]{1,3})?";
  static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0,"
          + "\"maximum\":99}},\"required\":[\"n\"]}";
  static final String F = "e<call name=\"f\">";
  static final String G = "e<call name=\"g\">";
  static final String H = "e<call name=\"h\">";
  static final String END = "</call>";

  static Constraint tags() {
    return Constraint.structuralTag(
        List.of("e"),
        List.of(
            new Constraint.Tag(F, Constraint.regex(NUMBERS), END),
            new Constraint.Tag(G, Constraint.choice("yes", "no"), END),
            new Constraint.Tag(H, Constraint.jsonSchema(SCHEMA), END)));
  }

  static Constraint gate() {
    return Constraint.afterReasoning("e", Constraint.regex("\\{\"n\": [0-9]{1,2}\\}"));
  }

  /**
   * The twin of {@link #tags()}: contents by {@code java.util.regex}, the schema's by its own DFA.
   */
  static final CompressedFsm SCHEMA_FSM = JsonSchema.compile(SCHEMA, JsonSchemaOptions.defaults());

  static boolean tagsTwin(String s) {
    Pattern numbers = Pattern.compile(NUMBERS);
    CompressedFsm schema = SCHEMA_FSM;
    Predicate<String> json = t -> schema.dfa().matches(t.getBytes(StandardCharsets.UTF_8));
    return NaiveTags.tags(
        s,
        List.of("e"),
        List.of(
            new NaiveTags.Tag(F, t -> numbers.matcher(t).matches(), END),
            new NaiveTags.Tag(G, t -> t.equals("yes") || t.equals("no"), END),
            new NaiveTags.Tag(H, json, END)));
  }

  static boolean gateTwin(String s) {
    Pattern p = Pattern.compile("\\{\"n\": [0-9]{1,2}\\}");
    return NaiveTags.gate(s, "e", ReasoningGate.MAX_NEWLINES, t -> p.matcher(t).matches());
  }

  /** The DFA the runtime should have compiled, built here from the compressed-fsm API directly. */
  static Dfa tagsDfa() {
    return StructuralTags.compile(
            List.of("e"),
            List.of(
                new StructuralTags.Tag(F, CompressedFsm.compile(NUMBERS), END),
                new StructuralTags.Tag(G, CompressedFsm.compile("yes|no"), END),
                new StructuralTags.Tag(
                    H, JsonSchema.compile(SCHEMA, JsonSchemaOptions.defaults()), END)))
        .dfa();
  }

  static Dfa gateDfa() {
    return ReasoningGate.compile("e", CompressedFsm.compile("\\{\"n\": [0-9]{1,2}\\}")).dfa();
  }

  @Test
  void outputsAgreeWithTheTwinAndTheForcedTextAfterATriggerIsJumped() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(1717);
    List<GenerationRequest> reqs = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      SamplingParams.Builder p =
          SamplingParams.builder().maxTokens(24 + rnd.nextInt(40)).seed(rnd.nextLong());
      if (rnd.nextInt(3) > 0) {
        p.temperature(0.7 + rnd.nextDouble());
      }
      GenerationRequest r =
          GenerationRequest.of(
              i % 2 == 0 ? "Answer:" : "The tools:", i % 4 == 1 ? gate() : tags(), p.build());
      reqs.add(i % 8 == 7 ? r.withJumpForward(false) : r);
    }
    Dfa tagsDfa = tagsDfa();
    Dfa gateDfa = gateDfa();
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).optCheckInvariants(true).build()) {
      List<Generation> out = rt.generateAll(reqs);
      int completeTags = 0;
      int completeGates = 0;
      int jumpedTags = 0;
      for (int i = 0; i < out.size(); i++) {
        Generation g = out.get(i);
        assertFalse(g.isError(), g.error());
        boolean isGate = reqs.get(i).constraint().kind() == Constraint.Kind.AFTER_REASONING;
        Dfa dfa = isGate ? gateDfa : tagsDfa;
        byte[] bytes = bytes(rt, g.tokenIds());
        int s = dfa.walk(dfa.initialState(), bytes);
        assertNotEquals(ByteAutomaton.DEAD, s, "output leaves the constraint: " + g);
        assertEquals(g.isComplete(), dfa.isAccepting(s), g.toString());
        if (g.finishReason() == FinishReason.STOP) {
          assertTrue(g.isComplete(), g.toString());
          assertTrue(isGate ? gateTwin(g.text()) : tagsTwin(g.text()), "the twin rejects " + g);
          completeGates += isGate ? 1 : 0;
        } else {
          assertEquals(FinishReason.LENGTH, g.finishReason(), g.toString());
        }
        if (!isGate) {
          // Free text never has to end, so tag outputs stop at maxTokens: compare the twin and the
          // DFA
          // on every prefix of the output (each a text the model might have stopped at).
          String text = new String(bytes, StandardCharsets.UTF_8);
          for (int k = 0;
              k <= text.length();
              k = k < text.length() ? text.offsetByCodePoints(k, 1) : k + 1) {
            String prefix = text.substring(0, k);
            if (prefix.indexOf('\uFFFD') >= 0) {
              break; // the output's bytes end inside a UTF-8 sequence
            }
            assertEquals(
                dfa.matches(prefix.getBytes(StandardCharsets.UTF_8)),
                tagsTwin(prefix),
                "prefix " + prefix);
          }
          if (text.contains(END) && completeTags++ == 0) {
            System.out.println(
                "structural tags, an output: " + g.text().replace("\n", "\\n") + " " + g.stats());
          }
        }
        if (!isGate
            && g.text().contains("e<call name=\"")
            && reqs.get(i).jumpForward() != Boolean.FALSE) {
          // `<call name="` after the trigger is forced (12 bytes): jumped, less what retokenization
          // merged.
          assertTrue(
              g.stats().jumps() >= 1 && g.stats().bytesJumped() >= 8,
              "no jump after the trigger: " + g);
          jumpedTags++;
        }
      }
      System.out.printf(
          "structural tags: %d outputs with a closed tag, %d complete gates, %d outputs jumped after a trigger%n",
          completeTags, completeGates, jumpedTags);
      assertTrue(
          completeTags >= 3,
          "only " + completeTags + " outputs hold a closed tag: the test checks little");
      assertTrue(completeGates >= 2, "only " + completeGates + " gates completed");
      assertTrue(jumpedTags >= 5, "only " + jumpedTags + " outputs opened a tag");
    }
  }

  @Test
  void aBadTagIsAnErrorResultAndTheOtherRequestsGoOn() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    Constraint noTrigger =
        Constraint.structuralTag(
            List.of("<tool_call>"),
            List.of(
                new Constraint.Tag("<tool_call>", Constraint.regex("[0-9]+"), "</tool_call>"),
                new Constraint.Tag("<function=f>", Constraint.regex("[0-9]+"), "</function>")));
    Constraint recursive =
        Constraint.structuralTag(
            List.of("<tool_call>"),
            List.of(new Constraint.Tag("<tool_call>", Constraint.jsonObject(), "</tool_call>")));
    Constraint badRegex =
        Constraint.afterReasoning(
            "</think>",
            Constraint.structuralTag(
                List.of("<a>"),
                List.of(new Constraint.Tag("<a>", Constraint.regex("[0-9"), "</a>"))));
    SamplingParams p = SamplingParams.builder().maxTokens(30).build();
    List<GenerationRequest> reqs =
        List.of(
            GenerationRequest.of("x", tags(), p), GenerationRequest.of("x", noTrigger, p),
            GenerationRequest.of("y", gate(), p), GenerationRequest.of("x", recursive, p),
            GenerationRequest.of("z", tags(), p), GenerationRequest.of("x", badRegex, p));
    try (LeapRuntime rt = LeapRuntime.builder().setModelDir(dir).build()) {
      List<Generation> out = rt.generateAll(reqs);
      for (int i : new int[] {0, 2, 4}) {
        assertFalse(out.get(i).isError(), out.get(i).error());
        assertFalse(out.get(i).tokenIds().length == 0, out.get(i).toString());
      }
      String e1 = out.get(1).error();
      assertTrue(
          out.get(1).isError()
              && e1.contains("tag 1")
              && e1.contains("<function=f>")
              && e1.contains("does not start with any trigger"),
          e1);
      String e3 = out.get(3).error();
      assertTrue(out.get(3).isError() && e3.contains("tag 0") && e3.contains("recursion"), e3);
      String e5 = out.get(5).error();
      assertTrue(
          out.get(5).isError()
              && e5.contains("after \"</think>\"")
              && e5.contains("tag 0")
              && e5.contains("[0-9"),
          e5);
    }
  }

  @Test
  void cacheKeysHoldEveryPart() {
    Constraint.StructuralTag a =
        Constraint.structuralTag(
            List.of("<a"), List.of(new Constraint.Tag("<a>", Constraint.regex("x"), "</a>")));
    assertEquals(
        a,
        Constraint.structuralTag(
            List.of("<a"), List.of(new Constraint.Tag("<a>", Constraint.regex("x"), "</a>"))));
    List<Constraint> different =
        List.of(
            a,
            Constraint.structuralTag(
                List.of("<a", "<b"),
                List.of(new Constraint.Tag("<a>", Constraint.regex("x"), "</a>"))),
            Constraint.structuralTag(
                List.of("<a"), List.of(new Constraint.Tag("<a>>", Constraint.regex("x"), "</a>"))),
            Constraint.structuralTag(
                List.of("<a"), List.of(new Constraint.Tag("<a>", Constraint.regex("y"), "</a>"))),
            Constraint.structuralTag(
                List.of("<a"),
                List.of(new Constraint.Tag("<a>", Constraint.jsonSchema("{}"), "</a>"))),
            Constraint.structuralTag(
                List.of("<a"),
                List.of(new Constraint.Tag("<a>", Constraint.jsonSchema("{}", 2), "</a>"))),
            Constraint.structuralTag(
                List.of("<a"),
                List.of(
                    new Constraint.Tag("<a>", Constraint.regex("x"), "</a>"),
                    new Constraint.Tag("<a>", Constraint.regex("x"), "</a>"))),
            Constraint.structuralTag(
                List.of("<a"), List.of(new Constraint.Tag("<a>", Constraint.regex("x"), ""))),
            Constraint.afterReasoning("</think>", a),
            Constraint.afterReasoning("</think>", Constraint.regex("x")),
            Constraint.afterReasoning("</thinking>", Constraint.regex("x")),
            Constraint.regex("x"));
    for (int i = 0; i < different.size(); i++) {
      for (int j = i + 1; j < different.size(); j++) {
        assertNotEquals(
            different.get(i).cacheKey(),
            different.get(j).cacheKey(),
            different.get(i) + " vs " + different.get(j));
      }
    }
    // Length prefixes: a separator inside a part cannot make two constraints collide.
    assertNotEquals(
        Constraint.structuralTag(
                List.of("a:1:b"), List.of(new Constraint.Tag("a:1:b", Constraint.regex("x"), "")))
            .cacheKey(),
        Constraint.structuralTag(
                List.of("a", "b"), List.of(new Constraint.Tag("a:1:b", Constraint.regex("x"), "")))
            .cacheKey());
    assertThrows(
        IllegalArgumentException.class, () -> new Constraint.Tag("<a>", Constraint.none(), ""));
    assertThrows(
        IllegalArgumentException.class,
        () -> Constraint.afterReasoning("</think>", Constraint.none()));
    assertEquals(Constraint.Kind.STRUCTURAL_TAG, a.kind());
    assertEquals(List.of("<a"), a.triggers());
    assertEquals("</think>", Constraint.afterReasoning("</think>", a).endMarker());
  }

  static byte[] bytes(LeapRuntime rt, int[] ids) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int id : ids) {
      byte[] b = rt.tokenizer().tokenBytes(id);
      if (b != null) {
        out.write(b, 0, b.length);
      }
    }
    return out.toByteArray();
  }
}
