package dev.leap.runtime.internal.engine;

import dev.leap.retokenize.JumpRetokenizer;
import java.util.Arrays;

/**
 * A constraint compiled against one tokenizer, shared by every request with the same {@code
 * Constraint.cacheKey()}; made by {@link ConstraintCompiler}, off the step loop. One subclass per
 * family, each making its requests' {@link ConstraintState}: {@link CompiledDfa} (one DFA: a regex,
 * choice, JSON Schema, grammar without recursion, structural tag, reasoning gate) and {@link
 * CompiledRules} (a grammar with recursion, matched with a stack). Both keep the jump retokenizer.
 */
abstract sealed class CompiledConstraint implements AutoCloseable
    permits CompiledDfa, CompiledRules {
  final JumpRetokenizer retokenizer;
  private final int logitsVocab;

  CompiledConstraint(JumpRetokenizer retokenizer, int logitsVocab) {
    this.retokenizer = retokenizer;
    this.logitsVocab = logitsVocab;
  }

  /** A request's state at the start of its output. */
  abstract ConstraintState newState();

  /**
   * The row {@code [logitsVocab]} that is true for every token not in {@code allowedWords} (a bit
   * set over the tokenizer's ids); ids past the tokenizer's vocabulary (a model's padded rows) are
   * never allowed.
   */
  final boolean[] disallowedRow(long[] allowedWords) {
    boolean[] disallowed = new boolean[logitsVocab];
    Arrays.fill(disallowed, true);
    for (int w = 0; w < allowedWords.length; w++) {
      long bits = allowedWords[w];
      while (bits != 0) {
        int id = (w << 6) + Long.numberOfTrailingZeros(bits);
        if (id < logitsVocab) {
          disallowed[id] = false;
        }
        bits &= bits - 1;
      }
    }
    return disallowed;
  }

  /** Releases what this holds on the device (made again if the constraint is used after this). */
  @Override
  public void close() {}
}
