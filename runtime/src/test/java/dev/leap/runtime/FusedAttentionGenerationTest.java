package dev.leap.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.runtime.testing.TestModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code optFusedAttention}: the runtime with PyTorch's fused attention gives the outputs it gives
 * without (seeded constrained requests, greedy and sampled, short prompts and long ones that share
 * a cached prefix, all at once so that prefills, extensions and decodes share passes); a mode that
 * is not auto, on or off is refused. The numbers: {@code dev.leap.model.SdpaAttentionTest}.
 */
class FusedAttentionGenerationTest {

  @Test
  void fusedAttentionChangesNoOutput() {
    Path dir = TestModels.dir("llama", TestModels.llama());
    SplittableRandom rnd = new SplittableRandom(2612);
    String prefix =
        "Notes. " + "The river runs north past the mill and the old bridge. ".repeat(12);
    List<GenerationRequest> reqs = new ArrayList<>();
    for (ConstrainedGenerationTest.Case c : ConstrainedGenerationTest.cases(2612, 24)) {
      GenerationRequest r = c.request();
      reqs.add(
          rnd.nextBoolean()
              ? r
              : GenerationRequest.of(prefix + r.prompt(), r.constraint(), r.params()));
    }
    List<List<Generation>> outs = new ArrayList<>();
    for (String mode : new String[] {"off", "on"}) {
      try (LeapRuntime rt =
          LeapRuntime.builder().setModelDir(dir).optFusedAttention(mode).build()) {
        outs.add(rt.generateAll(reqs));
      }
    }
    int long_ = 0;
    for (int i = 0; i < reqs.size(); i++) {
      Generation off = outs.get(0).get(i);
      Generation on = outs.get(1).get(i);
      assertFalse(off.isError(), off.toString());
      assertArrayEquals(off.tokenIds(), on.tokenIds(), "request " + i + ": " + on + " / " + off);
      assertEquals(off.finishReason(), on.finishReason(), "request " + i);
      long_ += reqs.get(i).prompt().startsWith("Notes.") ? 1 : 0;
    }
    assertTrue(long_ >= 4 && long_ <= 20, long_ + " long prompts: the draw tests too little");
  }

  @Test
  void anUnknownModeIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LeapRuntime.builder().optFusedAttention("fast"));
    assertTrue(e.getMessage().contains("auto, on or off"), e.getMessage());
  }
}
