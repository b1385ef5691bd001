/**
 * Chat templates: a model's Jinja {@code chat_template} rendered byte for byte as {@code
 * transformers} renders it ({@link dev.leap.server.chat.ChatTemplate}).
 */
package dev.leap.server.chat;
