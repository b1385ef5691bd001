package dev.leap.server.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.FinishReason;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationHandle;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.OutputListener;
import dev.leap.runtime.SamplingParams;
import dev.leap.server.chat.ChatTemplate;
import dev.leap.server.chat.ChatTemplateException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions} over one {@link LeapRuntime}:
 * reads a request body into runtime requests (one per sample of {@code n}, seeds {@code seed + i},
 * sharing the prompt's cached prefix), submits them, and builds OpenAI's response object with
 * {@code usage} and Leap's {@code leap} statistics. Every request from every connection goes into
 * the same runtime, so they share continuous batching and the radix cache.
 */
public final class Completions {
  private final LeapRuntime runtime;
  private final String modelName;
  private final ChatTemplate chatTemplate;
  private final int contextLength;

  /** {@code chatTemplate} may be null: chat requests are then a 400 naming the missing template. */
  public Completions(
      LeapRuntime runtime, String modelName, ChatTemplate chatTemplate, int contextLength) {
    this.runtime = runtime;
    this.modelName = modelName;
    this.chatTemplate = chatTemplate;
    this.contextLength = contextLength;
  }

  public String modelName() {
    return modelName;
  }

  /** The context length in tokens ({@code max_model_len}). */
  public int contextLength() {
    return contextLength;
  }

  /** The chat roles a message may have (OpenAI's, with the older {@code function}). */
  static final List<String> ROLES =
      List.of("system", "developer", "user", "assistant", "tool", "function");

  /** A parsed request, ready to submit. */
  public record Prepared(
      boolean chat,
      String prompt,
      int[] promptIds,
      Constraint constraint,
      GenerationOptions options) {}

  /** Reads and validates {@code body}; a mistake is a 400 {@link ApiError}. */
  public Prepared prepare(JsonNode body, boolean chat) {
    if (!body.isObject()) {
      throw ApiError.badRequest(null, "the request body must be a JSON object");
    }
    String model = Fields.string(body, "model", "model", null);
    if (model != null && !model.equals(modelName)) {
      throw ApiError.notFound(
          "model",
          "model_not_found",
          "the model '"
              + ApiError.quote(model)
              + "' does not exist; this server serves '"
              + modelName
              + "'");
    }
    Constraint constraint = StructuredOutput.parse(body);
    GenerationOptions options =
        GenerationOptions.parse(body, chat, chat ? contextLength : 16, contextLength);
    if (chat) {
      return new Prepared(true, chatPrompt(body), null, constraint, options);
    }
    JsonNode p = body.get("prompt");
    if (p == null || p.isNull()) {
      throw ApiError.badRequest("prompt", "'prompt' is required");
    }
    if (p.isTextual()) {
      return new Prepared(false, p.asText(), null, constraint, options);
    }
    if (p.isArray() && !p.isEmpty() && p.get(0).isIntegralNumber()) {
      int[] ids = new int[p.size()];
      int vocab = runtime.tokenizer().size();
      for (int i = 0; i < ids.length; i++) {
        JsonNode t = p.get(i);
        if (!t.isIntegralNumber() || t.asLong() < 0 || t.asLong() >= vocab) {
          throw ApiError.badRequest(
              "prompt",
              "'prompt' token "
                  + i
                  + " must be a token id in 0.."
                  + (vocab - 1)
                  + ", got "
                  + ApiError.quote(t.toString()));
        }
        ids[i] = t.asInt();
      }
      return new Prepared(false, null, ids, constraint, options);
    }
    if (p.isArray() && p.size() == 1 && p.get(0).isTextual()) {
      return new Prepared(false, p.get(0).asText(), null, constraint, options);
    }
    throw ApiError.badRequest(
        "prompt",
        "'prompt' must be a string or a list of token ids (one prompt per request), got "
            + Fields.kind(p));
  }

  private String chatPrompt(JsonNode body) {
    JsonNode messages = body.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw ApiError.badRequest(
          "messages", "'messages' must be a non-empty list of {\"role\", \"content\"} objects");
    }
    List<Map<String, Object>> list = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String path = "messages[" + i + "]";
      if (!m.isObject()) {
        throw ApiError.badRequest(path, "'" + path + "' must be an object with role and content");
      }
      String role = Fields.string(m, "role", path + ".role", null);
      if (role == null) {
        throw ApiError.badRequest(path + ".role", "'" + path + ".role' is required");
      }
      if (!ROLES.contains(role)) {
        throw ApiError.badRequest(
            path + ".role",
            "'"
                + path
                + ".role' must be one of "
                + String.join(", ", ROLES)
                + ", got '"
                + ApiError.quote(role)
                + "'");
      }
      Map<String, Object> msg = Json.toJava(m);
      JsonNode content = m.get("content");
      if (content != null && content.isArray()) {
        // OpenAI's content parts: only text parts are supported, joined.
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < content.size(); k++) {
          JsonNode part = content.get(k);
          String at = path + ".content[" + k + "]";
          if (!part.isObject() || !"text".equals(part.path("type").asText())) {
            throw ApiError.badRequest(
                at,
                "only text content parts ({\"type\": \"text\", \"text\": ...}) are supported, got "
                    + (part.isObject()
                        ? "type '" + ApiError.quote(part.path("type").asText()) + "'"
                        : Fields.kind(part)));
          }
          JsonNode text = part.get("text");
          if (text == null || !text.isTextual()) {
            throw ApiError.badRequest(at + ".text", "'" + at + ".text' must be a string");
          }
          sb.append(text.textValue());
        }
        msg.put("content", sb.toString());
      } else if (content == null || content.isNull()) {
        msg.put("content", "");
      } else if (!content.isTextual()) {
        throw ApiError.badRequest(
            path + ".content", "'" + path + ".content' must be a string or a list of text parts");
      }
      list.add(msg);
    }
    if (chatTemplate == null) {
      throw ApiError.badRequest(
          "messages",
          "the model '"
              + modelName
              + "' has no chat template (tokenizer_config.json's "
              + "chat_template); use /v1/completions");
    }
    JsonNode tools = body.get("tools");
    List<Map<String, Object>> toolList = null;
    if (tools != null && !tools.isNull()) {
      if (!tools.isArray()) {
        throw ApiError.badRequest("tools", "'tools' must be a list");
      }
      toolList = new ArrayList<>();
      for (JsonNode t : tools) {
        toolList.add(Json.toJava(t));
      }
    }
    JsonNode kwargs = Fields.object(body, "chat_template_kwargs", "chat_template_kwargs");
    try {
      return chatTemplate.render(
          list, toolList, true, kwargs == null ? Map.of() : Json.toJava(kwargs));
    } catch (ChatTemplateException e) {
      throw ApiError.badRequest("messages", e.getMessage());
    }
  }

  /**
   * The request within the per-request budget: {@code n x max_tokens} output tokens at most {@code
   * maxTokens}, and {@code n x (prompt + max_tokens)} KV slots at most {@code maxKv} (what its
   * samples reserve when none shares the cached prompt). A {@code max_tokens} the client set is a
   * 400 naming the limit; the default one (chat's: the rest of the context) is lowered to fit.
   */
  public Prepared withinBudget(Prepared p, JsonNode body, int maxTokens, int maxKv) {
    int n = p.options().n();
    int asked = p.options().sampling().maxTokens();
    boolean explicit =
        Fields.present(body, "max_tokens")
            || (p.chat() && Fields.present(body, "max_completion_tokens"));
    String param =
        p.chat() && Fields.present(body, "max_completion_tokens")
            ? "max_completion_tokens"
            : "max_tokens";
    int promptTokens =
        p.promptIds() != null
            ? p.promptIds().length
            : runtime.tokenizer() == null ? 0 : runtime.tokenizer().encode(p.prompt()).length;
    long kv = (long) n * (promptTokens + (long) asked);
    if (!explicit) {
      int fit =
          (int)
              Math.max(
                  1, Math.min(asked, Math.min(maxTokens / n, maxKv / n - (long) promptTokens)));
      if (fit < asked) {
        p = withMaxTokens(p, fit);
        asked = fit;
        kv = (long) n * (promptTokens + (long) asked);
      }
    }
    if ((long) n * asked > maxTokens) {
      throw ApiError.badRequest(
          param,
          "n x "
              + param
              + " = "
              + n
              + " x "
              + asked
              + " = "
              + (long) n * asked
              + " output tokens is over this server's limit of "
              + maxTokens
              + " per request (--max-request-tokens)");
    }
    if (kv > maxKv) {
      throw ApiError.badRequest(
          param,
          "n x (prompt + "
              + param
              + ") = "
              + n
              + " x ("
              + promptTokens
              + " + "
              + asked
              + ") = "
              + kv
              + " KV slots is over this server's limit of "
              + maxKv
              + " per request (--max-request-kv)");
    }
    return p;
  }

  private static Prepared withMaxTokens(Prepared p, int maxTokens) {
    SamplingParams s = p.options().sampling();
    SamplingParams capped =
        new SamplingParams(s.temperature(), s.topK(), s.topP(), s.seed(), maxTokens, s.stop());
    GenerationOptions o = p.options();
    return new Prepared(
        p.chat(),
        p.prompt(),
        p.promptIds(),
        p.constraint(),
        new GenerationOptions(capped, o.n(), o.stream(), o.includeUsage(), o.jumpForward()));
  }

  /**
   * Submits the {@code n} samples, sample {@code i} streaming to {@code listeners.apply(i)} (may be
   * null).
   */
  public List<GenerationHandle> submit(Prepared p, IntFunction<OutputListener> listeners) {
    List<GenerationHandle> handles = new ArrayList<>();
    SamplingParams base = p.options().sampling();
    for (int i = 0; i < p.options().n(); i++) {
      SamplingParams s =
          new SamplingParams(
              base.temperature(),
              base.topK(),
              base.topP(),
              base.seed() + i,
              base.maxTokens(),
              base.stop());
      GenerationRequest r =
          p.promptIds() != null
              ? GenerationRequest.ofIds(p.promptIds(), p.constraint(), s)
              : GenerationRequest.of(p.prompt(), p.constraint(), s);
      if (p.options().jumpForward() != null) {
        r = r.withJumpForward(p.options().jumpForward());
      }
      handles.add(runtime.submit(r, listeners.apply(i)));
    }
    return handles;
  }

  /** All samples' results, in order. */
  public static CompletableFuture<List<Generation>> all(List<GenerationHandle> handles) {
    return CompletableFuture.allOf(handles.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> handles.stream().map(CompletableFuture::join).toList());
  }

  /**
   * The response object for finished samples, none of them an error result ({@link #checkErrors}
   * first).
   */
  public ObjectNode response(Prepared p, List<Generation> results) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put(
        "id", (p.chat() ? "chatcmpl-" : "cmpl-") + UUID.randomUUID().toString().replace("-", ""));
    root.put("object", p.chat() ? "chat.completion" : "text_completion");
    root.put("created", System.currentTimeMillis() / 1000);
    root.put("model", modelName);
    ArrayNode choices = root.putArray("choices");
    for (int i = 0; i < results.size(); i++) {
      Generation g = results.get(i);
      ObjectNode c = choices.addObject();
      c.put("index", i);
      if (p.chat()) {
        ObjectNode m = c.putObject("message");
        m.put("role", "assistant");
        m.put("content", g.text());
      } else {
        c.put("text", g.text());
        c.putNull("logprobs");
      }
      c.put("finish_reason", finishReason(g.finishReason()));
    }
    root.set("usage", usage(results));
    root.set("leap", leapStats(results));
    return root;
  }

  /**
   * Throws the first error result among the samples as a 400: the runtime reports a request's own
   * mistakes (a schema it cannot compile, a prompt over the context) as error results.
   */
  public static void checkErrors(Prepared p, List<Generation> results) {
    for (Generation g : results) {
      if (g.isError()) {
        throw ApiError.badRequest(errorParam(p), g.error());
      }
    }
  }

  private static String errorParam(Prepared p) {
    return p.constraint().kind() == Constraint.Kind.NONE
        ? (p.chat() ? "messages" : "prompt")
        : null;
  }

  /** OpenAI's finish reasons: {@code stop} or {@code length}. */
  public static String finishReason(FinishReason r) {
    return r == FinishReason.LENGTH ? "length" : "stop";
  }

  /** {@code usage}: the prompt counted once, the completions summed. */
  public static ObjectNode usage(List<Generation> results) {
    ObjectNode u = JsonNodeFactory.instance.objectNode();
    int prompt = results.isEmpty() ? 0 : results.get(0).stats().promptTokens();
    int cached = results.isEmpty() ? 0 : results.get(0).stats().cachedPromptTokens();
    int completion = 0;
    for (Generation g : results) {
      completion += g.tokenIds().length;
    }
    u.put("prompt_tokens", prompt);
    u.put("completion_tokens", completion);
    u.put("total_tokens", prompt + completion);
    u.putObject("prompt_tokens_details").put("cached_tokens", cached);
    return u;
  }

  /** Leap's own statistics, summed over the samples. */
  public static ObjectNode leapStats(List<Generation> results) {
    long passes = 0;
    long sampled = 0;
    long jumped = 0;
    long bytesJumped = 0;
    long cached = 0;
    for (Generation g : results) {
      passes += g.stats().forwardPasses();
      sampled += g.stats().tokensSampled();
      jumped += g.stats().tokensJumped();
      bytesJumped += g.stats().bytesJumped();
      cached += g.stats().cachedPromptTokens();
    }
    ObjectNode l = JsonNodeFactory.instance.objectNode();
    l.put("forward_passes", passes);
    l.put("tokens_sampled", sampled);
    l.put("tokens_jumped", jumped);
    l.put("bytes_jumped", bytesJumped);
    l.put("cached_prompt_tokens", cached);
    return l;
  }
}
