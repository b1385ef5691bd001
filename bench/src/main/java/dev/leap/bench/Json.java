package dev.leap.bench;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The module's one Jackson mapper (thread-safe once configured; never reconfigured after this). */
public final class Json {
  private Json() {}

  /**
   * Reads and writes JSON trees: benchmark results, request and response bodies, tokenizer files,
   * schema corpora, profiler traces.
   */
  public static final ObjectMapper MAPPER = new ObjectMapper();
}
