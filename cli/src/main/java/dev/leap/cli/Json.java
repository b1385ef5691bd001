package dev.leap.cli;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The module's one Jackson mapper (thread-safe once configured; never reconfigured after this). */
final class Json {
  private Json() {}

  /** The commands' JSON output and input. */
  static final ObjectMapper MAPPER = new ObjectMapper();
}
