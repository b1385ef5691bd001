package dev.leap.model;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The module's one Jackson mapper (thread-safe once configured; never reconfigured after this). */
final class Json {
  private Json() {}

  /** Reads and writes JSON trees: model configs, safetensors headers. */
  static final ObjectMapper MAPPER = new ObjectMapper();
}
