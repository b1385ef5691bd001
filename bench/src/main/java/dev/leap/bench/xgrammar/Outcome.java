package dev.leap.bench.xgrammar;

import java.util.ArrayList;
import java.util.List;

/** What one engine did with one case. */
final class Outcome {
  boolean compiled;
  String error;
  double compileMs;
  double firstMaskMs;
  final List<Boolean> accepted = new ArrayList<>();
  final List<Integer> rejectedAt = new ArrayList<>();
  final List<Integer> forcedBytes = new ArrayList<>();

  /** XGrammar only: whether its grammar accepts the instance's text fed as bytes (no tokens). */
  final List<Boolean> acceptsText = new ArrayList<>();

  final List<Double> maskUs = new ArrayList<>();
}
