package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.retokenize.JumpPlan;

/**
 * One request's position in its constraint: the contract through which the scheduler drives every
 * constraint, without looking inside. A regex, JSON Schema or regular grammar is a DFA ({@link
 * DfaState}); a grammar with recursion is a pushdown matcher ({@link GrammarState}).
 *
 * <p>The state follows the request's output tokens: {@link #accept} advances by one sampled token,
 * {@link #rollback} undoes the last ones, {@link #jump} replaces a tail of the output by the tokens
 * of a jump. Invariant (checked by {@link #check} in tests): the state equals the one reached by
 * walking the bytes of all output tokens from the start.
 */
interface ConstraintState {

  /**
   * How many token ids are allowed from here (0: no way forward but to stop, if {@link #canStop}).
   */
  int allowedCount();

  /**
   * The boolean row {@code [vocab]} of tokens <em>not</em> allowed from here, on the model's
   * device: shared between requests in the same state, or made in {@code step} (the step's scope,
   * closed after sampling); the caller never closes it.
   */
  NDArray disallowedMask(NDManager step);

  /**
   * The tokens allowed from here as a bit set over the tokenizer's ids (bit i of word i / 64 =
   * token i), shared: the caller never changes it. Ids at or past the model's vocabulary are never
   * sampled.
   */
  long[] allowedWords();

  /** Whether the output may end here (EOS is allowed). */
  boolean canStop();

  /** Whether the output must end here: it may stop and no token can continue it. */
  boolean mustStop();

  /**
   * Advances by {@code token}, which must be allowed. Like every method here that walks the
   * constraint, it may throw a {@link dev.leap.fsm.ConstraintException} when a grammar's work limit
   * is reached: that request ends with the message as its error, the others go on.
   */
  void accept(int token);

  /** Undoes the last {@code n} accepted (or jumped) tokens. */
  void rollback(int n);

  /** The bytes forced from here (the jump string; empty when more than one way goes on). */
  byte[] forcedBytes();

  /**
   * A jump over {@link #forcedBytes()} given the {@code outLen} output tokens so far: which to
   * keep, which to append (re-tokenized with the forced bytes, boundary-healed), or null when it
   * does not pay. Leaves this state unchanged.
   */
  JumpPlan planJump(int[] output, int outLen);

  /**
   * Applies the first {@code appended} tokens of {@code plan}: rolls back to {@code plan.keep()}
   * and accepts them.
   */
  void jump(JumpPlan plan, int appended);

  /** Whether {@code text} (a finished output) fully matches the constraint. */
  boolean matches(byte[] text);

  /**
   * Throws if the state is not the one reached by walking {@code outputBytes} from the start
   * (tests).
   */
  void check(byte[] outputBytes);

  /** The state for error messages. */
  String describe();
}
