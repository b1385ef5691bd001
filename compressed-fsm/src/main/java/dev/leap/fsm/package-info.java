/**
 * Regex and JSON Schema constraints compiled to byte-level automata: a minimal DFA, the compressed
 * FSM of its forced chains (jump edges), and per-state token masks against a model's vocabulary.
 */
package dev.leap.fsm;
