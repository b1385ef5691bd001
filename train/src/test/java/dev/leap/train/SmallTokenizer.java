package dev.leap.train;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.tokenizer.BpeTrainer;
import dev.leap.train.tokenizer.TokenizerCorpus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small tokenizer of the project's BPE (900 tokens, trained on a small corpus) for tests, trained
 * once per JVM.
 */
@SuppressWarnings(
    "exports") // BpeTrainer (tokenizer, not exported): a helper for this module's tests
public final class SmallTokenizer {
  private SmallTokenizer() {}

  private static HfTokenizer tokenizer;
  private static BpeTrainer.Merges merges;

  public static synchronized HfTokenizer get() {
    if (tokenizer == null) {
      try {
        Path dir = Files.createTempDirectory("leap-bpe");
        dir.toFile().deleteOnExit();
        merges = BpeTrainer.train(TokenizerCorpus.texts(3, 12, 24), 900);
        BpeTrainer.write(merges, dir);
        tokenizer = HfTokenizer.load(dir.resolve("tokenizer.json"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return tokenizer;
  }

  public static synchronized BpeTrainer.Merges merges() {
    get();
    return merges;
  }
}
