package dev.leap.train;

import java.util.Locale;

/**
 * The growth stage of a copy-recipe run ({@code leap train --grow}): when the run's last cycle
 * ends, its model is grown to {@code layers} layers of {@code heads} attention heads ({@link
 * dev.leap.train.model.ModelGrowth}: the same logits) and trained on to step {@code end}, flat at
 * {@code learningRate} and then decaying over the last {@code decay} steps to a tenth, with {@code
 * characters} character sheets per step and training's variety ({@code --variety-from}) from the
 * growth on.
 */
record Growth(int layers, int heads, int end, float learningRate, int decay, int characters) {

  /**
   * {@code LAYERS:HEADS:END:LR:DECAY[:CHARACTERS]} ({@code characters} when the sixth is absent);
   * {@code none}: null.
   *
   * @throws IllegalArgumentException naming the part that is not a number or out of range
   */
  static Growth parse(String spec, int characters) {
    if (spec.equals("none")) {
      return null;
    }
    String[] p = spec.split(":", -1);
    if (p.length != 5 && p.length != 6) {
      throw new IllegalArgumentException(
          "--grow " + spec + ": expected LAYERS:HEADS:END:LR:DECAY[:CHARACTERS] or none");
    }
    try {
      Growth g =
          new Growth(
              Integer.parseInt(p[0]),
              Integer.parseInt(p[1]),
              Integer.parseInt(p[2]),
              Float.parseFloat(p[3]),
              Integer.parseInt(p[4]),
              p.length == 6 ? Integer.parseInt(p[5]) : characters);
      if (g.layers < 1
          || g.heads < 1
          || !(g.learningRate > 0)
          || g.decay < 0
          || g.characters < 0
          || g.decay > g.end) {
        throw new IllegalArgumentException(
            "--grow "
                + spec
                + ": layers and heads at least 1, a positive rate, a decay of 0 to END steps, no negative"
                + " sheet count");
      }
      return g;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--grow " + spec + ": not a number: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT, "%d:%d:%d:%s:%d:%d", layers, heads, end, learningRate, decay, characters);
  }

  /**
   * The options of the growth stage after the run of {@code base}: its work in {@code workDir},
   * grown from {@code base}'s model, starting at {@code base}'s last step, writing {@code outDir}.
   *
   * @throws IllegalArgumentException if {@code end} is not after {@code base}'s last step
   */
  CopyOptions stage(CopyOptions base, java.nio.file.Path workDir, java.nio.file.Path outDir) {
    int start = base.steps();
    if (end <= start) {
      throw new IllegalArgumentException(
          "--grow " + this + ": END must come after the run's last step " + start);
    }
    int[] phases = base.phaseEnds().clone();
    phases[2] = end;
    return new CopyOptions(
        base.hidden(),
        layers,
        heads,
        base.contextTokens(),
        base.vocabSize(),
        base.seed(),
        phases,
        base.warmupSteps(),
        decay,
        learningRate,
        java.util.List.of(),
        base.weightDecay(),
        base.clipNorm(),
        base.stepTokens(),
        characters,
        base.valueWeight(),
        base.microBatchTokens(),
        base.checkpointEvery(),
        base.evalEvery(),
        base.evalCards(),
        base.evalArticles(),
        base.flatAfter(),
        base.minSwap(),
        base.tokenizerArticles(),
        workDir,
        outDir,
        base.storage(),
        base.warmSteps(),
        base.drillShare(),
        base.tokenShare(),
        null,
        start,
        base.digitGroup(),
        base.initNoise(),
        base.outDir(),
        start);
  }
}
