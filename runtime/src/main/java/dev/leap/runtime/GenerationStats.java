package dev.leap.runtime;

/**
 * What one generation cost.
 *
 * @param forwardPasses forward passes this request took part in (prefill, decode steps, jump extends)
 * @param tokensSampled tokens chosen by sampling from the model's logits
 * @param tokensJumped tokens appended by jump-forward (after retokenization), not sampled
 * @param bytesJumped bytes of forced text appended by jump-forward
 * @param jumps number of jumps taken
 * @param promptTokens tokens in the prompt
 * @param cachedPromptTokens prompt tokens whose KV came from the radix cache (not prefilled)
 * @param timeToFirstTokenMs from submission to the first sampled token, the first one that needed the
 *     model (forced text jumped at admission comes earlier, without it); 0 if none was sampled
 * @param totalMs from submission to the end
 */
public record GenerationStats(
    int forwardPasses,
    int tokensSampled,
    int tokensJumped,
    long bytesJumped,
    int jumps,
    int promptTokens,
    int cachedPromptTokens,
    double timeToFirstTokenMs,
    double totalMs) {}
