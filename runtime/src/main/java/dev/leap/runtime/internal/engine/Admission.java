package dev.leap.runtime.internal.engine;

import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.internal.Errors;
import java.util.List;

/**
 * What a request must satisfy before it is queued, and the error text when it does not: prompt ids
 * inside the vocabulary (a text prompt needs a tokenizer), a prompt shorter than the context, the
 * prompt plus {@code maxTokens} within the KV capacity, a tokenizer for a constraint. Plus the rule
 * that makes a request wait one step for a prefix another request is about to cache.
 */
final class Admission {
  /**
   * Requests sharing this many uncached prompt tokens with one admitted in the same iteration wait
   * one step.
   */
  static final int SHARED_PREFIX_DEFER = 32;

  private final Tokenizer tokenizer;
  private final int vocab;
  private final int maxPositions;
  private final int kvCapacity;
  private final int smallReserve;

  Admission(Tokenizer tokenizer, int vocab, int maxPositions, int kvCapacity, int smallReserve) {
    this.smallReserve = smallReserve;
    this.tokenizer = tokenizer;
    this.vocab = vocab;
    this.maxPositions = maxPositions;
    this.kvCapacity = kvCapacity;
  }

  /** Sets {@code s.prompt}; returns why the request cannot run, or null. */
  String prepare(Sequence s) {
    try {
      s.prompt = promptIds(s.request);
    } catch (IllegalArgumentException e) {
      return Errors.oneLine(e, "bad prompt");
    }
    int n = s.prompt.length;
    if (n >= maxPositions) {
      return "the prompt has "
          + n
          + " tokens; the model's context (max_position_embeddings) is "
          + maxPositions;
    }
    int need = n + Math.min(s.request.params().maxTokens(), maxPositions - n);
    if (need > kvCapacity) {
      return "the prompt ("
          + n
          + " tokens) plus maxTokens ("
          + s.request.params().maxTokens()
          + ") needs "
          + need
          + " KV slots; the KV capacity is "
          + kvCapacity;
    }
    if (smallReserve > 0 && need > smallReserve / 4 && need > kvCapacity - smallReserve) {
      return "the prompt ("
          + n
          + " tokens) plus maxTokens ("
          + s.request.params().maxTokens()
          + ") needs "
          + need
          + " KV slots; a request this big may use "
          + (kvCapacity - smallReserve)
          + " of the KV capacity of "
          + kvCapacity
          + " (the other "
          + smallReserve
          + " are kept for small requests)";
    }
    if (s.request.constraint().kind() != Constraint.Kind.NONE && tokenizer == null) {
      return "a constraint needs a tokenizer, and the model directory has none";
    }
    return null;
  }

  /** Output tokens {@code s} may still produce: {@code maxTokens}, capped by the context. */
  int maxOutput(Sequence s) {
    return Math.min(s.request.params().maxTokens(), maxPositions - s.prompt.length);
  }

  private int[] promptIds(GenerationRequest request) {
    if (request.promptIds() != null) {
      int[] ids = request.promptIds();
      for (int i = 0; i < ids.length; i++) {
        if (ids[i] < 0 || ids[i] >= vocab) {
          throw new IllegalArgumentException(
              "prompt token id "
                  + ids[i]
                  + " at index "
                  + i
                  + " is outside the model's vocabulary 0.."
                  + (vocab - 1));
        }
      }
      if (ids.length == 0) {
        throw new IllegalArgumentException("the prompt is empty");
      }
      return ids;
    }
    if (tokenizer == null) {
      throw new IllegalArgumentException(
          "a text prompt needs a tokenizer, and the model directory has none: give token ids");
    }
    int[] ids = tokenizer.encode(request.prompt());
    if (ids.length == 0) {
      throw new IllegalArgumentException("the prompt is empty");
    }
    return ids;
  }

  /**
   * Whether {@code s}, with {@code cached} prompt tokens in the radix cache, should wait one step
   * so that a request admitted in this iteration (prompts {@code admitted}) can cache a prefix they
   * share.
   */
  static boolean deferForSharedPrefix(Sequence s, int cached, List<int[]> admitted) {
    for (int[] p : admitted) {
      int common = 0;
      int lim = Math.min(p.length, s.prompt.length);
      while (common < lim && p[common] == s.prompt[common]) {
        common++;
      }
      if (common - cached >= SHARED_PREFIX_DEFER) {
        return true;
      }
    }
    return false;
  }
}
