package dev.leap.fsm.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.testkit.NaiveTags;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link StructuralTags} against its naive twin ({@link NaiveTags#tags}) on seeded random texts:
 * free text with and without triggers and their prefixes, whole tags, tags with broken contents or
 * missing ends, overlapping and self-overlapping triggers, non-ASCII text; texts drawn from the DFA
 * itself; random bytes (only valid UTF-8 is ever accepted). Then the jump edges after triggers, and
 * the errors.
 */
class StructuralTagsTest {

  /**
   * A test configuration: triggers, tags with regex contents (Leap's dialect = Java's here), and
   * text pieces.
   */
  record Config(
      String name,
      List<String> triggers,
      List<String[]> tags,
      List<String> validContents,
      List<String> brokenContents,
      String alphabet) {

    List<StructuralTags.Tag> compiledTags() {
      List<StructuralTags.Tag> out = new ArrayList<>();
      for (String[] t : tags) {
        out.add(new StructuralTags.Tag(t[0], CompressedFsm.compile(t[1]), t[2]));
      }
      return out;
    }

    List<NaiveTags.Tag> naiveTags() {
      List<NaiveTags.Tag> out = new ArrayList<>();
      for (String[] t : tags) {
        Pattern p = Pattern.compile(t[1], Pattern.DOTALL);
        out.add(new NaiveTags.Tag(t[0], s -> p.matcher(s).matches(), t[2]));
      }
      return out;
    }
  }

  static final String WEATHER = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ";
  static final String TIME = "<tool_call>\n{\"name\": \"get_time\", \"arguments\": ";
  static final String END = "}\n</tool_call>";

  static final Config TOOLS =
      new Config(
          "tool calls",
          List.of("<tool_call>"),
          List.of(
              new String[] {WEATHER, "\\{\"city\": \"[a-zé]{1,6}\"\\}", END},
              new String[] {TIME, "\\{\"tz\": \"(UTC|CET)\"\\}", END}),
          List.of(
              "{\"city\": \"paris\"}",
              "{\"city\": \"é\"}",
              "{\"tz\": \"UTC\"}",
              "{\"tz\": \"CET\"}"),
          List.of(
              "{\"city\": \"\"}",
              "{\"tz\": \"EST\"}",
              "{\"city\": \"PARIS\"}",
              "{\"tz\": \"UTC\"",
              "<tool_call>"),
          "<>/_tolcaé\n{}\" 😀x");

  static final Config OVERLAPS =
      new Config(
          "overlapping triggers",
          List.of("ab", "b", "aa"),
          List.of(
              new String[] {"abX", "[0-9]{1,2}", "Y"},
              new String[] {"bZ", "[ab]*", "W"},
              new String[] {"aa", "c?", ""},
              new String[] {"b!", "x|y", "!"}),
          List.of("", "1", "42", "ab", "abba", "c", "x", "y"),
          List.of("123", "abc", "cc", "xy", "Z"),
          "abXYZW01c!xyé");

  static final Config UNICODE =
      new Config(
          "non-ASCII trigger",
          List.of("→λ"),
          List.<String[]>of(new String[] {"→λ(", "[0-9]+|😀", ")"}),
          List.of("7", "123", "😀"),
          List.of("", "x", "😀😀", "1)"),
          "→λ()0😀é");

  @Test
  void agreesWithTheNaiveTwinOnRandomTexts() {
    for (Config cfg : List.of(TOOLS, OVERLAPS, UNICODE)) {
      CompressedFsm fsm = StructuralTags.compile(cfg.triggers(), cfg.compiledTags());
      SplittableRandom rnd = new SplittableRandom(cfg.name().hashCode());
      int accepted = 0;
      int rejected = 0;
      for (int i = 0; i < 4000; i++) {
        String s = randomText(cfg, rnd);
        boolean expected = NaiveTags.tags(s, cfg.triggers(), cfg.naiveTags());
        assertEquals(
            expected,
            fsm.dfa().matches(s.getBytes(StandardCharsets.UTF_8)),
            cfg.name() + ": " + show(s));
        if (expected) {
          accepted++;
        } else {
          rejected++;
        }
      }
      // Both answers are common, so the comparison checks something either way.
      assertTrue(
          accepted > 600 && rejected > 600,
          cfg.name() + ": " + accepted + " accepted, " + rejected + " rejected");
    }
  }

  @Test
  void textsDrawnFromTheDfaAreAcceptedByTheTwin() {
    for (Config cfg : List.of(TOOLS, OVERLAPS, UNICODE)) {
      CompressedFsm fsm = StructuralTags.compile(cfg.triggers(), cfg.compiledTags());
      SplittableRandom rnd = new SplittableRandom(7 + cfg.name().hashCode());
      int withTag = 0;
      for (int i = 0; i < 1500; i++) {
        byte[] b = walk(fsm.dfa(), rnd, 120, hints(cfg));
        if (b == null) {
          continue;
        }
        String s = new String(b, StandardCharsets.UTF_8);
        assertTrue(NaiveTags.tags(s, cfg.triggers(), cfg.naiveTags()), cfg.name() + ": " + show(s));
        if (cfg.tags().stream().anyMatch(t -> s.contains(t[0]))) {
          withTag++;
        }
      }
      assertTrue(withTag > 50, cfg.name() + ": only " + withTag + " drawn texts hold a tag");
    }
  }

  @Test
  void onlyValidUtf8IsAccepted() {
    CompressedFsm fsm = StructuralTags.compile(TOOLS.triggers(), TOOLS.compiledTags());
    SplittableRandom rnd = new SplittableRandom(3);
    int invalid = 0;
    for (int i = 0; i < 3000; i++) {
      byte[] b = new byte[rnd.nextInt(1, 8)];
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) (rnd.nextBoolean() ? rnd.nextInt(0x80, 0x100) : rnd.nextInt(0x20, 0x7F));
      }
      boolean valid = isUtf8(b);
      if (!valid) {
        invalid++;
        assertFalse(fsm.dfa().matches(b), "accepted invalid UTF-8 " + java.util.Arrays.toString(b));
      } else {
        String s = new String(b, StandardCharsets.UTF_8);
        assertEquals(
            NaiveTags.tags(s, TOOLS.triggers(), TOOLS.naiveTags()), fsm.dfa().matches(b), show(s));
      }
    }
    assertTrue(invalid > 500, "only " + invalid + " invalid byte strings");
  }

  @Test
  void aJsonSchemaContentIsEmbeddedExactly() {
    CompressedFsm args =
        JsonSchema.compile(
            "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"maxLength\":8},"
                + "\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":7}},\"required\":[\"city\",\"days\"]}",
            JsonSchemaOptions.defaults());
    CompressedFsm fsm =
        StructuralTags.compile(
            List.of("<tool_call>"), List.of(new StructuralTags.Tag(WEATHER, args, END)));
    List<NaiveTags.Tag> naive =
        List.of(
            new NaiveTags.Tag(
                WEATHER, s -> args.dfa().matches(s.getBytes(StandardCharsets.UTF_8)), END));
    SplittableRandom rnd = new SplittableRandom(11);
    String[] contents = {
      "{\"city\":\"Paris\",\"days\":3}",
      "{\"city\":\"Oslo\",\"days\":8}",
      "{\"city\":\"Rome\"}",
      "{\"city\":\"a\\\"b\",\"days\":1}",
      "{}"
    };
    int accepted = 0;
    for (int i = 0; i < 1000; i++) {
      StringBuilder sb = new StringBuilder();
      int parts = rnd.nextInt(1, 5);
      for (int p = 0; p < parts; p++) {
        switch (rnd.nextInt(4)) {
          case 0 -> sb.append("I will call ");
          case 1 -> sb.append(WEATHER).append(contents[rnd.nextInt(contents.length)]).append(END);
          case 2 -> sb.append("<tool_call>");
          default -> sb.append('\n');
        }
      }
      String s = sb.toString();
      boolean expected = NaiveTags.tags(s, List.of("<tool_call>"), naive);
      accepted += expected ? 1 : 0;
      assertEquals(expected, fsm.dfa().matches(s.getBytes(StandardCharsets.UTF_8)), show(s));
    }
    assertTrue(accepted > 100 && accepted < 900, accepted + " accepted");
  }

  @Test
  void afterATriggerTheRestOfTheBeginAndTheContentsForcedTextAreOneJump() {
    String city = "\\{\"city\": \"[a-z]{1,6}\"\\}";
    CompressedFsm one =
        StructuralTags.compile(
            List.of("<tool_call>"),
            List.of(new StructuralTags.Tag(WEATHER, CompressedFsm.compile(city), END)));
    for (String before :
        List.of(
            "",
            "Let me check. ",
            "<tool",
            "a <tool_cal",
            "x" + WEATHER + "{\"city\": \"ab\"}" + END + "\n")) {
      int s = one.dfa().walk(0, (before + "<tool_call>").getBytes(StandardCharsets.UTF_8));
      assertNotEquals(Dfa.DEAD, s, before);
      assertTrue(one.hasJump(s), "no jump after the trigger, text before: " + show(before));
      assertEquals(WEATHER.substring("<tool_call>".length()) + "{\"city\": \"", one.jumpString(s));
      // At the end of the content, the tag's end is forced too.
      int inside = one.dfa().walk(one.jumpTarget(s), "paris".getBytes(StandardCharsets.UTF_8));
      assertFalse(one.hasJump(inside), "[a-z]{1,6} may go on after five letters");
      int closed = one.dfa().walk(one.jumpTarget(s), "paris\"}".getBytes(StandardCharsets.UTF_8));
      assertEquals(END, one.jumpString(closed));
      assertTrue(one.dfa().isAccepting(one.jumpTarget(closed)));
    }
    // Two tools: the common part of their begins is forced, then the model chooses.
    CompressedFsm two = StructuralTags.compile(TOOLS.triggers(), TOOLS.compiledTags());
    int s = two.dfa().walk(0, "<tool_call>".getBytes(StandardCharsets.UTF_8));
    assertEquals("\n{\"name\": \"get_", two.jumpString(s));
    // Free text never forces anything: it may always stop.
    SplittableRandom rnd = new SplittableRandom(5);
    for (int i = 0; i < 200; i++) {
      String free = randomFree(TOOLS.alphabet(), rnd, 20);
      int f = two.dfa().walk(0, free.getBytes(StandardCharsets.UTF_8));
      if (f != Dfa.DEAD && two.dfa().isAccepting(f)) {
        assertFalse(two.hasJump(f), show(free));
      }
    }
  }

  @Test
  void errorsNameTheTriggerOrTheTag() {
    CompressedFsm digits = CompressedFsm.compile("[0-9]+");
    ConstraintException e =
        assertThrows(
            ConstraintException.class,
            () ->
                StructuralTags.compile(
                    List.of("<tool_call>"),
                    List.of(
                        new StructuralTags.Tag("<tool_call>", digits, "</tool_call>"),
                        new StructuralTags.Tag("<function=", digits, "</function>"))));
    assertTrue(
        e.getMessage().contains("tag 1")
            && e.getMessage().contains("\"<function=\"")
            && e.getMessage().contains("does not start with any trigger"),
        e.getMessage());
    e =
        assertThrows(
            ConstraintException.class,
            () ->
                StructuralTags.compile(
                    List.of("abc", "b"), List.of(new StructuralTags.Tag("abc!", digits, ";"))));
    assertTrue(
        e.getMessage().contains("tag 0") && e.getMessage().contains("can never start"),
        e.getMessage());
    e =
        assertThrows(
            ConstraintException.class,
            () ->
                StructuralTags.compile(
                    List.of("<a", ""), List.of(new StructuralTags.Tag("<a", digits, ""))));
    assertTrue(e.getMessage().contains("trigger 1 is empty"), e.getMessage());
    e =
        assertThrows(
            ConstraintException.class,
            () ->
                StructuralTags.compile(
                    List.of("<a", "<a"), List.of(new StructuralTags.Tag("<a", digits, ""))));
    assertTrue(
        e.getMessage().contains("trigger 1") && e.getMessage().contains("repeats"), e.getMessage());
    e = assertThrows(ConstraintException.class, () -> StructuralTags.compile(List.of(), List.of()));
    assertTrue(e.getMessage().contains("at least one trigger"), e.getMessage());
    e =
        assertThrows(
            ConstraintException.class, () -> StructuralTags.compile(List.of("<a"), List.of()));
    assertTrue(e.getMessage().contains("at least one tag"), e.getMessage());
    e =
        assertThrows(
            ConstraintException.class,
            () ->
                StructuralTags.compile(
                    List.of("<a"), List.of(new StructuralTags.Tag("<a", digits, "\uD800"))));
    assertTrue(
        e.getMessage().contains("the end of tag 0") && e.getMessage().contains("lone surrogate"),
        e.getMessage());
    assertThrows(NullPointerException.class, () -> new StructuralTags.Tag("<a", null, ""));
  }

  // --- random texts

  static String randomText(Config cfg, SplittableRandom rnd) {
    StringBuilder sb = new StringBuilder();
    int parts = rnd.nextInt(0, 7);
    for (int p = 0; p < parts; p++) {
      String[] tag = cfg.tags().get(rnd.nextInt(cfg.tags().size()));
      String valid = cfg.validContents().get(rnd.nextInt(cfg.validContents().size()));
      String broken = cfg.brokenContents().get(rnd.nextInt(cfg.brokenContents().size()));
      switch (rnd.nextInt(9)) {
        case 0, 1 -> sb.append(randomFree(cfg.alphabet(), rnd, 6));
        case 2, 3 -> sb.append(tag[0]).append(valid).append(tag[2]);
        case 4 -> sb.append(tag[0]).append(broken).append(tag[2]);
        case 5 -> sb.append(tag[0]).append(valid); // no end
        case 6 -> {
          String t = cfg.triggers().get(rnd.nextInt(cfg.triggers().size()));
          sb.append(t, 0, rnd.nextInt(t.length() + 1)); // a trigger's prefix, or all of it
        }
        case 7 -> sb.append(tag[0], 0, rnd.nextInt(tag[0].length() + 1));
        default -> sb.append(tag[2]);
      }
    }
    return sb.toString();
  }

  static String randomFree(String alphabet, SplittableRandom rnd, int max) {
    int[] cps = alphabet.codePoints().toArray();
    StringBuilder sb = new StringBuilder();
    int n = rnd.nextInt(max + 1);
    for (int i = 0; i < n; i++) {
      sb.appendCodePoint(cps[rnd.nextInt(cps.length)]);
    }
    return sb.toString();
  }

  /** The strings a random walk tries to follow: triggers, begins, contents, ends. */
  static List<String> hints(Config cfg) {
    List<String> h = new ArrayList<>(cfg.triggers());
    for (String[] t : cfg.tags()) {
      h.add(t[0]);
      h.add(t[2]);
    }
    h.addAll(cfg.validContents());
    return h;
  }

  /**
   * A random walk through the DFA's live bytes, now and then following a whole hint string where it
   * is live, stopping in an accepting state; null if it is not accepting after {@code max} steps.
   */
  static byte[] walk(Dfa dfa, SplittableRandom rnd, int max, List<String> hints) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    int s = dfa.initialState();
    for (int i = 0; i < max; i++) {
      if (dfa.isAccepting(s) && rnd.nextInt(10) == 0) {
        return out.toByteArray();
      }
      if (rnd.nextInt(3) == 0) {
        byte[] h = hints.get(rnd.nextInt(hints.size())).getBytes(StandardCharsets.UTF_8);
        int t = dfa.walk(s, h);
        if (t != Dfa.DEAD) {
          out.write(h, 0, h.length);
          s = t;
          continue;
        }
      }
      List<int[]> runs = new ArrayList<>();
      dfa.forEachRange(s, (lo, hi, t) -> runs.add(new int[] {lo, hi}));
      if (runs.isEmpty()) {
        return out.toByteArray();
      }
      int[] r = runs.get(rnd.nextInt(runs.size()));
      int b = r[0] + rnd.nextInt(r[1] - r[0] + 1);
      out.write(b);
      s = dfa.step(s, b);
    }
    return dfa.isAccepting(s) ? out.toByteArray() : null;
  }

  static boolean isUtf8(byte[] b) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  static String show(String s) {
    return "\"" + s.replace("\n", "\\n") + "\"";
  }
}
