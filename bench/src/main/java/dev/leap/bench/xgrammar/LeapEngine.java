package dev.leap.bench.xgrammar;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.TokenIndex;
import dev.leap.fsm.grammar.CompiledGrammar;
import dev.leap.fsm.grammar.Grammar;
import dev.leap.fsm.grammar.GrammarLimitException;
import dev.leap.fsm.grammar.GrammarMatcher;
import dev.leap.fsm.json.JsonSchema;
import dev.leap.fsm.json.JsonSchemaOptions;
import dev.leap.vocab.Vocabulary;

/**
 * One compiled Leap constraint as the runtime builds it ({@code CompiledConstraint}): a DFA with
 * its lazy {@link TokenIndex} and jump edges, or a grammar ({@link CompiledGrammar#compileLazily}
 * and {@link CompiledGrammar#precompute}: the first rule states' token sets within a time budget,
 * the others on first use) with a fresh {@link GrammarMatcher} per request. The first mask is timed
 * separately by the caller. {@link #walk} is one request that feeds an instance's token ids.
 */
final class LeapEngine {
  private final CompressedFsm fsm;
  private final TokenIndex index;
  private final CompiledGrammar grammar;

  private LeapEngine(CompressedFsm fsm, TokenIndex index, CompiledGrammar grammar) {
    this.fsm = fsm;
    this.index = index;
    this.grammar = grammar;
  }

  /**
   * Compiles as the runtime does; with {@code eager}, every state's mask (a DFA's, one thread) or
   * token sets (a grammar's, {@link CompiledGrammar#compile} on all cores) are computed now, as
   * XGrammar's compile fills its mask cache.
   */
  static LeapEngine compile(String kind, String source, Vocabulary vocab, boolean eager) {
    Grammar recursive = null;
    CompressedFsm f = null;
    switch (kind) {
      case "schema" -> {
        JsonSchema.Compiled c = JsonSchema.compileDetailed(source, JsonSchemaOptions.defaults());
        if (c.grammar().isPresent()) {
          recursive = c.grammar().get();
        } else {
          f = c.fsm();
        }
      }
      case "builtin-json" -> recursive = Grammar.json();
      case "grammar" -> {
        Grammar g = Grammar.parse(source);
        if (g.regular().isPresent()) {
          f = g.regular().get();
        } else {
          recursive = g;
        }
      }
      default -> throw new IllegalArgumentException(kind);
    }
    if (recursive != null) {
      CompiledGrammar g;
      if (eager) {
        g = CompiledGrammar.compile(recursive, vocab);
      } else {
        g = CompiledGrammar.compileLazily(recursive, vocab);
        g.precompute(); // as the runtime's compile does (CompiledRules)
      }
      return new LeapEngine(null, null, g);
    }
    TokenIndex index = TokenIndex.of(f.dfa(), vocab);
    if (eager) {
      for (int s = 0; s < f.dfa().stateCount(); s++) {
        index.allowed(s);
      }
    } else {
      index.precompute(); // as the runtime's compile does (CompiledDfa)
    }
    return new LeapEngine(f, index, null);
  }

  /** One request's automaton: the DFA with the index's masks, or a fresh matcher. */
  interface Walk {
    int initial();

    long[] mask(int state);

    int next(int state, int token);

    boolean accepting(int state);

    int forced(int state);
  }

  Walk newWalk() {
    if (grammar != null) {
      GrammarMatcher gm = grammar.newMatcher();
      return new Walk() {
        public int initial() {
          return gm.initialState();
        }

        public long[] mask(int state) {
          return gm.allowed(state);
        }

        public int next(int state, int token) {
          return gm.nextState(state, token);
        }

        public boolean accepting(int state) {
          return gm.isAccepting(state);
        }

        public int forced(int state) {
          return gm.forcedBytes(state).length;
        }
      };
    }
    return new Walk() {
      public int initial() {
        return fsm.dfa().initialState();
      }

      public long[] mask(int state) {
        return index.allowed(state);
      }

      public int next(int state, int token) {
        return index.nextState(state, token);
      }

      public boolean accepting(int state) {
        return fsm.dfa().isAccepting(state);
      }

      public int forced(int state) {
        return fsm.jumpBytes(state).length;
      }
    };
  }

  /**
   * One request over {@code ids}: a mask before every token and at the end, forced bytes at every
   * boundary.
   */
  void walk(int[] ids, Outcome o) {
    Walk w = newWalk();
    int state = w.initial();
    boolean accepted = true;
    int rejectedAt = -1;
    int forced = 0;
    int coveredTo = 0;
    int pos = 0;
    try {
      for (int k = 0; k <= ids.length; k++) {
        long s = System.nanoTime();
        long[] mask = w.mask(state);
        long e = System.nanoTime();
        o.maskUs.add((e - s) / 1e3);
        int f = w.forced(state);
        if (f > 0 && pos + f > coveredTo) {
          forced += pos + f - Math.max(pos, coveredTo);
          coveredTo = pos + f;
        }
        if (k == ids.length) {
          if (!w.accepting(state)) {
            accepted = false;
            rejectedAt = k;
          }
          break;
        }
        int id = ids[k];
        int next = (mask[id >>> 6] & (1L << id)) == 0 ? Dfa.DEAD : w.next(state, id);
        if (next == Dfa.DEAD) {
          accepted = false;
          rejectedAt = k;
          break;
        }
        state = next;
        pos +=
            index != null
                ? index.vocabulary().tokenBytes(id).length
                : grammar.vocabulary().tokenBytes(id).length;
      }
    } catch (GrammarLimitException e) {
      accepted = false;
    }
    o.accepted.add(accepted);
    o.rejectedAt.add(rejectedAt);
    o.forcedBytes.add(forced);
  }
}
