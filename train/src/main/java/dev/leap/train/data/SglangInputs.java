package dev.leap.train.data;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.train.internal.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The inputs of SGLang's jump-forward benchmark that ship with Leap (resources under {@code
 * sglang/}: {@code regexes.json} and {@code dataset.txt}, copied unchanged from SGLang,
 * Apache-2.0): the 50 character names, {@code character_regex}, {@code city_regex} and their prompt
 * templates. The demo and the character and long-document benchmarks read them from here, so they
 * need nothing beside the repository.
 */
public final class SglangInputs {
  private SglangInputs() {}

  private static final String DIR = "sglang/";
  private static volatile JsonNode regexes;

  /**
   * A node of {@code regexes.json} under {@code json_jump_forward} ({@code character_regex}, {@code
   * city_regex}).
   */
  public static JsonNode jumpForward(String name) {
    JsonNode n = regexesJson().get("json_jump_forward").get(name);
    if (n == null) {
      throw new IllegalArgumentException(
          "no benchmark named " + name + " in " + DIR + "regexes.json");
    }
    return n;
  }

  /** {@code character_regex} (Python {@code re} text). */
  public static String characterRegex() {
    return jumpForward("character_regex").get("pattern").asText();
  }

  /** {@code city_regex} (Python {@code re} text). */
  public static String cityRegex() {
    return jumpForward("city_regex").get("pattern").asText();
  }

  /** The character prompt template, with {@code {name}} for the name. */
  public static String characterPromptTemplate() {
    return jumpForward("character_regex").get("prompt_template").asText();
  }

  /** The city prompt template, with {@code {document}} for the article. */
  public static String cityPromptTemplate() {
    return jumpForward("city_regex").get("prompt_template").asText();
  }

  /** The 50 character names of {@code dataset.txt}, in order. */
  public static List<String> characterNames() {
    return new String(read("dataset.txt"), StandardCharsets.UTF_8)
        .lines()
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  /** The raw bytes of one shipped file ({@code regexes.json} or {@code dataset.txt}). */
  public static byte[] read(String file) {
    try (InputStream in = SglangInputs.class.getResourceAsStream(DIR + file)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource " + DIR + file + " is missing from the train module");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode regexesJson() {
    JsonNode r = regexes;
    if (r == null) {
      try {
        r = Json.MAPPER.readTree(read("regexes.json"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      regexes = r;
    }
    return r;
  }
}
