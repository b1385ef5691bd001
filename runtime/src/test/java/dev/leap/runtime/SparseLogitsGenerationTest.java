package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * End to end, the constrained vocabulary projection changes no output: seeded random regexes (those
 * of {@link ConstrainedGenerationTest}), a recursive grammar and a JSON Schema, greedy and seeded
 * sampling, batched, run with the sparse projection off and with it on for every constrained step;
 * the token ids are the same request by request. In float32 and in float16 (where on the CPU the
 * full projection is FBGEMM's float16 GEMM with float32 logits and the constrained one a float32
 * product: masked in place by the sampler, and the same choices).
 */
class SparseLogitsGenerationTest {

  @ParameterizedTest
  @ValueSource(strings = {"f32", "f16"})
  void sparseProjectionGivesTheSameTokensAsTheFullOne(String dtype) {
    Path dir = TestModels.dir("llama", TestModels.llama());
    List<GenerationRequest> reqs = new ArrayList<>();
    for (ConstrainedGenerationTest.Case c : ConstrainedGenerationTest.cases(4242L, 60)) {
      reqs.add(c.request());
    }
    reqs.add(
        GenerationRequest.of(
            "Sum:",
            Constraint.grammar(
                "root ::= expr\nexpr ::= term ((\"+\" | \"-\") term)*\nterm ::= [0-9]{1,3} | \"(\" expr \")\""),
            SamplingParams.builder().maxTokens(24).build()));
    reqs.add(
        GenerationRequest.of(
            "Sum:",
            Constraint.grammar(
                "root ::= expr\nexpr ::= term ((\"+\" | \"-\") term)*\nterm ::= [0-9]{1,3} | \"(\" expr \")\""),
            SamplingParams.builder().maxTokens(24).temperature(0.9).seed(7).build()));
    reqs.add(
        GenerationRequest.of(
            "Person:",
            Constraint.jsonSchema(
                "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\"},\"ok\":{\"type\":\"boolean\"}},"
                    + "\"required\":[\"age\",\"ok\"]}"),
            SamplingParams.builder().maxTokens(30).build()));
    List<Generation> full;
    List<Generation> sparse;
    long sparsePasses;
    try (LeapRuntime rt =
        LeapRuntime.builder()
            .setModelDir(dir)
            .optDtype(dtype)
            .optSparseLogitsLimit(0)
            .optCheckInvariants(true)
            .build()) {
      full = rt.generateAll(reqs);
      assertEquals(0, rt.sparseLogitsPasses());
    }
    try (LeapRuntime rt =
        LeapRuntime.builder()
            .setModelDir(dir)
            .optDtype(dtype)
            .optSparseLogitsLimit(60_000)
            .optCheckInvariants(true)
            .build()) {
      sparse = rt.generateAll(reqs);
      sparsePasses = rt.sparseLogitsPasses();
      assertTrue(
          sparsePasses > 0 && sparsePasses <= rt.forwardPasses(),
          sparsePasses + " of " + rt.forwardPasses());
    }
    for (int i = 0; i < reqs.size(); i++) {
      Generation a = full.get(i);
      Generation b = sparse.get(i);
      assertFalse(a.isError() || b.isError(), a.error() + " / " + b.error());
      assertArrayEquals(
          a.tokenIds(),
          b.tokenIds(),
          "request "
              + i
              + " ("
              + reqs.get(i).constraint()
              + "): full "
              + a.text()
              + " | sparse "
              + b.text());
      assertEquals(a.finishReason(), b.finishReason());
    }
  }
}
