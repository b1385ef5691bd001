package dev.leap.fsm.tags;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.Trees;
import java.util.List;
import java.util.Objects;

/**
 * A reasoning gate: free text up to an end marker (Qwen3's and DeepSeek-R1's {@code </think>}),
 * then a constraint. The language, exactly:
 *
 * <pre>  D(m) · \n{0,2} · C</pre>
 *
 * <p>where {@code D(m)} is every UTF-8 text that ends with the marker {@code m} and contains it
 * nowhere else (the reasoning is any text without the marker, so the <em>first</em> marker ends
 * it), then at most {@value #MAX_NEWLINES} newlines (Qwen3's template writes {@code "</think>\n\n"}
 * before the answer), then the content {@code C} (a compiled regex, JSON Schema, grammar without
 * recursion, or structural tags). Nothing is forced before the marker: the text may end only inside
 * {@code C}'s language, so the model cannot stop while reasoning.
 *
 * <p>The opening {@code <think>} is not part of the gate. Qwen3's chat template ends the prompt
 * with {@code "<|im_start|>assistant\n"} when thinking is on (the default): the model writes {@code
 * "<think>\n"} itself, and that is ordinary reasoning text here (it does not contain the marker).
 * Templates that put {@code <think>} into the prompt (and, with Qwen3's {@code enable_thinking:
 * false}, the whole empty block {@code "<think>\n\n</think>\n\n"}) need no change for the first
 * case; in the second the model writes no reasoning, so use the content's constraint alone: the
 * gate would wait for a second marker.
 *
 * <p>Tokens: the gate is bytes, so a vocabulary whose marker is a token with text (Qwen3's {@code
 * </think>}, id 151668, is an added token <em>not</em> marked special) has that token allowed
 * wherever the marker's bytes may follow, and after it the state is the content's start. A
 * vocabulary that marks the marker special gives it no bytes ({@link dev.leap.vocab.Vocabulary}),
 * so its mask never allows that token; the gate stays reachable through the ordinary tokens that
 * spell the marker (every byte-level vocabulary has one token per byte).
 *
 * <p>One minimal, trimmed DFA through the regex pipeline, so jump edges work inside the content
 * (after the marker and the newlines, the content's forced text is one jump).
 */
public final class ReasoningGate {
  /** Newlines allowed between the marker and the content, at most. */
  public static final int MAX_NEWLINES = 2;

  private ReasoningGate() {}

  /**
   * {@link #compile(String, CompressedFsm, int)} with the default state limit ({@value
   * CompressedFsm#DEFAULT_MAX_DFA_STATES}).
   */
  public static CompressedFsm compile(String endMarker, CompressedFsm content) {
    return compile(endMarker, content, CompressedFsm.DEFAULT_MAX_DFA_STATES);
  }

  /**
   * Compiles the gate (see the class comment).
   *
   * @throws ConstraintException an empty or null marker, or one with a lone surrogate
   * @throws AutomatonTooLargeException an automaton needs more than {@code maxDfaStates} states
   */
  public static CompressedFsm compile(String endMarker, CompressedFsm content, int maxDfaStates) {
    Texts.check(endMarker, "the reasoning end marker", false);
    Objects.requireNonNull(content, "content");
    String source =
        "reasoning up to " + Texts.quote(endMarker) + ", then (" + content.source() + ")";
    Dfa reasoning = new FreeText(List.of(endMarker), maxDfaStates, source).upTo(endMarker);
    if (reasoning == null) {
      throw new IllegalStateException(
          "no reasoning text ends with " + Texts.quote(endMarker) + ": a bug");
    }
    Re tree =
        Trees.seq(
            new Re.Automaton(reasoning),
            Trees.rep(Trees.lit("\n"), 0, MAX_NEWLINES),
            new Re.Automaton(content.dfa()));
    return CompressedFsm.of(Automata.compileNonEmpty(tree, source, maxDfaStates), source);
  }
}
