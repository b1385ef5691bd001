package dev.leap.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationHandle;
import dev.leap.runtime.OutputListener;
import dev.leap.server.openai.ApiError;
import dev.leap.server.openai.Completions;
import dev.leap.server.openai.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One {@code "stream": true} request as OpenAI's clients parse it: {@code data: <chunk>} events,
 * for chat a first delta with the role, then text deltas as the runtime delivers them (a jump's
 * forced text in one delta), a last chunk per choice with its {@code finish_reason}, the usage
 * chunk with {@code "choices": []} when {@code stream_options.include_usage} (every other chunk
 * then has {@code "usage": null}), and {@code data: [DONE]}. Nothing is written before the first
 * text or the end, so a request the runtime refuses (a schema it cannot compile) is still a plain
 * 400. A client that goes away fails the next write, which cancels every sample of the request.
 */
final class StreamedCompletion {
  private final Completions.Prepared prepared;
  private final String model;
  private final String id;
  private final long created = System.currentTimeMillis() / 1000;
  private final SseWriter out;
  private final List<GenerationHandle> handles = new ArrayList<>();
  private final StringBuilder[] sent;
  private final boolean[] roleSent;

  StreamedCompletion(Completions.Prepared prepared, String model, SseWriter.Factory writers) {
    this.prepared = prepared;
    this.model = model;
    this.id =
        (prepared.chat() ? "chatcmpl-" : "cmpl-") + UUID.randomUUID().toString().replace("-", "");
    int n = prepared.options().n();
    this.sent = new StringBuilder[n];
    this.roleSent = new boolean[n];
    for (int i = 0; i < n; i++) {
      sent[i] = new StringBuilder();
    }
    this.out = writers.create(() -> handles.forEach(GenerationHandle::cancel));
  }

  /** The listener of sample {@code index}: runs on the scheduler thread, only queues. */
  OutputListener listener(int index) {
    return delta -> {
      synchronized (this) {
        sent[index].append(delta);
        text(index, delta);
      }
    };
  }

  void add(GenerationHandle h) {
    handles.add(h);
  }

  /** Sample {@code index} ended with {@code g}: the rest of its text, then its finish reason. */
  synchronized void finished(int index, Generation g) {
    String all = g.text();
    String already = sent[index].toString();
    if (all.startsWith(already) && all.length() > already.length()) {
      text(index, all.substring(already.length()));
    } else {
      role(index);
    }
    ObjectNode c = chunk();
    ObjectNode choice = ((ArrayNode) c.get("choices")).addObject();
    choice.put("index", index);
    if (prepared.chat()) {
      choice.putObject("delta");
    } else {
      choice.put("text", "");
      choice.putNull("logprobs");
    }
    choice.put("finish_reason", Completions.finishReason(g.finishReason()));
    out.event(c.toString());
  }

  /** A refused request after the stream began: OpenAI's error object as an event, then the end. */
  synchronized void error(ApiError e) {
    out.event(e.body().toString());
    out.event("[DONE]");
    out.finish();
  }

  /** After the last sample: the usage chunk if asked, then {@code [DONE]}. */
  synchronized void end(List<Generation> results) {
    if (prepared.options().includeUsage()) {
      ObjectNode c = chunk();
      c.set("usage", Completions.usage(results));
      c.set("leap", Completions.leapStats(results));
      out.event(c.toString());
    }
    out.event("[DONE]");
    out.finish();
  }

  boolean started() {
    return out.started();
  }

  private void text(int index, String delta) {
    role(index);
    ObjectNode c = chunk();
    ObjectNode choice = ((ArrayNode) c.get("choices")).addObject();
    choice.put("index", index);
    if (prepared.chat()) {
      choice.putObject("delta").put("content", delta);
    } else {
      choice.put("text", delta);
      choice.putNull("logprobs");
    }
    choice.putNull("finish_reason");
    out.event(c.toString());
  }

  /** For chat, the first chunk of a choice carries the role. */
  private void role(int index) {
    if (!prepared.chat() || roleSent[index]) {
      return;
    }
    roleSent[index] = true;
    ObjectNode c = chunk();
    ObjectNode choice = ((ArrayNode) c.get("choices")).addObject();
    choice.put("index", index);
    ObjectNode d = choice.putObject("delta");
    d.put("role", "assistant");
    d.put("content", "");
    choice.putNull("finish_reason");
    out.event(c.toString());
  }

  private ObjectNode chunk() {
    ObjectNode c = Json.MAPPER.createObjectNode();
    c.put("id", id);
    c.put("object", prepared.chat() ? "chat.completion.chunk" : "text_completion");
    c.put("created", created);
    c.put("model", model);
    c.putArray("choices");
    if (prepared.options().includeUsage()) {
      c.putNull("usage");
    }
    return c;
  }
}
