/**
 * Regex, JSON Schema and GBNF constraints compiled to byte automata: a minimal DFA, its compressed
 * FSM (jump edges), and per-state token masks against a vocabulary.
 *
 * <p>Exported: the automata and token index ({@code dev.leap.fsm}), grammars ({@code .grammar}),
 * JSON Schema ({@code .json}) and structural tags ({@code .tags}). Not exported: {@code
 * dev.leap.fsm.internal}, the one tree type of regexes, schemas and grammar rules and the automaton
 * constructions the exported packages share.
 */
module dev.leap.fsm {
  requires transitive dev.leap.vocab; // TokenIndex.of takes a Vocabulary
  requires transitive com.fasterxml
      .jackson
      .databind; // KeyOrder.schemaOrder takes and returns JsonNode
  requires it.unimi.dsi.fastutil;

  exports dev.leap.fsm;
  exports dev.leap.fsm.grammar;
  exports dev.leap.fsm.json;
  exports dev.leap.fsm.tags;
}
