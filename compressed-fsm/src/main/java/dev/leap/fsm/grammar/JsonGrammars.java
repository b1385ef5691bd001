package dev.leap.fsm.grammar;

/**
 * The built-in free-form JSON grammars: the language the JSON Schema compiler gives a value it
 * knows nothing about (compact layout: no whitespace anywhere; strings with every spelling JSON
 * allows, four-hex-digit {@code u} escapes included; numbers in JSON's full syntax), with
 * containers nested without bound. The same GBNF is {@code docs/grammars/json.gbnf}.
 */
final class JsonGrammars {
  private JsonGrammars() {}

  static final String VALUE_RULES =
      String.join(
          "\n",
          "value  ::= object | array | string | number | \"true\" | \"false\" | \"null\"",
          "object ::= \"{\" ( member ( \",\" member )* )? \"}\"",
          "member ::= string \":\" value",
          "array  ::= \"[\" ( value ( \",\" value )* )? \"]\"",
          "string ::= \"\\\"\" char* \"\\\"\"",
          "char   ::= [^\"\\\\\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9A-Fa-f]{4} )",
          "number ::= \"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [+-]? [0-9]+ )?",
          "");

  static final String JSON_TEXT = "root   ::= value\n" + VALUE_RULES;
  static final String JSON_OBJECT_TEXT = "root   ::= object\n" + VALUE_RULES;

  static final Grammar JSON = Grammar.parse(JSON_TEXT);
  static final Grammar JSON_OBJECT = Grammar.parse(JSON_OBJECT_TEXT);
}
