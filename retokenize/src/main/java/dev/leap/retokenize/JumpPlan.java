package dev.leap.retokenize;

/**
 * What a jump does to a sequence's output tokens: keep the first {@code keep} output tokens, drop
 * the rest (their K/V go), and append {@code append} (to prefill in one multi-token step).
 *
 * <p>Invariants (checked in tests after every jump): the committed bytes — those of the kept and
 * the appended tokens — are the old output's bytes followed by the first {@code jumpedBytes} bytes
 * of the jump string; {@code stateAfter} is the DFA state reached by walking them from the initial
 * state; the last {@code heldBackBytes} bytes of the jump string were held back by boundary healing
 * and stay forced by the mask.
 *
 * @param keep output tokens kept
 * @param append tokens appended after them
 * @param stateAfter DFA state after the committed bytes
 * @param statesAfterEach DFA state after each appended token
 * @param jumpedBytes bytes of the jump string committed
 * @param heldBackBytes bytes of the jump string held back by healing
 */
public record JumpPlan(
    int keep,
    int[] append,
    int stateAfter,
    int[] statesAfterEach,
    int jumpedBytes,
    int heldBackBytes) {}
