/**
 * JSON Schema constraints: {@link dev.leap.fsm.json.JsonSchema} turns a schema into a regex tree
 * (then the regex pipeline's DFA and jump edges). Supported keywords, layouts and limits are in
 * its javadoc; anything not honoured exactly is a {@link dev.leap.fsm.json.JsonSchemaException}
 * with the keyword and its JSON pointer.
 */
package dev.leap.fsm.json;
