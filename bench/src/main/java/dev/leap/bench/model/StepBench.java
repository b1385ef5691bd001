package dev.leap.bench.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.leap.bench.BenchData;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.TokenIndex;
import dev.leap.model.LlamaModel;
import dev.leap.retokenize.Tokenizer;
import dev.leap.runtime.DemoModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How fast is one decode step of the demo model on this machine, at batch 1, 8 and 32 (contexts of
 * 200 tokens); how much does a multi-token extension (a jump's tokens, logits only at the last)
 * cost against a single-token step; and how much of a step is the constraint's work (mask lookup,
 * next state, and applying the masks on the device)?
 *
 * <pre>
 * ./leap --help >/dev/null   # builds
 * java -Dai.djl.offline=true -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.leap.bench.model.StepBench
 * </pre>
 */
public final class StepBench {
  private StepBench() {}

  public static void main(String[] args) {
    Path dir = args.length > 0 ? Path.of(args[0]) : DemoModel.ensure();
    int ctx = 200;
    int steps = 60;
    try (LlamaModel m = LlamaModel.load(dir, Device.cpu(), 16_384)) {
      int v = m.config().vocabSize();
      SplittableRandom rnd = new SplittableRandom(3);
      Tokenizer tok = Tokenizer.loadFromModelDir(dir);
      CompressedFsm fsm = CompressedFsm.compile(BenchData.characterRegex());
      TokenIndex index = TokenIndex.of(fsm.dfa(), tok).buildAll();
      System.out.println(
          "| batch | decode step (ms) | steps/s | tokens/s | constraint work on the CPU (ms, share) | masks applied on the device (ms, share) |");
      System.out.println("|---:|---:|---:|---:|---:|---:|");
      for (int b : new int[] {1, 8, 32}) {
        int[][] slots = new int[b][];
        List<LlamaModel.SequenceInput> prefill = new ArrayList<>();
        int next = 0;
        for (int i = 0; i < b; i++) {
          slots[i] = new int[ctx + steps + 40];
          for (int j = 0; j < slots[i].length; j++) {
            slots[i][j] = next++;
          }
          prefill.add(
              new LlamaModel.SequenceInput(
                  rnd.ints(ctx, 0, v).toArray(),
                  0,
                  new int[0],
                  java.util.Arrays.copyOf(slots[i], ctx),
                  false));
        }
        try (NDManager s = m.manager().newSubManager()) {
          m.forward(s, prefill);
        }
        // The constraint's masks as the scheduler holds them: one boolean row per DFA state, made
        // once.
        int state =
            fsm.dfa()
                .walk(0, "{\n    \"name\": \"".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        long[] words = index.allowed(state);
        boolean[] disallowed = new boolean[v];
        java.util.Arrays.fill(disallowed, true);
        for (int w = 0; w < words.length; w++) {
          long bits = words[w];
          while (bits != 0) {
            disallowed[(w << 6) + Long.numberOfTrailingZeros(bits)] = false;
            bits &= bits - 1;
          }
        }
        double stepMs = 0;
        double cpuMs = 0;
        double deviceMs = 0;
        try (NDManager maskScope = m.manager().newSubManager()) {
          NDArray mask = maskScope.create(disallowed);
          for (int t = 0; t < steps + 10; t++) {
            List<LlamaModel.SequenceInput> batch = new ArrayList<>();
            for (int i = 0; i < b; i++) {
              int pos = ctx + t;
              batch.add(
                  new LlamaModel.SequenceInput(
                      new int[] {rnd.nextInt(v)},
                      pos,
                      java.util.Arrays.copyOf(slots[i], pos),
                      new int[] {slots[i][pos]},
                      false));
            }
            long t0 = System.nanoTime();
            try (NDManager s = m.manager().newSubManager()) {
              NDArray logits = m.forward(s, batch);
              long[] plain = logits.argMax(1).toLongArray();
              long t1 = System.nanoTime();
              // CPU side: per sequence, the mask lookup and the next state of the chosen token.
              int sink = 0;
              for (int i = 0; i < b; i++) {
                sink += index.allowed(state).length + index.nextState(state, (int) plain[i] % 1000);
              }
              long t2 = System.nanoTime();
              // Device side, as the sampler does it: stack the rows' disallowed masks, fill in
              // place, argmax.
              NDList masks = new NDList();
              for (int i = 0; i < b; i++) {
                masks.add(mask);
              }
              NDArray stacked = NDArrays.stack(masks);
              stacked.attach(s);
              logits.set(stacked, Float.NEGATIVE_INFINITY);
              long[] ids = logits.argMax(1).toLongArray();
              long t3 = System.nanoTime();
              long t4 = System.nanoTime();
              logits.argMax(1).toLongArray();
              long t5 = System.nanoTime();
              if (t >= 10 && ids.length == b && sink != 42) {
                stepMs += (t1 - t0) / 1e6;
                cpuMs += (t2 - t1) / 1e6;
                deviceMs += Math.max(0, (t3 - t2) - (t5 - t4)) / 1e6;
              }
            }
          }
        }
        stepMs /= steps;
        cpuMs /= steps;
        deviceMs /= steps;
        System.out.printf(
            Locale.ROOT,
            "| %d | %.2f | %.1f | %.0f | %.4f (%.3f%%) | %.3f (%.1f%%) |%n",
            b,
            stepMs,
            1000 / stepMs,
            1000 * b / stepMs,
            cpuMs,
            100 * cpuMs / stepMs,
            deviceMs,
            100 * deviceMs / stepMs);
      }
      // Extensions: n new tokens with logits only at the last, against n single-token steps.
      System.out.println();
      System.out.println(
          "| new tokens in one extend | extend (ms) | n single-token steps (ms) | ratio |");
      System.out.println("|---:|---:|---:|---:|");
      int base = 0;
      for (int n : new int[] {1, 8, 16, 32}) {
        double ext = 0;
        double singles = 0;
        for (int rep = 0; rep < 7; rep++) {
          int[] sl = new int[ctx + n];
          for (int j = 0; j < sl.length; j++) {
            sl[j] = 10_000 + base + j;
          }
          try (NDManager s = m.manager().newSubManager()) {
            m.forward(
                s,
                List.of(
                    new LlamaModel.SequenceInput(
                        rnd.ints(ctx, 0, v).toArray(),
                        0,
                        new int[0],
                        java.util.Arrays.copyOf(sl, ctx),
                        false)));
          }
          long t0 = System.nanoTime();
          try (NDManager s = m.manager().newSubManager()) {
            m.forward(
                    s,
                    List.of(
                        new LlamaModel.SequenceInput(
                            rnd.ints(n, 0, v).toArray(),
                            ctx,
                            java.util.Arrays.copyOf(sl, ctx),
                            java.util.Arrays.copyOfRange(sl, ctx, ctx + n),
                            false)))
                .toFloatArray();
          }
          long t1 = System.nanoTime();
          for (int k = 0; k < n; k++) {
            try (NDManager s = m.manager().newSubManager()) {
              m.forward(
                      s,
                      List.of(
                          new LlamaModel.SequenceInput(
                              new int[] {rnd.nextInt(v)},
                              ctx + k,
                              java.util.Arrays.copyOf(sl, ctx + k),
                              new int[] {sl[ctx + k]},
                              false)))
                  .toFloatArray();
            }
          }
          long t2 = System.nanoTime();
          if (rep > 1) {
            ext += (t1 - t0) / 1e6;
            singles += (t2 - t1) / 1e6;
          }
        }
        System.out.printf(
            Locale.ROOT, "| %d | %.2f | %.2f | %.2f |%n", n, ext / 5, singles / 5, singles / ext);
      }
    }
  }
}
