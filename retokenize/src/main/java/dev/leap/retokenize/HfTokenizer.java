package dev.leap.retokenize;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leap.vocab.TokenizerJsonVocabulary;
import it.unimi.dsi.fastutil.ints.IntLinkedOpenHashSet;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * A {@link Tokenizer} over DJL's {@link HuggingFaceTokenizer} (the Rust {@code tokenizers} library)
 * for any Hugging Face {@code tokenizer.json} of the ByteLevel or SentencePiece-style scheme.
 *
 * <p>Encoding goes through DJL, built with truncation, padding and special tokens off (DJL
 * truncates to 512 tokens by default). Token bytes come from {@code tokenizer.json} itself ({@link
 * TokenizerJsonVocabulary}); DJL's {@code decode} is not byte-exact and is not used. EOS ids are
 * the union of {@code tokenizer_config.json}'s {@code eos_token} and {@code
 * generation_config.json}'s {@code eos_token_id} (an int or a list), from the same folder.
 *
 * <p>Thread-safe: the native tokenizer is immutable and may encode concurrently.
 */
public final class HfTokenizer implements Tokenizer, AutoCloseable {
  private static final String GPT2_RESOURCE = "/dev/leap/retokenize/gpt2/tokenizer.json";
  private static final int GPT2_EOS = 50256;

  private final HuggingFaceTokenizer djl;
  private final TokenizerJsonVocabulary vocab;
  private final int[] eos;

  private HfTokenizer(HuggingFaceTokenizer djl, TokenizerJsonVocabulary vocab, int[] eos) {
    this.djl = djl;
    this.vocab = vocab;
    this.eos = eos;
  }

  /**
   * Loads {@code tokenizer.json}.
   *
   * @throws IllegalArgumentException naming the file: missing, not a tokenizer, or an unsupported
   *     scheme
   */
  public static HfTokenizer load(Path tokenizerJson) {
    TokenizerJsonVocabulary vocab = TokenizerJsonVocabulary.load(tokenizerJson);
    byte[] json;
    try {
      json = Files.readAllBytes(tokenizerJson);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read tokenizer file " + tokenizerJson + ": " + e.getMessage());
    }
    Path dir = tokenizerJson.toAbsolutePath().getParent();
    int[] eos = eosIds(vocab, dir);
    return new HfTokenizer(
        open(new ByteArrayInputStream(json), tokenizerJson.toString()), vocab.withEos(eos), eos);
  }

  /** GPT-2's tokenizer, shipped as a resource. */
  public static HfTokenizer gpt2() {
    try (InputStream in = HfTokenizer.class.getResourceAsStream(GPT2_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "the GPT-2 tokenizer resource is missing: " + GPT2_RESOURCE);
      }
      byte[] json = in.readAllBytes();
      TokenizerJsonVocabulary vocab =
          TokenizerJsonVocabulary.parse(json, GPT2_RESOURCE).withEos(GPT2_EOS);
      return new HfTokenizer(
          open(new ByteArrayInputStream(json), GPT2_RESOURCE), vocab, new int[] {GPT2_EOS});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The shipped GPT-2 {@code tokenizer.json}, copied to {@code target} (for model directories). */
  public static void copyGpt2(Path target) {
    try (InputStream in = HfTokenizer.class.getResourceAsStream(GPT2_RESOURCE)) {
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static HuggingFaceTokenizer open(InputStream json, String name) {
    try {
      return HuggingFaceTokenizer.newInstance(
          json, Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false"));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot load tokenizer " + name + ": " + e.getMessage(), e);
    }
  }

  private static int[] eosIds(TokenizerJsonVocabulary vocab, Path dir) {
    IntLinkedOpenHashSet ids = new IntLinkedOpenHashSet();
    ObjectMapper m = new ObjectMapper();
    Path config = dir.resolve("tokenizer_config.json");
    if (Files.exists(config)) {
      try {
        JsonNode eos = m.readTree(config.toFile()).path("eos_token");
        String content = eos.isTextual() ? eos.asText() : eos.path("content").asText(null);
        if (content != null) {
          int id = vocab.idOf(content);
          if (id >= 0) {
            ids.add(id);
          }
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read " + config + ": " + e.getMessage());
      }
    }
    Path gen = dir.resolve("generation_config.json");
    if (Files.exists(gen)) {
      try {
        JsonNode eos = m.readTree(gen.toFile()).path("eos_token_id");
        if (eos.isInt()) {
          ids.add(eos.asInt());
        } else if (eos.isArray()) {
          for (JsonNode e : eos) {
            ids.add(e.asInt());
          }
        } else if (!eos.isMissingNode() && !eos.isNull()) {
          throw new IllegalArgumentException(
              gen + ": eos_token_id must be an int or a list of ints, found " + eos);
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read " + gen + ": " + e.getMessage());
      }
    }
    return ids.toIntArray();
  }

  @Override
  public int[] encode(String text) {
    return encode(text, false);
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) {
    Encoding e = djl.encode(text, addSpecialTokens, false);
    long[] ids = e.getIds();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public String decode(int[] ids) {
    return new String(bytes(ids, 0, ids.length), StandardCharsets.UTF_8);
  }

  @Override
  public int size() {
    return vocab.size();
  }

  @Override
  public byte[] tokenBytes(int id) {
    return vocab.tokenBytes(id);
  }

  @Override
  public int[] eosIds() {
    return eos.clone();
  }

  @Override
  public boolean isSpecial(int id) {
    return vocab.isSpecial(id);
  }

  /** The token strings and byte scheme as read from {@code tokenizer.json}. */
  public TokenizerJsonVocabulary vocabulary() {
    return vocab;
  }

  @Override
  public void close() {
    djl.close();
  }
}
