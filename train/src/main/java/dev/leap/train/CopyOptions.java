package dev.leap.train;

import dev.leap.model.HfModelWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Hyperparameters and paths of a copy-recipe run ({@link CopyTrainer}; {@code leap train}). */
record CopyOptions(
    int hidden,
    int layers,
    int heads,
    int contextTokens,
    int vocabSize,
    long seed,
    int[] phaseEnds,
    int warmupSteps,
    int decaySteps,
    float learningRate,
    List<Schedule.Cycle> cycles,
    float weightDecay,
    float clipNorm,
    int stepTokens,
    int charactersPerStep,
    float valueWeight,
    float firstValueWeight,
    int microBatchTokens,
    int checkpointEvery,
    int evalEvery,
    int evalCards,
    int evalArticles,
    int flatAfter,
    double minSwap,
    int tokenizerArticles,
    Path workDir,
    Path outDir,
    HfModelWriter.StorageType storage,
    int warmSteps,
    double drillShare,
    double tokenShare,
    Path initFrom,
    int initStep,
    int digitGroup,
    double initNoise,
    Path growFrom,
    int varietyFrom,
    int composedFrom,
    int nonceFrom,
    int nonceThirds) {
  /**
   * The main cycle (to the last phase's end at {@code learningRate}, decaying over {@code
   * decaySteps} to a tenth, {@code charactersPerStep} sheets), then {@code cycles}.
   */
  Schedule schedule() {
    List<Schedule.Cycle> all = new ArrayList<>();
    all.add(new Schedule.Cycle(phaseEnds[2], learningRate, decaySteps, charactersPerStep));
    all.addAll(cycles);
    return new Schedule(all, warmupSteps, initStep);
  }

  int steps() {
    return schedule().steps();
  }
}
