package dev.leap.runtime;

/**
 * What one generation cost.
 *
 * @param forwardPasses forward passes this request took part in (prefill, decode steps, jump
 *     extends)
 * @param tokensSampled tokens chosen by sampling from the model's logits
 * @param tokensJumped tokens appended by jump-forward (after retokenization), not sampled
 * @param bytesJumped output bytes that jump-forward added: the bytes of the tokens it appended less
 *     those of the output tokens it retracted (forced text cut by maxTokens or held back by
 *     boundary healing is not output, so not counted)
 * @param jumps number of jumps taken
 * @param promptTokens tokens in the prompt
 * @param cachedPromptTokens prompt tokens whose KV came from the radix cache (not prefilled)
 * @param timeToFirstTokenMs from submission to the first sampled token, the first one that needed
 *     the model (forced text jumped at admission comes earlier, without it); 0 if none was sampled
 * @param totalMs from submission to the end
 * @param queueMs from submission to admission into the running batch (compiling the constraint and
 *     waiting for a batch place or KV slots); the whole time if the request never ran
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
    double totalMs,
    double queueMs) {}
