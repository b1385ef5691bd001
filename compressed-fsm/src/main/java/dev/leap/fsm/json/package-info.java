/**
 * JSON Schema constraints: {@link dev.leap.fsm.json.JsonSchema} (the facade: {@code compile},
 * {@code compileDetailed}, {@code toRegex}) turns a schema into a regex tree, then the regex
 * pipeline's DFA and jump edges. Supported keywords, layouts and limits are in its javadoc;
 * anything not honoured exactly is a {@link dev.leap.fsm.json.JsonSchemaException} with the keyword
 * and its JSON pointer.
 *
 * <p>Inside, one concept per class, all package-private: {@code Converter} dispatches a schema to
 * the converter of its kind of value ({@code StringValues}, {@code NumberValues}, {@code
 * ArrayValues}, {@code ObjectValues} with {@code MemberLayout} and {@code ExtraMembers}, {@code
 * AnyValues}) and to the combinators ({@code References} for {@code $ref} and recursion, {@code
 * SchemaMerge} for {@code allOf}, {@code Alternatives} for {@code anyOf}/{@code oneOf}, {@code
 * PresenceSchemas} and {@code Dependencies} for member presence); {@code JsonLayout} is the only
 * place that knows the indent and separators; {@code Keywords} holds the keyword tables. The regex
 * trees are built with {@link dev.leap.fsm.internal.Trees}. Imports point from the facade down,
 * never back up into it.
 */
package dev.leap.fsm.json;
