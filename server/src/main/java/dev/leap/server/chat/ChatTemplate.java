package dev.leap.server.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jinjava.javax.el.CompositeELResolver;

/**
 * A model's chat template ({@code chat_template} of {@code tokenizer_config.json}), rendered so
 * that the prompt's bytes are what {@code transformers}' {@code apply_chat_template} writes: Jinja
 * with {@code trim_blocks} and {@code lstrip_blocks}, {@code tojson} as Python's {@code json.dumps}
 * with {@code ensure_ascii=False} ({@link PythonJson}), Python's string methods ({@link
 * PythonStringMethods}), {@code raise_exception} and {@code strftime_now}, and variables {@code
 * messages}, {@code tools}, {@code add_generation_prompt}, {@code bos_token}, {@code eos_token}
 * plus the request's {@code chat_template_kwargs} (such as Qwen3's {@code enable_thinking}). A
 * template error or {@code raise_exception} is a {@link ChatTemplateException} naming the template
 * line; nothing renders silently wrong.
 *
 * <p>Thread-safe: each render uses its own interpreter.
 */
public final class ChatTemplate {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String source;
  private final String bosToken;
  private final String eosToken;
  private final Jinjava jinjava;

  private ChatTemplate(String source, String bosToken, String eosToken) {
    this.source = TemplateRewrites.apply(source);
    this.bosToken = bosToken;
    this.eosToken = eosToken;
    CompositeELResolver resolver = new CompositeELResolver();
    resolver.add(new PythonStringMethods());
    resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
    JinjavaConfig config =
        JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            .withLstripBlocks(true)
            .withElResolver(resolver)
            .withLegacyOverrides(
                LegacyOverrides.newBuilder()
                    .withUseTrimmingForNotesAndExpressions(true) // {{- x }} trims as in Jinja
                    .withParseWhitespaceControlStrictly(true)
                    .withUseNaturalOperatorPrecedence(true)
                    .withKeepNullableLoopValues(true)
                    .withHandleBackslashInQuotesOnly(true)
                    .withIterateOverMapKeys(true) // {% for k in dict %} yields keys, as in Python
                    .build())
            .build();
    this.jinjava = new Jinjava(config);
    jinjava.registerFilter(new ToJson());
    try {
      jinjava.registerFunction(
          new ELFunctionDefinition(
              "", "raise_exception", ChatTemplate.class, "raiseException", String.class));
      jinjava.registerFunction(
          new ELFunctionDefinition(
              "", "strftime_now", ChatTemplate.class, "strftimeNow", String.class));
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot register template functions", e);
    }
  }

  /**
   * A template from its source and the tokenizer's special tokens (empty when the model has none).
   */
  public static ChatTemplate of(String source, String bosToken, String eosToken) {
    return new ChatTemplate(
        source, bosToken == null ? "" : bosToken, eosToken == null ? "" : eosToken);
  }

  /**
   * The template of a model directory's {@code tokenizer_config.json} ({@code chat_template} as a
   * string, or the entry named {@code default} of a list). Throws {@link ChatTemplateException}
   * when the file is missing or has no template.
   */
  public static ChatTemplate fromModelDir(Path dir) {
    Path file = dir.resolve("tokenizer_config.json");
    JsonNode config;
    try {
      config = JSON.readTree(Files.readString(file));
    } catch (NoSuchFileException e) {
      throw new ChatTemplateException("no chat template: " + file + " does not exist");
    } catch (IOException e) {
      throw new ChatTemplateException("cannot read " + file + ": " + e.getMessage());
    }
    JsonNode t = config.get("chat_template");
    String source = null;
    if (t != null && t.isTextual()) {
      source = t.asText();
    } else if (t != null && t.isArray()) {
      for (JsonNode named : t) {
        if ("default".equals(named.path("name").asText())) {
          source = named.path("template").asText();
        }
      }
    }
    if (source == null) {
      throw new ChatTemplateException("no chat template in " + file + " (field chat_template)");
    }
    return of(source, token(config.get("bos_token")), token(config.get("eos_token")));
  }

  private static String token(JsonNode n) {
    if (n == null || n.isNull()) {
      return "";
    }
    return n.isTextual() ? n.asText() : n.path("content").asText("");
  }

  /**
   * The prompt for {@code messages} (maps with {@code role}, {@code content} and, for tool use,
   * {@code tool_calls}), with the tool definitions {@code tools} (or null), ending with the
   * assistant's header when {@code addGenerationPrompt}; {@code kwargs} become template variables.
   */
  public String render(
      List<Map<String, Object>> messages,
      List<Map<String, Object>> tools,
      boolean addGenerationPrompt,
      Map<String, Object> kwargs) {
    Map<String, Object> vars = new LinkedHashMap<>();
    if (kwargs != null) {
      vars.putAll(kwargs);
    }
    vars.put("messages", messages);
    if (tools != null) {
      vars.put("tools", tools);
    }
    vars.put("add_generation_prompt", addGenerationPrompt);
    vars.put("bos_token", bosToken);
    vars.put("eos_token", eosToken);
    RenderResult result = jinjava.renderForResult(source, vars);
    for (TemplateError e : result.getErrors()) {
      if (e.getSeverity() == TemplateError.ErrorType.FATAL) {
        Throwable cause = e.getException();
        while (cause != null && !(cause instanceof ChatTemplateException)) {
          cause = cause.getCause();
        }
        if (cause != null) {
          throw (ChatTemplateException) cause;
        }
        throw new ChatTemplateException(
            "chat template error at line " + e.getLineno() + ": " + e.getMessage());
      }
    }
    return result.getOutput();
  }

  /** {@code raise_exception(message)}: the template refuses the conversation. */
  public static String raiseException(String message) {
    throw new ChatTemplateException("the chat template refused the messages: " + message);
  }

  /**
   * {@code strftime_now(format)}: the local time in a C {@code strftime} format (the common
   * directives).
   */
  public static String strftimeNow(String format) {
    LocalDateTime now = LocalDateTime.now();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        sb.append(c);
        continue;
      }
      char d = format.charAt(++i);
      String pattern =
          switch (d) {
            case 'd' -> "dd";
            case 'm' -> "MM";
            case 'Y' -> "yyyy";
            case 'y' -> "yy";
            case 'H' -> "HH";
            case 'M' -> "mm";
            case 'S' -> "ss";
            case 'b' -> "MMM";
            case 'B' -> "MMMM";
            case 'a' -> "EEE";
            case 'A' -> "EEEE";
            default -> null;
          };
      if (pattern == null) {
        sb.append(d == '%' ? "%" : "%" + d);
      } else {
        sb.append(now.format(DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH)));
      }
    }
    return sb.toString();
  }

  /**
   * {@code tojson} as transformers defines it: {@code json.dumps(x, ensure_ascii=False,
   * indent=indent)}.
   */
  private static final class ToJson implements Filter {
    @Override
    public String getName() {
      return "tojson";
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
      int indent = -1;
      if (args != null && args.length > 0 && args[0] != null && !args[0].isBlank()) {
        String a = args[0].strip();
        if (a.startsWith("indent=")) {
          a = a.substring("indent=".length());
        }
        try {
          indent = Integer.parseInt(a.strip());
        } catch (NumberFormatException e) {
          indent = -1;
        }
      }
      return PythonJson.dumps(var, indent);
    }

    @Override
    public Object filter(
        Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
      Object indent = kwargs == null ? null : kwargs.get("indent");
      if (indent == null && args != null && args.length > 0) {
        indent = args[0];
      }
      int n = indent instanceof Number num ? num.intValue() : -1;
      return PythonJson.dumps(var, n);
    }
  }
}
