package dev.leap.train.internal;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The module's one Jackson mapper (thread-safe once configured; never reconfigured after this). */
public final class Json {
  private Json() {}

  /** Checkpoint state, training logs, tokenizer files, the SGLang inputs. */
  public static final ObjectMapper MAPPER = new ObjectMapper();
}
