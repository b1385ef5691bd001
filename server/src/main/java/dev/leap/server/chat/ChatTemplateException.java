package dev.leap.server.chat;

/**
 * A chat template that cannot render a conversation: the message says where and why (for an HTTP
 * 400).
 */
public final class ChatTemplateException extends RuntimeException {
  public ChatTemplateException(String message) {
    super(message);
  }
}
