package dev.leap.vocab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * The exact bytes of every token of a Hugging Face {@code tokenizer.json}, read with Jackson.
 *
 * <p>Two schemes, detected from the {@code decoder} and {@code pre_tokenizer} sections:
 *
 * <ul>
 *   <li>{@link Scheme#BYTE_LEVEL} (GPT-2, Llama 3, Qwen): every character of a token string stands
 *       for one byte through GPT-2's byte-to-unicode table ({@code Ġ} is 0x20, {@code Ċ} is 0x0A).
 *   <li>{@link Scheme#SENTENCEPIECE} (Llama 2, Mistral, Gemma): {@code ▁} is a space, {@code
 *       <0xNN>} byte-fallback tokens are the byte NN, other characters are their UTF-8 bytes.
 * </ul>
 *
 * A token's bytes are what the decoder makes of that token alone, before whole-sequence steps such
 * as stripping a leading space. Added tokens marked {@code special} stand for no text ({@code null}
 * bytes); added tokens not marked special stand for their content, mapped the same way. Ids with no
 * entry have {@code null} bytes. {@link #eosIds()} is empty: {@code tokenizer.json} alone does not
 * say which token ends a sequence ({@link #withEos(int...)} sets them).
 *
 * <p>Immutable and thread-safe.
 */
public final class TokenizerJsonVocabulary implements Vocabulary {
  /** The module's one Jackson mapper. */
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How token strings map to bytes. */
  public enum Scheme {
    BYTE_LEVEL,
    SENTENCEPIECE
  }

  private static final int[] UNICODE_TO_BYTE = byteLevelDecodeTable();

  private final String file;
  private final Scheme scheme;
  private final String[] tokenStrings;
  private final byte[][] bytes;
  private final boolean[] special;
  private final int[] eos;

  private TokenizerJsonVocabulary(
      String file,
      Scheme scheme,
      String[] tokenStrings,
      byte[][] bytes,
      boolean[] special,
      int[] eos) {
    this.file = file;
    this.scheme = scheme;
    this.tokenStrings = tokenStrings;
    this.bytes = bytes;
    this.special = special;
    this.eos = eos;
  }

  /**
   * Reads {@code tokenizer.json}.
   *
   * @throws IllegalArgumentException naming the file: missing, not JSON, not a tokenizer (no {@code
   *     model.vocab}), or a scheme that is neither ByteLevel nor SentencePiece-style
   */
  public static TokenizerJsonVocabulary load(Path tokenizerJson) {
    byte[] json;
    try {
      json = Files.readAllBytes(tokenizerJson);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("tokenizer file not found: " + tokenizerJson);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read tokenizer file " + tokenizerJson + ": " + e.getMessage());
    }
    return parse(json, tokenizerJson.toString());
  }

  /** Parses the bytes of a {@code tokenizer.json}; {@code tokenizerJson} names it in errors. */
  public static TokenizerJsonVocabulary parse(byte[] json, String tokenizerJson) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read tokenizer file " + tokenizerJson + ": " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(
          "not a tokenizer.json (not a JSON object): " + tokenizerJson);
    }
    JsonNode model = root.path("model");
    JsonNode vocab = model.path("vocab");
    if (vocab.isMissingNode() || !(vocab.isObject() || vocab.isArray())) {
      throw new IllegalArgumentException("not a tokenizer.json (no model.vocab): " + tokenizerJson);
    }
    Scheme scheme = detectScheme(root, tokenizerJson);
    int size = 0;
    if (vocab.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
        size = Math.max(size, it.next().getValue().asInt() + 1);
      }
    } else {
      size = vocab.size();
    }
    for (JsonNode a : root.path("added_tokens")) {
      size = Math.max(size, a.path("id").asInt() + 1);
    }
    String[] strings = new String[size];
    byte[][] bytes = new byte[size][];
    boolean[] special = new boolean[size];
    if (vocab.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        int id = e.getValue().asInt();
        strings[id] = e.getKey();
        bytes[id] = toBytes(e.getKey(), scheme);
      }
    } else {
      for (int id = 0; id < vocab.size(); id++) {
        String s = vocab.get(id).get(0).asText();
        strings[id] = s;
        bytes[id] = toBytes(s, scheme);
      }
    }
    for (JsonNode a : root.path("added_tokens")) {
      int id = a.path("id").asInt();
      String content = a.path("content").asText();
      strings[id] = content;
      if (a.path("special").asBoolean(false)) {
        special[id] = true;
        bytes[id] = null;
      } else {
        bytes[id] = toBytes(content, scheme);
      }
    }
    return new TokenizerJsonVocabulary(tokenizerJson, scheme, strings, bytes, special, new int[0]);
  }

  private static Scheme detectScheme(JsonNode root, String file) {
    String decoder = describe(root.path("decoder"));
    String pre = describe(root.path("pre_tokenizer"));
    if (decoder.contains("ByteLevel") || (decoder.isEmpty() && pre.contains("ByteLevel"))) {
      return Scheme.BYTE_LEVEL;
    }
    if (decoder.contains("ByteFallback")
        || decoder.contains("Metaspace")
        || decoder.contains("Replace")
        || pre.contains("Metaspace")) {
      return Scheme.SENTENCEPIECE;
    }
    throw new IllegalArgumentException(
        "unsupported tokenizer in "
            + file
            + ": decoder ["
            + (decoder.isEmpty() ? "none" : decoder)
            + "], pre_tokenizer ["
            + (pre.isEmpty() ? "none" : pre)
            + "]; Leap supports ByteLevel (GPT-2 style) and SentencePiece-style (▁ and <0xNN>) vocabularies");
  }

  /** The types named in a decoder or pre-tokenizer section, including nested sequences. */
  private static String describe(JsonNode n) {
    StringBuilder sb = new StringBuilder();
    collectTypes(n, sb);
    return sb.toString();
  }

  private static void collectTypes(JsonNode n, StringBuilder sb) {
    if (n == null || n.isMissingNode() || n.isNull()) {
      return;
    }
    if (n.has("type")) {
      sb.append(sb.length() == 0 ? "" : ",").append(n.get("type").asText());
    }
    for (String key : new String[] {"decoders", "pretokenizers"}) {
      for (JsonNode c : n.path(key)) {
        collectTypes(c, sb);
      }
    }
  }

  /** The bytes a token string stands for under {@code scheme}. */
  public static byte[] toBytes(String token, Scheme scheme) {
    if (scheme == Scheme.BYTE_LEVEL) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(token.length());
      for (int i = 0; i < token.length(); ) {
        int cp = token.codePointAt(i);
        i += Character.charCount(cp);
        int b = cp < UNICODE_TO_BYTE.length ? UNICODE_TO_BYTE[cp] : -1;
        if (b >= 0) {
          out.write(b);
        } else {
          byte[] raw = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
          out.write(raw, 0, raw.length);
        }
      }
      return out.toByteArray();
    }
    if (token.length() == 6 && token.startsWith("<0x") && token.endsWith(">")) {
      try {
        return new byte[] {(byte) Integer.parseInt(token.substring(3, 5), 16)};
      } catch (NumberFormatException e) {
        // not a byte token: fall through
      }
    }
    return token.replace('\u2581', ' ').getBytes(StandardCharsets.UTF_8);
  }

  /** GPT-2's bytes_to_unicode, inverted: code point to byte, -1 where none. */
  private static int[] byteLevelDecodeTable() {
    int[] byteToUnicode = new int[256];
    boolean[] printable = new boolean[256];
    for (int b = '!'; b <= '~'; b++) {
      printable[b] = true;
    }
    for (int b = 0xA1; b <= 0xAC; b++) {
      printable[b] = true;
    }
    for (int b = 0xAE; b <= 0xFF; b++) {
      printable[b] = true;
    }
    int n = 0;
    for (int b = 0; b < 256; b++) {
      byteToUnicode[b] = printable[b] ? b : 256 + n++;
    }
    int[] inverse = new int[512];
    Arrays.fill(inverse, -1);
    for (int b = 0; b < 256; b++) {
      inverse[byteToUnicode[b]] = b;
    }
    return inverse;
  }

  /** A copy with these end-of-sequence ids. */
  public TokenizerJsonVocabulary withEos(int... eosIds) {
    return new TokenizerJsonVocabulary(file, scheme, tokenStrings, bytes, special, eosIds.clone());
  }

  @Override
  public int size() {
    return bytes.length;
  }

  @Override
  public byte[] tokenBytes(int id) {
    return id >= 0 && id < bytes.length ? bytes[id] : null;
  }

  @Override
  public int[] eosIds() {
    return eos.clone();
  }

  /** The token's string as written in {@code tokenizer.json}, or null if the id has no entry. */
  public String tokenString(int id) {
    return id >= 0 && id < tokenStrings.length ? tokenStrings[id] : null;
  }

  /** Whether the id is an added token marked special (it stands for no text). */
  public boolean isSpecial(int id) {
    return id >= 0 && id < special.length && special[id];
  }

  /**
   * The id of a token string (vocabulary or added token), or -1. Linear: for setup, not hot paths.
   */
  public int idOf(String tokenString) {
    for (int i = 0; i < tokenStrings.length; i++) {
      if (tokenString.equals(tokenStrings[i])) {
        return i;
      }
    }
    return -1;
  }

  public Scheme scheme() {
    return scheme;
  }

  /** The file (or resource) it was read from. */
  public String source() {
    return file;
  }
}
