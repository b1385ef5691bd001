package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.testkit.Shared;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * SGLang's character and city regexes: compile, match samples, and the jump edges the issue names.
 */
class SglangRegexTest {

  static final String CHARACTER_SAMPLE =
      "{\n"
          + "    \"name\": \"Harry Potter\",\n"
          + "    \"house\": \"Gryffindor\",\n"
          + "    \"blood status\": \"Half-blood\",\n"
          + "    \"occupation\": \"student\",\n"
          + "    \"wand\": {\n"
          + "        \"wood\": \"Holly\",\n"
          + "        \"core\": \"Phoenix feather\",\n"
          + "        \"length\": 11.0\n"
          + "    },\n"
          + "    \"alive\": \"Alive\",\n"
          + "    \"patronus\": \"Stag\",\n"
          + "    \"bogart\": \"Dementor\"\n"
          + "}";

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void characterRegexJumpsFromStartToName() {
    CompressedFsm fsm = CompressedFsm.compile(Shared.sglangRegex("character_regex"));
    assertTrue(fsm.dfa().matches(utf8(CHARACTER_SAMPLE)));
    assertFalse(fsm.dfa().matches(utf8(CHARACTER_SAMPLE.replace("Gryffindor", "Gryfindor"))));
    int start = fsm.dfa().initialState();
    assertEquals("{\n    \"name\": \"", fsm.jumpString(start));
  }

  @Test
  void characterRegexJumpsAfterGInHouse() {
    CompressedFsm fsm = CompressedFsm.compile(Shared.sglangRegex("character_regex"));
    Dfa dfa = fsm.dfa();
    String prefix = "{\n    \"name\": \"Harry Potter\",\n    \"house\": \"G";
    int s = dfa.walk(dfa.initialState(), utf8(prefix));
    assertTrue(s != Dfa.DEAD);
    // After G only "ryffindor" fits, then the forced text up to the next free field (blood status).
    assertEquals("ryffindor\",\n    \"blood status\": \"", fsm.jumpString(s));
    int t = fsm.jumpTarget(s);
    assertEquals(t, dfa.walk(s, fsm.jumpBytes(s)));
    assertFalse(fsm.hasJump(t), "the blood status value is a choice");
  }

  @Test
  void cityRegexCompilesAndMatches() {
    CompressedFsm fsm = CompressedFsm.compile(Shared.sglangRegex("city_regex"));
    String sample =
        "{\n  \"name\": \"Paris\",\n  \"country\": \"France\",\n  \"latitude\": 48.85,\n"
            + "  \"population\": 2140000,\n  \"top 3 landmarks\": [\"Eiffel Tower\", \"Louvre\", \"Notre Dame\"]\n}";
    assertTrue(fsm.dfa().matches(utf8(sample)));
    assertEquals("{\n  \"name\": \"", fsm.jumpString(fsm.dfa().initialState()));
  }
}
