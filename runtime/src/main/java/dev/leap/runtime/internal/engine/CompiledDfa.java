package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.TokenIndex;
import dev.leap.retokenize.JumpRetokenizer;
import dev.leap.retokenize.Tokenizer;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

/**
 * A constraint that is one DFA: its compressed FSM (jump edges), its token index over the
 * tokenizer's vocabulary, and per-state masks on the model's device, made on first use and shared
 * by every request in that state ({@link DfaState}); released when the constraint leaves the
 * runtime's cache, made again if a request still uses it. The token index's first masks are
 * computed at compile time ({@link TokenIndex#precompute()}: all of a small DFA's). The device mask
 * cache is touched only by the scheduler thread.
 */
final class CompiledDfa extends CompiledConstraint {
  final CompressedFsm fsm;
  final TokenIndex index;
  private final NDManager parent;
  private NDManager maskManager;
  private final Int2ObjectOpenHashMap<NDArray> masks = new Int2ObjectOpenHashMap<>();

  /** Indexes {@code fsm} against {@code tokenizer}, the first states' masks now. */
  CompiledDfa(
      CompressedFsm fsm, Tokenizer tokenizer, boolean healing, int logitsVocab, NDManager parent) {
    super(new JumpRetokenizer(tokenizer, fsm.dfa(), healing), logitsVocab);
    this.fsm = fsm;
    this.index = TokenIndex.of(fsm.dfa(), tokenizer);
    this.parent = parent;
    index.precompute(); // the first masks here, off the step loop; the others on first use
  }

  @Override
  ConstraintState newState() {
    return new DfaState(this);
  }

  /**
   * The boolean row {@code [logitsVocab]} of the tokens <em>not</em> allowed in {@code state}, on
   * the device (the sampler fills those logits with -inf in place).
   */
  NDArray mask(int state) {
    NDArray m = masks.get(state);
    if (m == null) {
      if (maskManager == null) {
        maskManager = parent.newSubManager();
      }
      m = maskManager.create(disallowedRow(index.allowed(state)));
      masks.put(state, m);
    }
    return m;
  }

  /** Releases the device masks; they are made again if the constraint is used after this. */
  @Override
  public void close() {
    if (maskManager != null) {
      maskManager.close();
      maskManager = null;
    }
    masks.clear();
  }
}
