package dev.leap.runtime.internal;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The module's one Jackson mapper (thread-safe once configured; never reconfigured after this). */
public final class Json {
  private Json() {}

  /** Reads and writes JSON trees: model configs, tokenizer configs, JSON Schemas. */
  public static final ObjectMapper MAPPER = new ObjectMapper();
}
