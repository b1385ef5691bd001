package dev.leap.fsm.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.TokenIndex;
import dev.leap.testkit.Shared;
import dev.leap.vocab.TokenizerJsonVocabulary;
import dev.leap.vocab.Vocabulary;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Token masks ({@link TokenIndex}) of gates and tags against the real Qwen3 and Llama 3
 * vocabularies ({@code ../shared/tokenizers}; skipped where absent): Qwen3's {@code </think>}
 * (151668) and {@code <tool_call>} (151657) are added tokens not marked special, so they have their
 * text and the masks allow them exactly where those bytes may follow; Llama 3 has neither and
 * spells them with ordinary tokens; a vocabulary that gives the marker no bytes still reaches the
 * content.
 */
class TagTokenMasksTest {
  static final int QWEN_THINK = 151667;
  static final int QWEN_END_THINK = 151668;
  static final int QWEN_TOOL_CALL = 151657;
  static final int QWEN_END_TOOL_CALL = 151658;
  static final int QWEN_IM_END = 151645;
  static final String ANSWER = "\\{\"answer\": \"(yes|no)\"\\}";

  static TokenizerJsonVocabulary qwen3() {
    return TokenizerJsonVocabulary.load(Shared.require("tokenizers/qwen3/tokenizer.json"))
        .withEos(QWEN_IM_END);
  }

  static TokenizerJsonVocabulary llama3() {
    return TokenizerJsonVocabulary.load(Shared.require("tokenizers/llama3/tokenizer.json"))
        .withEos(128009);
  }

  /** The id of a token string, asserting it exists. */
  static int id(TokenizerJsonVocabulary v, String tokenString) {
    int id = v.idOf(tokenString);
    assertTrue(id >= 0, "no token " + tokenString + " in " + v.source());
    return id;
  }

  /** Walks {@code tokens} through the index, asserting each is allowed where it is taken. */
  static int take(TokenIndex index, int state, int... tokens) {
    int s = state;
    for (int t : tokens) {
      assertTrue(index.isAllowed(s, t), "token " + t + " not allowed in state " + s);
      s = index.nextState(s, t);
      assertNotEquals(Dfa.DEAD, s);
    }
    return s;
  }

  @Test
  void qwen3sThinkEndTokenIsAllowedWhereverTheMarkerMayFollowAndLeadsToTheContent() {
    TokenizerJsonVocabulary v = qwen3();
    assertFalse(v.isSpecial(QWEN_END_THINK));
    assertEquals("</think>", new String(v.tokenBytes(QWEN_END_THINK), StandardCharsets.UTF_8));
    CompressedFsm gate = ReasoningGate.compile("</think>", CompressedFsm.compile(ANSWER));
    TokenIndex index = TokenIndex.of(gate.dfa(), v);
    int start = gate.dfa().initialState();
    assertTrue(index.isAllowed(start, QWEN_END_THINK) && index.isAllowed(start, QWEN_THINK));
    assertFalse(index.isAllowed(start, QWEN_IM_END), "EOS while reasoning");
    // `<think>\nLet me see.\n` then `</think>`: allowed all along.
    int reasoning =
        take(
            index,
            start,
            QWEN_THINK,
            id(v, "Ċ"),
            id(v, "Let"),
            id(v, "Ġme"),
            id(v, "Ġsee"),
            id(v, ".Ċ"));
    assertTrue(index.isAllowed(reasoning, QWEN_END_THINK));
    int content = take(index, reasoning, QWEN_END_THINK);
    assertEquals(
        gate.dfa().walk(start, "<think>\nLet me see.\n</think>".getBytes(StandardCharsets.UTF_8)),
        content);
    assertFalse(index.isAllowed(content, QWEN_END_THINK), "a second marker after the gate");
    assertFalse(index.isAllowed(content, QWEN_THINK));
    assertFalse(index.isAllowed(content, QWEN_IM_END));
    assertTrue(index.isAllowed(content, id(v, "ĊĊ")) && index.isAllowed(content, id(v, "{\"")));
    assertFalse(index.isAllowed(content, id(v, "ĊĊĊ")), "at most two newlines");
    // The marker spelled in pieces reaches the same state; ">\n\n" is the marker's end and the
    // newlines.
    int pieces = take(index, reasoning, id(v, "</"), id(v, "think"));
    assertTrue(
        index.isAllowed(pieces, id(v, ">"))
            && index.isAllowed(pieces, id(v, ">Ċ"))
            && index.isAllowed(pieces, id(v, ">ĊĊ")));
    assertFalse(index.isAllowed(pieces, id(v, ">ĊĊĊ")));
    assertEquals(content, take(index, pieces, id(v, ">")));
    int answer =
        take(
            index,
            content,
            id(v, "ĊĊ"),
            id(v, "{\""),
            id(v, "answer"),
            id(v, "\":"),
            id(v, "Ġ\""),
            id(v, "yes"),
            id(v, "\"}"));
    assertTrue(gate.dfa().isAccepting(answer) && index.isAllowed(answer, QWEN_IM_END));
  }

  @Test
  void whenTheMarkerTokenHasNoBytesTheGateIsReachedThroughOrdinaryTokens() {
    TokenizerJsonVocabulary qwen = qwen3();
    Vocabulary special =
        new Vocabulary() {
          @Override
          public int size() {
            return qwen.size();
          }

          @Override
          public byte[] tokenBytes(int id) {
            return id == QWEN_END_THINK ? null : qwen.tokenBytes(id);
          }

          @Override
          public int[] eosIds() {
            return qwen.eosIds();
          }
        };
    CompressedFsm gate = ReasoningGate.compile("</think>", CompressedFsm.compile(ANSWER));
    TokenIndex index = TokenIndex.of(gate.dfa(), special);
    assertNull(special.tokenBytes(QWEN_END_THINK));
    assertFalse(index.isAllowed(0, QWEN_END_THINK), "a token with no bytes is never allowed");
    int content = take(index, 0, id(qwen, "</"), id(qwen, "think"), id(qwen, ">ĊĊ"));
    assertEquals(gate.dfa().walk(0, "</think>\n\n".getBytes(StandardCharsets.UTF_8)), content);
    assertTrue(index.isAllowed(content, id(qwen, "{\"")));
  }

  @Test
  void qwen3sToolCallTokenStartsATagAndTheRestOfItsBeginIsOneJump() {
    TokenizerJsonVocabulary v = qwen3();
    assertFalse(v.isSpecial(QWEN_TOOL_CALL));
    CompressedFsm tags =
        StructuralTags.compile(
            StructuralTagsTest.TOOLS.triggers(), StructuralTagsTest.TOOLS.compiledTags());
    TokenIndex index = TokenIndex.of(tags.dfa(), v);
    int start = tags.dfa().initialState();
    assertTrue(index.isAllowed(start, QWEN_TOOL_CALL));
    assertTrue(index.isAllowed(start, QWEN_IM_END), "free text may end");
    assertTrue(
        index.isAllowed(start, QWEN_END_TOOL_CALL),
        "</tool_call> is not a trigger: free text may hold it");
    int free = take(index, start, id(v, "I"), id(v, "Ġwill"), id(v, "Ġcheck"), id(v, ".Ċ"));
    int opened = take(index, free, QWEN_TOOL_CALL);
    assertEquals("\n{\"name\": \"get_", tags.jumpString(opened));
    assertFalse(index.isAllowed(opened, QWEN_IM_END) || index.isAllowed(opened, QWEN_TOOL_CALL));
    assertEquals(
        1,
        countAllowedFirstBytes(index, v, opened, '\n'),
        "only tokens that start with the forced newline");
    // Through the arguments to the end: `}\n` then the `</tool_call>` token closes the tag.
    int args =
        tags.dfa()
            .walk(
                tags.jumpTarget(opened),
                "weather\", \"arguments\": {\"city\": \"paris\"}}\n"
                    .getBytes(StandardCharsets.UTF_8));
    assertNotEquals(Dfa.DEAD, args);
    int closed = take(index, args, QWEN_END_TOOL_CALL);
    assertTrue(
        tags.dfa().isAccepting(closed)
            && index.isAllowed(closed, QWEN_IM_END)
            && index.isAllowed(closed, QWEN_TOOL_CALL),
        "free text again after the tag");
  }

  @Test
  void llama3SpellsTheMarkerAndTheTriggerWithOrdinaryTokens() {
    TokenizerJsonVocabulary v = llama3();
    assertEquals(-1, v.idOf("</think>"));
    assertEquals(-1, v.idOf("<tool_call>"));
    CompressedFsm gate = ReasoningGate.compile("</think>", CompressedFsm.compile(ANSWER));
    TokenIndex gi = TokenIndex.of(gate.dfa(), v);
    int pieces = take(gi, 0, id(v, "</"), id(v, "think"));
    assertTrue(gi.isAllowed(pieces, id(v, ">ĊĊ")) && !gi.isAllowed(pieces, id(v, ">ĊĊĊ")));
    int content = take(gi, pieces, id(v, ">ĊĊ"));
    assertEquals("{\"answer\": \"", gate.jumpString(content));
    assertFalse(gi.isAllowed(content, 128009));

    CompressedFsm tags =
        StructuralTags.compile(
            StructuralTagsTest.TOOLS.triggers(), StructuralTagsTest.TOOLS.compiledTags());
    TokenIndex ti = TokenIndex.of(tags.dfa(), v);
    assertTrue(ti.isAllowed(0, 128009));
    int opened = take(ti, 0, id(v, "<"), id(v, "tool"), id(v, "_call"));
    assertTrue(ti.isAllowed(opened, 128009), "`<tool_call` is still free text");
    int trigger = take(ti, opened, id(v, ">"));
    assertFalse(ti.isAllowed(trigger, 128009));
    assertEquals("\n{\"name\": \"get_", tags.jumpString(trigger));
    assertTrue(
        ti.isAllowed(opened, id(v, ">Ċ")),
        "a token that completes the trigger and goes on into the begin");
  }

  /**
   * How many distinct first bytes the allowed tokens of {@code state} have; asserts {@code
   * expected} is one of them.
   */
  static int countAllowedFirstBytes(TokenIndex index, Vocabulary v, int state, int expected) {
    boolean[] seen = new boolean[256];
    long[] mask = index.allowed(state);
    for (int t = 0; t < v.size(); t++) {
      if ((mask[t >>> 6] & (1L << t)) != 0) {
        seen[v.tokenBytes(t)[0] & 0xFF] = true;
      }
    }
    assertTrue(seen[expected]);
    int n = 0;
    for (boolean b : seen) {
      n += b ? 1 : 0;
    }
    return n;
  }
}
