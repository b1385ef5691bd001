package dev.leap.fsm.json;

import dev.leap.fsm.ConstraintException;

/** A JSON Schema keyword that cannot be honoured exactly, with its JSON pointer. */
public class JsonSchemaException extends ConstraintException {
  private static final long serialVersionUID = 1L;

  private final String keyword;
  private final String pointer;

  public JsonSchemaException(String keyword, String pointer, String why) {
    super(
        "unsupported JSON Schema keyword '"
            + keyword
            + "' at "
            + (pointer.isEmpty() ? "#" : "#" + pointer)
            + ": "
            + why);
    this.keyword = keyword;
    this.pointer = pointer;
  }

  public String keyword() {
    return keyword;
  }

  /** The JSON pointer of the schema object holding the keyword ({@code ""} for the root). */
  public String pointer() {
    return pointer;
  }
}
