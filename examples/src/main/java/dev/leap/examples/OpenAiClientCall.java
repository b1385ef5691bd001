package dev.leap.examples;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonSchemaLocalValidation;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.leap.runtime.DemoModel;
import dev.leap.runtime.LeapRuntime;
import dev.leap.server.LeapServer;

/**
 * The server with the official OpenAI Java client: a Java record as the JSON Schema of a structured
 * output. Starts {@code leap serve}'s server in this process on a free port (against a running
 * {@code ./leap serve}, point {@code baseUrl} at {@code http://127.0.0.1:8000/v1} instead).
 *
 * <p>Run: {@code mvn -q -pl examples -am compile exec:java
 * -Dexec.mainClass=dev.leap.examples.OpenAiClientCall}
 */
public final class OpenAiClientCall {
  /**
   * The answer's shape: the client turns it into a JSON Schema, and the server constrains to it.
   */
  public enum House {
    Gryffindor,
    Slytherin,
    Ravenclaw,
    Hufflepuff
  }

  public record Wizard(String name, House house) {}

  public static void main(String[] args) throws Exception {
    LeapRuntime runtime = LeapRuntime.builder().setModelDir(DemoModel.ensure()).build();
    try (LeapServer server =
        new LeapServer(runtime, LeapServer.Options.defaults().withPort(0)).start()) {
      OpenAIClient client =
          OpenAIOkHttpClient.builder()
              .baseUrl("http://127.0.0.1:" + server.port() + "/v1")
              .apiKey("none")
              .build();
      Wizard w =
          client
              .chat()
              .completions()
              .create(
                  ChatCompletionCreateParams.builder()
                      .model(server.modelName())
                      .addUserMessage(
                          "Hermione Granger is a character in Harry Potter. "
                              + "Please fill in the following information about this character.\n")
                      .temperature(0.0)
                      .maxCompletionTokens(64)
                      .responseFormat(Wizard.class, JsonSchemaLocalValidation.YES)
                      .build())
              .choices()
              .get(0)
              .message()
              .content()
              .orElseThrow();
      System.out.println(w);
    }
  }
}
