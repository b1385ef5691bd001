package dev.leap.bench.peers;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.leap.model.LlamaModel;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.Constraint;
import dev.leap.runtime.Generation;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.LeapRuntime;
import dev.leap.runtime.SamplingParams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code leap bench peers} measures on Leap's side, and how (the llama.cpp side runs in {@link
 * LlamaCppChild}).
 */
final class LeapSide {
  /**
   * The runtime settings of the run: {@code --dtype}, {@code --cpu-f32-weights}, {@code
   * --sparse-logits-limit}, {@code --repeats}.
   */
  record Settings(String dtype, String cpuF32Weights, int sparseLogitsLimit, int repeats) {}

  String dtype;
  int threads;
  double decodeMsPerToken;
  double[] prefillMs;
  int[] prefillTokens;
  final List<Double> docColdMs = new ArrayList<>();
  final List<Double> docWarmMs = new ArrayList<>();
  final List<String> docColdText = new ArrayList<>();
  final List<String> docWarmText = new ArrayList<>();
  final List<Double> docPromptTokens = new ArrayList<>();
  final List<Double> docCachedTokens = new ArrayList<>();
  final List<Wave> waves = new ArrayList<>();

  static final class Wave {
    double jfMs;
    double tbtMs;
    long jfTokens;
    long tbtTokens;
    double jfPasses;
    double tbtPasses;
    List<String> jfTexts = new ArrayList<>();
    List<String> tbtTexts = new ArrayList<>();
  }

  final List<Double> jfMs = new ArrayList<>();
  final List<Double> tbtMs = new ArrayList<>();
  final List<String> jfTexts = new ArrayList<>();
  final List<String> tbtTexts = new ArrayList<>();
  double jfPasses;
  double tbtPasses;

  /**
   * Measures Leap on the model in {@code dir}: greedy decode steps and chunked prefills on the
   * model alone, the sheets in both modes, the throughput waves, and the long documents' time to
   * first token.
   */
  static LeapSide measure(
      Path dir,
      Settings settings,
      List<String> prompts,
      List<String> longPrompts,
      String regex,
      List<List<String>> waves,
      List<String[]> docPrompts) {
    LeapSide s = new LeapSide();
    // The model alone: greedy decode steps at batch 1, and the long prompt's prefill in 512-token
    // chunks.
    try (LlamaModel m =
        LlamaModel.load(
            dir,
            Device.cpu(),
            4096,
            settings.dtype(),
            LlamaModel.CpuF32Weights.parse(settings.cpuF32Weights()))) {
      s.dtype = m.precision().label();
      s.threads = JniUtils.getNumThreads(); // after the engine is up
      Tokenizer tok = Tokenizer.loadFromModelDir(dir);
      int[] prompt = tok.encode(prompts.get(0));
      int[] slots = new int[4096];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = i;
      }
      List<Double> per = new ArrayList<>();
      for (int rep = 0; rep < settings.repeats(); rep++) {
        int next =
            greedy(
                m,
                new LlamaModel.SequenceInput(
                    prompt, 0, new int[0], Arrays.copyOf(slots, prompt.length), false));
        long t0 = System.nanoTime();
        for (int k = 0; k < PeersCommand.DECODE_TOKENS; k++) {
          int pos = prompt.length + k;
          next =
              greedy(
                  m,
                  new LlamaModel.SequenceInput(
                      new int[] {next}, pos, slots, new int[] {pos}, false));
        }
        per.add((System.nanoTime() - t0) / 1e6 / PeersCommand.DECODE_TOKENS);
      }
      s.decodeMsPerToken = PeersCommand.median(per);
      s.prefillMs = new double[longPrompts.size()];
      s.prefillTokens = new int[longPrompts.size()];
      for (int k = 0; k < longPrompts.size(); k++) {
        int[] ids = tok.encode(longPrompts.get(k));
        s.prefillTokens[k] = ids.length;
        List<Double> pre = new ArrayList<>();
        for (int rep = 0; rep < settings.repeats(); rep++) {
          long t0 = System.nanoTime();
          for (int from = 0; from < ids.length; from += 512) {
            int to = Math.min(ids.length, from + 512);
            greedy(
                m,
                new LlamaModel.SequenceInput(
                    Arrays.copyOfRange(ids, from, to),
                    from,
                    slots,
                    Arrays.copyOfRange(slots, from, to),
                    false));
          }
          pre.add((System.nanoTime() - t0) / 1e6);
        }
        s.prefillMs[k] = PeersCommand.median(pre);
      }
    }
    SamplingParams params = SamplingParams.builder().maxTokens(256).build();
    try (LeapRuntime jf = runtime(dir, settings, true);
        LeapRuntime tbt = runtime(dir, settings, false)) {
      jf.generate(prompts.get(0), Constraint.regex(regex), params);
      tbt.generate(prompts.get(0), Constraint.regex(regex), params);
      double jfPasses = 0;
      double tbtPasses = 0;
      for (int i = 0; i < prompts.size(); i++) {
        Generation a = jf.generate(prompts.get(i), Constraint.regex(regex), params);
        Generation b = tbt.generate(prompts.get(i), Constraint.regex(regex), params);
        if (a.isError() || b.isError()) {
          throw new IllegalStateException(
              "a Leap request failed: " + (a.isError() ? a.error() : b.error()));
        }
        s.jfMs.add(a.stats().totalMs());
        s.tbtMs.add(b.stats().totalMs());
        s.jfTexts.add(a.text());
        s.tbtTexts.add(b.text());
        jfPasses += a.stats().forwardPasses();
        tbtPasses += b.stats().forwardPasses();
      }
      s.jfPasses = jfPasses / prompts.size();
      s.tbtPasses = tbtPasses / prompts.size();
      // Throughput: each wave submitted at once, continuous batching.
      Tokenizer tok = jf.tokenizer();
      for (List<String> wave : waves) {
        Wave w = new Wave();
        for (boolean jump : new boolean[] {true, false}) {
          LeapRuntime rt = jump ? jf : tbt;
          List<GenerationRequest> reqs = new ArrayList<>();
          wave.forEach(p -> reqs.add(GenerationRequest.of(p, Constraint.regex(regex), params)));
          long t0 = System.nanoTime();
          List<Generation> gs = rt.generateAll(reqs);
          double ms = (System.nanoTime() - t0) / 1e6;
          long tokens = 0;
          double passes = 0;
          List<String> texts = new ArrayList<>();
          for (Generation g : gs) {
            if (g.isError()) {
              throw new IllegalStateException("a Leap request failed: " + g.error());
            }
            texts.add(g.text());
            tokens += tok.encode(g.text()).length;
            passes += g.stats().forwardPasses();
          }
          if (jump) {
            w.jfMs = ms;
            w.jfTokens = tokens;
            w.jfTexts = texts;
            w.jfPasses = passes / gs.size();
          } else {
            w.tbtMs = ms;
            w.tbtTokens = tokens;
            w.tbtTexts = texts;
            w.tbtPasses = passes / gs.size();
          }
        }
        s.waves.add(w);
      }
    }
    // Long documents: time to first token (a one-token greedy completion), the second question's
    // prompt finding the document in the radix cache.
    if (!docPrompts.isEmpty()) {
      try (LeapRuntime rt = runtime(dir, settings, true)) {
        SamplingParams one = SamplingParams.builder().maxTokens(1).build();
        rt.generate("warm-up", Constraint.none(), one);
        for (String[] d : docPrompts) {
          Generation cold = rt.generate(d[0], Constraint.none(), one);
          Generation warm = rt.generate(d[1], Constraint.none(), one);
          if (cold.isError() || warm.isError()) {
            throw new IllegalStateException(
                "a Leap request failed: " + (cold.isError() ? cold.error() : warm.error()));
          }
          s.docColdMs.add(cold.stats().timeToFirstTokenMs());
          s.docWarmMs.add(warm.stats().timeToFirstTokenMs());
          s.docColdText.add(cold.text());
          s.docWarmText.add(warm.text());
          s.docPromptTokens.add((double) warm.stats().promptTokens());
          s.docCachedTokens.add((double) warm.stats().cachedPromptTokens());
        }
      }
    }
    return s;
  }

  private static LeapRuntime runtime(Path dir, Settings settings, boolean jump) {
    return LeapRuntime.builder()
        .setModelDir(dir)
        .optDtype(settings.dtype())
        .optJumpForward(jump)
        .optKvCapacity(16_384)
        .optMaxBatch(256)
        .optSparseLogitsLimit(settings.sparseLogitsLimit())
        .optCpuF32Weights(settings.cpuF32Weights())
        .build();
  }

  private static int greedy(LlamaModel m, LlamaModel.SequenceInput in) {
    try (NDManager step = m.manager().newSubManager()) {
      return (int) m.forward(step, List.of(in)).argMax(1).toLongArray()[0];
    }
  }
}
