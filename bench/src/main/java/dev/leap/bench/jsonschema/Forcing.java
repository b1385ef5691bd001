package dev.leap.bench.jsonschema;

import dev.leap.fsm.ByteAutomaton;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.grammar.GrammarMatcher;

/**
 * A constraint's walk and forced bytes, whatever it is: a compressed FSM (its jump edges) or a
 * grammar matcher (its forced bytes, which cross rule ends). {@link #forced} of a state is what the
 * runtime would append without asking the model, and {@link #afterForced} the state after it.
 */
interface Forcing {
  ByteAutomaton automaton();

  /** The forced bytes from {@code state} (empty where none). */
  byte[] forced(int state);

  /** The state after {@link #forced}{@code (state)}. */
  int afterForced(int state);

  static Forcing of(CompressedFsm fsm) {
    return new Forcing() {
      @Override
      public ByteAutomaton automaton() {
        return fsm.dfa();
      }

      @Override
      public byte[] forced(int state) {
        return fsm.jumpBytes(state);
      }

      @Override
      public int afterForced(int state) {
        return fsm.jumpTarget(state);
      }
    };
  }

  static Forcing of(GrammarMatcher m) {
    return new Forcing() {
      @Override
      public ByteAutomaton automaton() {
        return m;
      }

      @Override
      public byte[] forced(int state) {
        return m.forcedBytes(state);
      }

      @Override
      public int afterForced(int state) {
        byte[] f = m.forcedBytes(state);
        return m.walk(state, f, 0, f.length);
      }
    };
  }
}
