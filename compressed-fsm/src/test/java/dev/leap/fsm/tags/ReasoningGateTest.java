package dev.leap.fsm.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.testkit.NaiveTags;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link ReasoningGate} against its naive twin ({@link NaiveTags#gate}: the first marker, up to two
 * newlines, the content by {@code java.util.regex}) on seeded random texts, texts drawn from the
 * DFA, a gate around structural tags; what is forced where; the errors.
 */
class ReasoningGateTest {
  static final String ANSWER = "\\{\"answer\": (yes|no)\\}";

  @Test
  void agreesWithTheNaiveTwinOnRandomTexts() {
    for (String marker : List.of("</think>", "aa", "→")) {
      CompressedFsm fsm = ReasoningGate.compile(marker, CompressedFsm.compile(ANSWER));
      Pattern p = Pattern.compile(ANSWER);
      Predicate<String> content = s -> p.matcher(s).matches();
      SplittableRandom rnd = new SplittableRandom(marker.hashCode());
      String[] pieces = {
        "<think>",
        "\n",
        "</think>",
        "</thi",
        "think>",
        marker,
        "a",
        "aa",
        "→",
        "é😀",
        "{\"answer\": yes}",
        "{\"answer\": no}",
        "{\"answer\": maybe}",
        "\n\n",
        " ",
        "x"
      };
      int accepted = 0;
      for (int i = 0; i < 5000; i++) {
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(0, 6);
        for (int k = 0; k < n; k++) {
          sb.append(pieces[rnd.nextInt(pieces.length)]);
        }
        if (rnd.nextBoolean()) {
          // Often the shape of an answer: reasoning, the marker, newlines, then something
          // content-like.
          sb.append(rnd.nextInt(6) == 0 ? "" : marker)
              .append("\n".repeat(rnd.nextInt(4)))
              .append(pieces[10 + rnd.nextInt(3)])
              .append(rnd.nextInt(4) == 0 ? pieces[rnd.nextInt(pieces.length)] : "");
        }
        String s = sb.toString();
        boolean expected = NaiveTags.gate(s, marker, ReasoningGate.MAX_NEWLINES, content);
        accepted += expected ? 1 : 0;
        assertEquals(
            expected,
            fsm.dfa().matches(s.getBytes(StandardCharsets.UTF_8)),
            marker + ": " + StructuralTagsTest.show(s));
      }
      assertTrue(accepted > 500 && accepted < 4500, marker + ": only " + accepted + " accepted");
      List<String> hints = List.of(marker, "\n", "{\"answer\": yes}", "<think>\n");
      int drawn = 0;
      for (int i = 0; i < 1000; i++) {
        byte[] b = StructuralTagsTest.walk(fsm.dfa(), rnd, 60, hints);
        if (b != null) {
          drawn++;
          String s = new String(b, StandardCharsets.UTF_8);
          assertTrue(
              NaiveTags.gate(s, marker, ReasoningGate.MAX_NEWLINES, content),
              StructuralTagsTest.show(s));
        }
      }
      assertTrue(drawn > 100, "only " + drawn + " texts drawn");
    }
  }

  @Test
  void aGateAroundStructuralTags() {
    StructuralTagsTest.Config cfg = StructuralTagsTest.TOOLS;
    CompressedFsm tags = StructuralTags.compile(cfg.triggers(), cfg.compiledTags());
    CompressedFsm fsm = ReasoningGate.compile("</think>", tags);
    SplittableRandom rnd = new SplittableRandom(17);
    int accepted = 0;
    for (int i = 0; i < 2000; i++) {
      String reasoning =
          rnd.nextInt(4) == 0 ? "" : "<think>\n" + StructuralTagsTest.randomText(cfg, rnd) + "\n";
      String s =
          reasoning
              + (rnd.nextInt(5) == 0 ? "" : "</think>")
              + "\n".repeat(rnd.nextInt(4))
              + StructuralTagsTest.randomText(cfg, rnd);
      boolean expected =
          NaiveTags.gate(
              s,
              "</think>",
              ReasoningGate.MAX_NEWLINES,
              t -> NaiveTags.tags(t, cfg.triggers(), cfg.naiveTags()));
      accepted += expected ? 1 : 0;
      assertEquals(
          expected,
          fsm.dfa().matches(s.getBytes(StandardCharsets.UTF_8)),
          StructuralTagsTest.show(s));
    }
    assertTrue(accepted > 300 && accepted < 1700, accepted + " accepted");
  }

  @Test
  void nothingIsForcedWhileReasoningAndTheContentsForcedTextIsJumpedAfterTheMarker() {
    CompressedFsm fsm = ReasoningGate.compile("</think>", CompressedFsm.compile(ANSWER));
    for (String reasoning : List.of("", "<think>\nHmm.", "</thi", "<think>\n</think")) {
      int s = fsm.dfa().walk(0, reasoning.getBytes(StandardCharsets.UTF_8));
      assertFalse(fsm.hasJump(s), StructuralTagsTest.show(reasoning));
      assertFalse(fsm.dfa().isAccepting(s), "the model may not stop while reasoning");
    }
    int after = fsm.dfa().walk(0, "<think>\nok\n</think>".getBytes(StandardCharsets.UTF_8));
    assertFalse(fsm.hasJump(after), "a newline or the content's '{' may follow the marker");
    int nl = fsm.dfa().walk(after, "\n\n".getBytes(StandardCharsets.UTF_8));
    assertEquals("{\"answer\": ", fsm.jumpString(nl));
    assertEquals(
        Dfa.DEAD,
        fsm.dfa().walk(nl, "\n".getBytes(StandardCharsets.UTF_8)),
        "at most two newlines");
    // The first marker ends the reasoning: a second one is content, and this content has none.
    assertEquals(Dfa.DEAD, fsm.dfa().walk(after, "</think>".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void errorsNameTheMarker() {
    CompressedFsm c = CompressedFsm.compile("x");
    ConstraintException e =
        assertThrows(ConstraintException.class, () -> ReasoningGate.compile("", c));
    assertTrue(e.getMessage().contains("end marker is empty"), e.getMessage());
    e = assertThrows(ConstraintException.class, () -> ReasoningGate.compile("</think\uDC00>", c));
    assertTrue(e.getMessage().contains("lone surrogate at index 7"), e.getMessage());
    e = assertThrows(ConstraintException.class, () -> ReasoningGate.compile(null, c));
    assertTrue(e.getMessage().contains("end marker is null"), e.getMessage());
  }
}
