package dev.leap.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.runtime.SamplingParams;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The sampling and response fields of a completion or chat completion request, validated.
 *
 * @param sampling temperature, top_p, top_k, seed, the token limit and stop strings
 * @param n independent samples of the prompt (sharing its cached prefix)
 * @param stream answer as server-sent events
 * @param includeUsage with {@code stream}: a last chunk with {@code usage} ({@code
 *     stream_options.include_usage})
 * @param jumpForward Leap's extension {@code jump_forward}: null = the server's setting
 */
public record GenerationOptions(
    SamplingParams sampling, int n, boolean stream, boolean includeUsage, Boolean jumpForward) {

  /** Most samples per request. */
  public static final int MAX_N = 16;

  /**
   * Reads the fields of {@code body}. {@code defaultMaxTokens} is 16 for {@code /v1/completions}
   * (OpenAI's legacy default) and the context's remainder for chat; {@code chat} also reads {@code
   * max_completion_tokens} (which wins over {@code max_tokens}).
   */
  public static GenerationOptions parse(
      JsonNode body, boolean chat, int defaultMaxTokens, int maxTokensLimit) {
    double temperature = Fields.number(body, "temperature", "temperature", 1.0, 0, 2);
    double topP = Fields.number(body, "top_p", "top_p", 1.0, 0, 1);
    if (topP == 0) {
      throw ApiError.badRequest("top_p", "'top_p' must be greater than 0");
    }
    long topK = Fields.integer(body, "top_k", "top_k", -1, -1, Integer.MAX_VALUE);
    // Without a seed every request samples differently (as OpenAI's API does); with one,
    // reproducibly.
    long seed =
        Fields.present(body, "seed")
            ? Fields.integer(body, "seed", "seed", 0, Long.MIN_VALUE, Long.MAX_VALUE)
            : ThreadLocalRandom.current().nextLong();
    long maxTokens =
        Fields.integer(body, "max_tokens", "max_tokens", defaultMaxTokens, 1, maxTokensLimit);
    if (chat && Fields.present(body, "max_completion_tokens")) {
      maxTokens =
          Fields.integer(
              body,
              "max_completion_tokens",
              "max_completion_tokens",
              defaultMaxTokens,
              1,
              maxTokensLimit);
    }
    List<String> stop = Fields.strings(body, "stop", "stop", 4);
    int n = (int) Fields.integer(body, "n", "n", 1, 1, MAX_N);
    boolean stream = Fields.bool(body, "stream", "stream", false);
    boolean includeUsage = false;
    JsonNode so = Fields.object(body, "stream_options", "stream_options");
    if (so != null) {
      if (!stream) {
        throw ApiError.badRequest(
            "stream_options", "'stream_options' is only allowed with 'stream': true");
      }
      includeUsage = Fields.bool(so, "include_usage", "stream_options.include_usage", false);
    }
    Boolean jump =
        Fields.present(body, "jump_forward")
            ? Fields.bool(body, "jump_forward", "jump_forward", true)
            : null;
    unsupported(body, "logprobs", false);
    unsupported(body, "top_logprobs", null);
    unsupported(body, "echo", false);
    unsupported(body, "best_of", 1);
    unsupported(body, "suffix", null);
    unsupported(body, "presence_penalty", 0);
    unsupported(body, "frequency_penalty", 0);
    unsupported(body, "logit_bias", null);
    SamplingParams sampling =
        SamplingParams.builder()
            .temperature(temperature)
            .topP(topP)
            .topK(topK < 0 ? 0 : (int) topK)
            .seed(seed)
            .maxTokens((int) maxTokens)
            .stop(stop)
            .build();
    return new GenerationOptions(sampling, n, stream, includeUsage, jump);
  }

  /**
   * A field Leap does not implement: accepted at its neutral value, a 400 otherwise (never silently
   * ignored).
   */
  private static void unsupported(JsonNode body, String name, Object neutral) {
    JsonNode v = body.get(name);
    if (v == null || v.isNull()) {
      return;
    }
    boolean isNeutral =
        neutral instanceof Boolean b
            ? v.isBoolean() && v.asBoolean() == b
            : neutral instanceof Integer i
                ? v.isNumber() && v.asDouble() == i
                : v.isObject() && v.isEmpty();
    if (!isNeutral) {
      throw ApiError.badRequest(
          name,
          "'"
              + name
              + "' is not supported by Leap"
              + (neutral == null ? "" : " (only " + neutral + ")"));
    }
  }
}
