package dev.leap.train;

import ai.djl.engine.Engine;
import dev.leap.model.ModelConfig;
import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.model.ModelGrowth;
import dev.leap.train.model.TrainableLlama;
import dev.leap.train.model.VocabularySurgery;
import dev.leap.train.tokenizer.BpeTrainer;
import dev.leap.train.tokenizer.TokenizerCorpus;
import dev.leap.train.tokenizer.VocabularyExtension;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a copy-recipe run starts from: its tokenizer (trained into {@code WORK/tokenizer} on first
 * use, or the digit-group extension of {@code --init-from}'s), the model's shape for a vocabulary,
 * the warm start of {@code --init-from} with its embedding grown for the digit groups, and the
 * grown start of {@code --grow-from}.
 */
final class CopyStart {
  private final CopyOptions o;
  private final PrintWriter log;

  CopyStart(CopyOptions options, PrintWriter log) {
    this.o = options;
    this.log = log;
  }

  /**
   * The tokenizer of the run: {@code WORK/tokenizer/tokenizer.json}, trained there first if absent.
   */
  HfTokenizer tokenizer() throws IOException {
    Path dir = o.workDir().resolve("tokenizer");
    if (!Files.exists(dir.resolve("tokenizer.json")) && o.growFrom() != null) {
      Path tmp = o.workDir().resolve("tokenizer.tmp");
      Files.createDirectories(tmp);
      for (String f : List.of("tokenizer.json", "tokenizer_config.json")) {
        Files.copy(o.growFrom().resolve(f), tmp.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      }
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      log.printf("took the tokenizer of %s -> %s%n", o.growFrom(), dir.resolve("tokenizer.json"));
      log.flush();
    } else if (!Files.exists(dir.resolve("tokenizer.json")) && o.initFrom() != null) {
      VocabularyExtension.Extension e = extension();
      Path tmp = o.workDir().resolve("tokenizer.tmp");
      VocabularyExtension.write(e, tmp);
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      log.printf(
          Locale.ROOT,
          "extended the tokenizer of %s with digit groups of up to %d: %,d -> %,d tokens (EOS %d -> %d) -> %s%n",
          o.initFrom(),
          o.digitGroup(),
          e.oldEos() + 1,
          e.newEos() + 1,
          e.oldEos(),
          e.newEos(),
          dir.resolve("tokenizer.json"));
      log.flush();
    } else if (!Files.exists(dir.resolve("tokenizer.json"))) {
      long t0 = System.nanoTime();
      List<String> texts =
          TokenizerCorpus.texts(o.seed(), o.tokenizerArticles(), o.tokenizerArticles() * 4);
      BpeTrainer.Merges merges = BpeTrainer.train(texts, o.vocabSize());
      Path tmp = o.workDir().resolve("tokenizer.tmp");
      int tokens = merges.vocabSize();
      if (o.digitGroup() > 1) {
        VocabularyExtension.Extension e = VocabularyExtension.digitGroups(merges, o.digitGroup());
        VocabularyExtension.write(e, tmp);
        tokens = e.newEos() + 1;
      } else {
        BpeTrainer.write(merges, tmp);
      }
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      log.printf(
          Locale.ROOT,
          "trained the tokenizer: %,d tokens (%s) from %,d texts in %.0f s -> %s%n",
          tokens,
          o.digitGroup() > 1
              ? "with digit groups of up to " + o.digitGroup() + " digits"
              : "single digits",
          texts.size(),
          (System.nanoTime() - t0) / 1e9,
          dir.resolve("tokenizer.json"));
      log.flush();
    }
    return HfTokenizer.load(dir.resolve("tokenizer.json"));
  }

  /** The digit-group extension of the tokenizer of {@code --init-from}. */
  private VocabularyExtension.Extension extension() throws IOException {
    return VocabularyExtension.digitGroups(
        VocabularyExtension.read(o.initFrom().resolve("tokenizer.json")), o.digitGroup());
  }

  /**
   * The warm start of {@code --init-from}: its model (a Hugging Face directory of this recipe's
   * shape with the old tokenizer) with the embedding grown for the digit groups ({@link
   * VocabularySurgery}: each new row the mean of its digits' rows plus noise of {@code initNoise}
   * times the table's standard deviation, EOS's row moved to the new last id).
   */
  TrainableLlama warmStart(ModelConfig config, HfTokenizer tokenizer) throws IOException {
    ModelConfig old = ModelConfig.load(o.initFrom());
    VocabularyExtension.Extension e = extension();
    ModelConfig expected = shape(e.oldEos() + 1);
    if (old.vocabSize() != expected.vocabSize()
        || old.hiddenSize() != expected.hiddenSize()
        || old.intermediateSize() != expected.intermediateSize()
        || old.numLayers() != expected.numLayers()
        || old.numHeads() != expected.numHeads()
        || old.numKvHeads() != expected.numKvHeads()
        || old.headDim() != expected.headDim()
        || !old.tieWordEmbeddings()) {
      throw new IllegalArgumentException(
          "--init-from "
              + o.initFrom()
              + " is not this recipe's shape (set --hidden, --layers, --context as it was trained): "
              + old
              + " against "
              + expected);
    }
    if (tokenizer.size() != e.newEos() + 1) {
      throw new IllegalArgumentException(
          o.workDir().resolve("tokenizer")
              + " is not the digit-group extension of "
              + o.initFrom()
              + "'s tokenizer ("
              + tokenizer.size()
              + " tokens, expected "
              + (e.newEos() + 1)
              + ")");
    }
    Map<String, float[]> values =
        VocabularySurgery.extend(
            TrainableLlama.readValues(o.initFrom(), old),
            old.hiddenSize(),
            old.vocabSize(),
            e.digits(),
            o.seed(),
            o.initNoise());
    return TrainableLlama.fromValues(config, Engine.getInstance().defaultDevice(), values);
  }

  /**
   * The grown start of {@code --grow-from}: its model (this recipe's, with the tokenizer {@link
   * #tokenizer} took from it) grown to {@code config}'s layers and heads ({@link ModelGrowth}: the
   * same logits; fresh values from the seed with the standard deviation of a fresh model's).
   */
  TrainableLlama grown(ModelConfig config) throws IOException {
    ModelConfig old = ModelConfig.load(o.growFrom());
    Map<String, float[]> values =
        ModelGrowth.grow(TrainableLlama.readValues(o.growFrom(), old), old, config, o.seed(), 0.02);
    log.printf(
        Locale.ROOT,
        "grew %s: %d layers of %d heads (%d key-value) -> %d layers of %d heads (%d key-value)%n",
        o.growFrom(),
        old.numLayers(),
        old.numHeads(),
        old.numKvHeads(),
        config.numLayers(),
        config.numHeads(),
        config.numKvHeads());
    log.flush();
    return TrainableLlama.fromValues(config, Engine.getInstance().defaultDevice(), values);
  }

  /**
   * The model's shape for a vocabulary: heads of 32 dimensions ({@code --heads}, by default the
   * hidden size over 32), half as many key-value heads, an MLP of three times the hidden size.
   */
  ModelConfig shape(int vocab) {
    int headDim = 32;
    int heads = o.heads();
    return ModelConfig.llama(
            vocab, o.hidden(), 3 * o.hidden(), o.layers(), heads, Math.max(1, heads / 2), headDim)
        .withMaxPositions(o.contextTokens());
  }
}
