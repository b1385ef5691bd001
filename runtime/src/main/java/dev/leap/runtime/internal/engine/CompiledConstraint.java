package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.TokenIndex;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.retokenize.JumpRetokenizer;
import dev.leap.retokenize.Tokenizer;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

/**
 * A constraint compiled against one tokenizer. A regex, choice, JSON Schema, grammar without
 * recursion, structural tag or reasoning gate (with such contents) is a compressed FSM with its token index and per-state masks on the model's device
 * (made on first use, released when the constraint leaves the runtime's cache, made again if a
 * request still uses it); a grammar with recursion is a {@link CompiledGrammar} (per-rule-state
 * token sets computed per state on first use, shared), each request getting its own matcher ({@link
 * #newState}). Both keep the jump retokenizer. Compiled off the step loop, the first mask with it;
 * the mask cache is touched only by the scheduler thread.
 */
final class CompiledConstraint implements AutoCloseable {
  final String key;
  /** The DFA's compressed FSM; null for a grammar with recursion. */
  final CompressedFsm fsm;
  /** The DFA's token index; null for a grammar with recursion. */
  final TokenIndex index;
  /** A grammar with recursion; null for a DFA. */
  final CompiledGrammar grammar;
  final JumpRetokenizer retokenizer;
  final double compileMs;
  private final int logitsVocab;
  private final NDManager parent;
  private NDManager maskManager;
  private final Int2ObjectOpenHashMap<NDArray> masks = new Int2ObjectOpenHashMap<>();

  private CompiledConstraint(
      String key, CompressedFsm fsm, TokenIndex index, CompiledGrammar grammar, JumpRetokenizer retokenizer,
      double compileMs, int logitsVocab, NDManager parent) {
    this.key = key;
    this.fsm = fsm;
    this.index = index;
    this.grammar = grammar;
    this.retokenizer = retokenizer;
    this.compileMs = compileMs;
    this.logitsVocab = logitsVocab;
    this.parent = parent;
  }

  static CompiledConstraint compile(
      String key, dev.leap.runtime.Constraint c, Tokenizer tokenizer, boolean healing, int logitsVocab, NDManager parent) {
    long t0 = System.nanoTime();
    Grammar recursive = null;
    CompressedFsm fsm = null;
    switch (c.kind()) {
      case JSON_SCHEMA -> {
        JsonSchema.Compiled compiled = RegularConstraints.schema(c);
        if (compiled.grammar().isPresent()) {
          recursive = compiled.grammar().get(); // recursion too large to unroll: rules
        } else {
          fsm = compiled.fsm();
        }
      }
      case GRAMMAR -> {
        Grammar g = Grammar.parse(c.grammar());
        if (g.regular().isPresent()) {
          fsm = g.regular().get(); // no recursion: exactly a regex's DFA
        } else {
          recursive = g;
        }
      }
      default -> fsm = RegularConstraints.fsm(c);
    }
    if (recursive != null) {
      // Each rule state's token sets on first use (a big grammar's request visits a small part of
      // it), the start's now: the first mask is ready when the request's first step comes.
      CompiledGrammar cg = CompiledGrammar.compileLazily(recursive, tokenizer);
      dev.leap.fsm.grammar.GrammarMatcher first = cg.newMatcher();
      first.allowed(first.initialState());
      JumpRetokenizer retok = new JumpRetokenizer(tokenizer, cg.newMatcher(), healing);
      return new CompiledConstraint(key, null, null, cg, retok, (System.nanoTime() - t0) / 1e6, logitsVocab, parent);
    }
    TokenIndex index = TokenIndex.of(fsm.dfa(), tokenizer);
    index.allowed(fsm.dfa().initialState()); // the first mask here, off the step loop; the others on first use
    JumpRetokenizer retok = new JumpRetokenizer(tokenizer, fsm.dfa(), healing);
    double ms = (System.nanoTime() - t0) / 1e6;
    return new CompiledConstraint(key, fsm, index, null, retok, ms, logitsVocab, parent);
  }

  /** A request's state at the start of its output. */
  ConstraintState newState() {
    return grammar != null ? new GrammarState(this, grammar.newMatcher()) : new DfaState(this);
  }

  Dfa dfa() {
    return fsm.dfa();
  }

  /**
   * The boolean row {@code [logitsVocab]} of the tokens <em>not</em> allowed in {@code state}, on the
   * device (the sampler fills those logits with -inf in place). Ids past the tokenizer's vocabulary
   * (a model's padded rows) are never allowed.
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

  /**
   * The row {@code [logitsVocab]} that is true for every token not in {@code allowedWords} (a bit set
   * over the tokenizer's ids); ids past the tokenizer's vocabulary (a model's padded rows) are never
   * allowed.
   */
  boolean[] disallowedRow(long[] allowedWords) {
    boolean[] disallowed = new boolean[logitsVocab];
    java.util.Arrays.fill(disallowed, true);
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
