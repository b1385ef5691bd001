/**
 * Constraints that are regular <em>around</em> their contents, built on the regex pipeline's
 * automata: {@link dev.leap.fsm.tags.StructuralTags} (free text in which a trigger starts a tag
 * whose content is constrained: tool calls) and {@link dev.leap.fsm.tags.ReasoningGate} (free text
 * up to {@code </think>}, then a constraint). Each compiles to one minimal DFA, a {@link
 * dev.leap.fsm.CompressedFsm}, so jump edges and token masks work unchanged. Contents are compiled
 * automata (a regex, a JSON Schema, a grammar without recursion, or one of these).
 *
 * <p>Inside, package-private: {@code FreeText} (the free-text languages around a set of triggers,
 * by product constructions) and {@code Texts} (checks and quotes of literal strings for errors).
 */
package dev.leap.fsm.tags;
