package dev.leap.fsm.internal;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The module's one Jackson mapper (thread-safe once configured; never reconfigured after this). */
public final class Json {
  private Json() {}

  /** Reads JSON Schemas and tokenizer files, writes JSON text (constants, layouts). */
  public static final ObjectMapper MAPPER = new ObjectMapper();
}
