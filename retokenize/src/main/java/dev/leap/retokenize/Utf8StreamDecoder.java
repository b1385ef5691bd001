package dev.leap.retokenize;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Streaming text from token bytes: each call returns the text completed so far and holds back an
 * incomplete UTF-8 sequence at the end until its remaining bytes arrive (so a character split across
 * tokens never shows as U+FFFD). Malformed bytes become U+FFFD. Not thread-safe.
 */
public final class Utf8StreamDecoder {
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPLACE)
      .onUnmappableCharacter(CodingErrorAction.REPLACE);
  private ByteBuffer pending = ByteBuffer.allocate(16);

  /** The text that {@code bytes} complete (with what was held back before). */
  public String feed(byte[] bytes) {
    if (pending.remaining() < bytes.length) {
      ByteBuffer bigger = ByteBuffer.allocate(pending.position() + bytes.length + 16);
      pending.flip();
      bigger.put(pending);
      pending = bigger;
    }
    pending.put(bytes);
    pending.flip();
    CharBuffer out = CharBuffer.allocate(pending.remaining() + 1);
    CoderResult r = decoder.decode(pending, out, false);
    if (r.isError()) {
      throw new IllegalStateException("decoder error " + r);
    }
    pending.compact();
    out.flip();
    return out.toString();
  }

  /** The rest at the end of the stream (an incomplete sequence becomes U+FFFD). */
  public String finish() {
    pending.flip();
    CharBuffer out = CharBuffer.allocate(pending.remaining() + 2);
    decoder.decode(pending, out, true);
    decoder.flush(out);
    pending.clear();
    decoder.reset();
    out.flip();
    return out.toString();
  }
}
