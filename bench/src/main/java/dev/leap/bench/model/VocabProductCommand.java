package dev.leap.bench.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.engine.PtSymbolBlock;
import ai.djl.pytorch.jni.IValue;
import ai.djl.pytorch.jni.IValueUtils;
import ai.djl.pytorch.jni.JniUtils;
import dev.leap.bench.Json;
import dev.leap.model.TorchScriptArchive;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code leap bench vocab}: one question, how fast can PyTorch (as DJL ships it, on this CPU)
 * multiply {@code rows} float16 hidden states by a float16 vocabulary projection {@code [vocab,
 * hidden]}, and how exactly. Every kernel reachable from Leap (DJL ops and TorchScript) is timed on
 * the same seeded random weights: {@code matmul}, {@code mm}, {@code linear} and {@code mv} on the
 * weight as stored (its transpose a view) and transposed contiguous {@code [hidden, vocab]}; the
 * product in 4,096-row blocks (2 MB of weights each, L2-sized); float16 weights with a float32
 * input; the float32 copy (MKL); a two-part bfloat16 decomposition (the float16 weights and input
 * each split exactly into a bfloat16 high part and a bfloat16 remainder, four products: exact only
 * if the products were summed in float32, but PyTorch's bfloat16 product rounds its output to
 * bfloat16, and this CPU's avx512_bf16 is the one native narrow format it has); FBGEMM's float16
 * GEMM ({@code quantized::linear_dynamic_fp16} on weights packed once, and the deprecated {@code
 * aten::fbgemm_linear_fp16_weight_fp32_activation}); and, for scale, a float32 sum over the float32
 * copy (a pure read). At one row also the kernels on a 1,024-row slice (0.5 MB, resident in L2),
 * which says whether a kernel is bound by memory or by its arithmetic.
 *
 * <p>How: each variant is a TorchScript method that runs its op {@code --reps} times (the graph
 * executor's optimizer off, so that no repeat is merged away); a call is timed from Java and
 * divided by the repeats. Variants run round-robin, {@code --rounds} rounds, the median and minimum
 * reported, with GB/s of weight bytes read (the product's one read of the weights; the float32 and
 * two-part variants read twice the bytes) and the largest error of the first row's outputs against
 * a double-precision dot product of the same float16 values, relative to the sum of the terms'
 * magnitudes (float32 accumulation: about 1e-7; logits rounded to float16: about 2^-12).
 *
 * <pre>
 * LEAP_JAVA_OPTS="-Dai.djl.pytorch.num_threads=1 -Dai.djl.pytorch.num_interop_threads=1" \
 *   ./leap bench vocab [--vocab 50257] [--hidden 256] [--rows 1,2,4,8,16,32,64] [--rounds 7]
 * </pre>
 */
@Command(
    name = "vocab",
    mixinStandardHelpOptions = true,
    description =
        "The float16 vocabulary product through every PyTorch kernel Leap can reach: time, GB/s, error.")
public final class VocabProductCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--vocab",
      defaultValue = "50257",
      description = "Rows of the projection. Default: ${DEFAULT-VALUE} (the demo model).")
  int vocab;

  @Option(
      names = "--hidden",
      defaultValue = "256",
      description = "Hidden size. Default: ${DEFAULT-VALUE} (the demo model).")
  int hidden;

  @Option(
      names = "--rows",
      defaultValue = "1,2,4,8,16,32,64",
      split = ",",
      description = "Hidden states per product (batch rows). Default: ${DEFAULT-VALUE}.")
  int[] rows;

  @Option(
      names = "--rounds",
      defaultValue = "7",
      description = "Timed rounds per variant, round-robin. Default: ${DEFAULT-VALUE}.")
  int rounds;

  @Option(
      names = "--reps",
      defaultValue = "10",
      description =
          "Products per timed call (at one row; fewer at more rows). Default: ${DEFAULT-VALUE}.")
  int reps;

  @Option(
      names = "--out",
      defaultValue = "bench-results/vocab-product.json",
      description = "JSON results. Default: ${DEFAULT-VALUE}.")
  Path out;

  static final String SOURCE =
      """
      class Vocab(Module):
        __parameters__ = []
        __buffers__ = []
        training : bool
        def forward(self: __torch__.Vocab, x: Tensor) -> Tensor:
          return x
        def matmul(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          y = torch.matmul(x, w)
          for i in range(reps - 1):
            y = torch.matmul(x, w)
          return y
        def mm(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          y = torch.mm(x, w)
          for i in range(reps - 1):
            y = torch.mm(x, w)
          return y
        def linear(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          y = torch.linear(x, w)
          for i in range(reps - 1):
            y = torch.linear(x, w)
          return y
        def mv(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          v = x.reshape([-1])
          y = torch.mv(w, v)
          for i in range(reps - 1):
            y = torch.mv(w, v)
          return y.reshape([1, -1])
        def blocks(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          n = w.size(0)
          y = x
          for i in range(reps):
            parts: List[Tensor] = []
            s = 0
            while s < n:
              e = min(n, s + 4096)
              parts.append(torch.matmul(x, w.narrow(0, s, e - s).t()))
              s = e
            y = torch.cat(parts, 1)
          return y
        def mixed(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          y = torch.matmul(x.float(), w)
          for i in range(reps - 1):
            y = torch.matmul(x.float(), w)
          return y
        def twoPart(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          wf = w.float()
          hi = wf.to(15)
          lo = torch.sub(wf, hi.float()).to(15)
          xf = x.float()
          xh = xf.to(15)
          xl = torch.sub(xf, xh.float()).to(15)
          m = x.size(0)
          xs = torch.cat([xh, xl], 0)
          y = x
          for i in range(reps):
            a = torch.matmul(xs, hi.t()).float()
            b = torch.matmul(xs, lo.t()).float()
            y = torch.add(torch.add(a.narrow(0, 0, m), a.narrow(0, m, m)), torch.add(b.narrow(0, 0, m), b.narrow(0, m, m)))
          return y
        def pack(self: __torch__.Vocab, w: Tensor) -> __torch__.torch.classes.quantized.LinearPackedParamsBase:
          return ops.quantized.linear_prepack_fp16(w.float(), None)
        def fbgemm(self: __torch__.Vocab, x: Tensor, p: __torch__.torch.classes.quantized.LinearPackedParamsBase, reps: int) -> Tensor:
          y = ops.quantized.linear_dynamic_fp16(x.float(), p)
          for i in range(reps - 1):
            y = ops.quantized.linear_dynamic_fp16(x.float(), p)
          return y
        def packAten(self: __torch__.Vocab, w: Tensor) -> Tensor:
          return torch.fbgemm_pack_gemm_matrix_fp16(w.float())
        def fbgemmAten(self: __torch__.Vocab, x: Tensor, p: Tensor, reps: int, bias: Tensor) -> Tensor:
          y = torch.fbgemm_linear_fp16_weight_fp32_activation(x.float(), p, bias)
          for i in range(reps - 1):
            y = torch.fbgemm_linear_fp16_weight_fp32_activation(x.float(), p, bias)
          return y
        def contiguousT(self: __torch__.Vocab, w: Tensor) -> Tensor:
          return w.t().contiguous()
        def read(self: __torch__.Vocab, x: Tensor, w: Tensor, reps: int) -> Tensor:
          y = torch.sum(w)
          for i in range(reps - 1):
            y = torch.sum(w)
          return y.reshape([1, 1])
      """;

  /**
   * One timed variant: a method of {@link #SOURCE} and its inputs (the weight, an array or a packed
   * {@code IValue}; an extra array or null).
   */
  record Variant(
      String name,
      String method,
      Object weight,
      double weightBytes,
      boolean oneRow,
      NDArray extra) {
    Variant(String name, String method, Object weight, double weightBytes, boolean oneRow) {
      this(name, method, weight, weightBytes, oneRow, null);
    }
  }

  /** A variant's figures at one row count. */
  record Result(
      String variant,
      int rows,
      double medianMs,
      double minMs,
      double gbPerS,
      double relError,
      String error) {}

  private PtSymbolBlock block;
  private PtNDManager manager;

  @Override
  public Integer call() throws IOException {
    if (vocab < 1 || hidden < 1 || rounds < 1 || reps < 1) {
      throw new IllegalArgumentException("--vocab, --hidden, --rounds and --reps must be >= 1");
    }
    for (int r : rows) {
      if (r < 1) {
        throw new IllegalArgumentException("--rows must be >= 1, got " + r);
      }
    }
    PrintWriter o = spec.commandLine().getOut();
    List<Result> results = new ArrayList<>();
    try (NDManager base = NDManager.newBaseManager(Device.cpu())) {
      JniUtils.setGraphExecutorOptimize(false); // after the engine is up
      manager = (PtNDManager) base;
      block = JniUtils.loadModule(manager, new ByteArrayInputStream(archive()), false, false);
      base.getEngine().setRandomSeed(24);
      NDArray w16 =
          base.randomNormal(0, 0.05f, new Shape(vocab, hidden), DataType.FLOAT32)
              .toType(DataType.FLOAT16, false);
      NDArray w32 = w16.toType(DataType.FLOAT32, false); // exactly the float16 values
      float[] wValues = w32.toFloatArray();
      NDArray slice16 = w16.get("0:" + Math.min(vocab, 1024));
      IValue packed = run1("pack", w16);
      IValue packedSlice = run1("pack", slice16);
      IValue packedAtenValue = run1("packAten", w16);
      NDArray packedAten = packedAtenValue.toTensor(manager);
      packedAtenValue.close();
      NDArray w16t = run1("contiguousT", w16).toTensor(manager);
      NDArray w32t = run1("contiguousT", w32).toTensor(manager);
      double b16 = (double) vocab * hidden * 2;
      double slice = (double) Math.min(vocab, 1024) * hidden * 2;
      List<Variant> variants =
          List.of(
              new Variant(
                  "f16 matmul x.W^T, W as stored (Leap before)",
                  "matmul",
                  w16.transpose(),
                  b16,
                  false),
              new Variant("f16 mm x.W^T, W as stored", "mm", w16.transpose(), b16, false),
              new Variant("f16 linear(x, W)", "linear", w16, b16, false),
              new Variant("f16 mv(W, x)", "mv", w16, b16, true),
              new Variant("f16 matmul x.W^T, W^T contiguous [H,V]", "matmul", w16t, b16, false),
              new Variant("f16 in 4,096-row blocks (2 MB, L2), cat", "blocks", w16, b16, false),
              new Variant("f16 weights, f32 input", "mixed", w16.transpose(), b16, false),
              new Variant("f32 copy, matmul x.W^T (MKL)", "mixed", w32.transpose(), 2 * b16, false),
              new Variant("f32 copy, W^T contiguous [H,V]", "mixed", w32t, 2 * b16, false),
              new Variant(
                  "bf16 two-part hi+lo (4 products, bf16 out)", "twoPart", w16, 2 * b16, true),
              new Variant(
                  "FBGEMM f16 GEMM, quantized::linear_dynamic_fp16", "fbgemm", packed, b16, false),
              new Variant(
                  "FBGEMM f16 GEMM, aten (deprecated)",
                  "fbgemmAten",
                  packedAten,
                  b16,
                  false,
                  base.zeros(new Shape(vocab))),
              new Variant("f32 sum over the f32 copy (a pure read)", "read", w32, 2 * b16, true),
              new Variant(
                  "L2: f16 matmul, 1,024-row slice (0.5 MB)",
                  "matmul",
                  slice16.transpose(),
                  slice,
                  true),
              new Variant(
                  "L2: FBGEMM, 1,024-row slice (0.5 MB)", "fbgemm", packedSlice, slice, true));
      for (int m : rows) {
        NDArray x16 =
            base.randomNormal(0, 1f, new Shape(m, hidden), DataType.FLOAT32)
                .toType(DataType.FLOAT16, false);
        float[] xValues = x16.toType(DataType.FLOAT32, false).toFloatArray();
        double[] exact = new double[vocab];
        double[] magnitude = new double[vocab];
        for (int v = 0; v < vocab; v++) {
          for (int k = 0; k < hidden; k++) {
            double t = (double) xValues[k] * wValues[v * hidden + k];
            exact[v] += t;
            magnitude[v] += Math.abs(t);
          }
        }
        List<Variant> here = new ArrayList<>();
        for (Variant v : variants) {
          if (m == 1 || !v.oneRow()) {
            here.add(v);
          }
        }
        int calls = Math.max(1, reps / m);
        double[][] ms = new double[here.size()][rounds];
        double[] err = new double[here.size()];
        String[] failed = new String[here.size()];
        for (int i = 0; i < here.size(); i++) {
          Variant v = here.get(i);
          try (NDManager s = base.newSubManager()) {
            NDArray y = time(v, x16, 1).toType(DataType.FLOAT32, false); // warm, and the error
            float[] got = y.toFloatArray();
            int cols = (int) y.getShape().get(y.getShape().dimension() - 1);
            for (int c = 0; c < cols && c < vocab && !v.method().equals("read"); c++) {
              err[i] = Math.max(err[i], Math.abs(got[c] - exact[c]) / (magnitude[c] + 1e-30));
            }
            y.close();
          } catch (RuntimeException e) {
            failed[i] = reason(e);
          }
        }
        for (int r = 0; r < rounds; r++) {
          for (int i = 0; i < here.size(); i++) {
            if (failed[i] == null) {
              long t0 = System.nanoTime();
              time(here.get(i), x16, calls).close();
              ms[i][r] = (System.nanoTime() - t0) / 1e6 / calls;
            }
          }
        }
        o.printf(
            Locale.ROOT, "%nrows %d (%d products per timed call, %d rounds)%n", m, calls, rounds);
        o.printf(
            Locale.ROOT,
            "%-52s %9s %9s %8s %12s%n",
            "variant",
            "median ms",
            "min ms",
            "GB/s",
            "rel. error");
        for (int i = 0; i < here.size(); i++) {
          Variant v = here.get(i);
          if (failed[i] != null) {
            o.printf(Locale.ROOT, "%-52s %s%n", v.name(), "error: " + failed[i]);
            results.add(new Result(v.name(), m, 0, 0, 0, 0, failed[i]));
            continue;
          }
          double[] t = ms[i].clone();
          Arrays.sort(t);
          double median = t[t.length / 2];
          double gb = v.weightBytes() / (median * 1e6);
          o.printf(
              Locale.ROOT, "%-52s %9.3f %9.3f %8.1f %12.1e%n", v.name(), median, t[0], gb, err[i]);
          results.add(new Result(v.name(), m, median, t[0], gb, err[i], null));
        }
        o.flush();
      }
      packed.close();
      packedSlice.close();
      block.close();
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("vocab", vocab);
    json.put("hidden", hidden);
    json.put("rounds", rounds);
    json.put("results", results);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Json.MAPPER.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), json);
    o.println("\nwrote " + out);
    return 0;
  }

  /** {@code v}'s product of {@code x} run {@code calls} times in one call; the last result. */
  private NDArray time(Variant v, NDArray x, int calls) {
    IValue[] in = new IValue[v.extra() == null ? 3 : 4];
    in[0] = IValue.from((PtNDArray) x);
    in[1] = v.weight() instanceof IValue p ? p : IValue.from((PtNDArray) v.weight());
    in[2] = IValue.from((long) calls);
    if (v.extra() != null) {
      in[3] = IValue.from((PtNDArray) v.extra());
    }
    try {
      IValue y = IValueUtils.runMethod(block, v.method(), in);
      NDArray r = y.toTensor(manager);
      y.close();
      return r;
    } finally {
      in[0].close();
      if (!(v.weight() instanceof IValue)) {
        in[1].close();
      }
      in[2].close();
      if (v.extra() != null) {
        in[3].close();
      }
    }
  }

  /** The line of a TorchScript failure that says what failed (its last non-blank line). */
  static String reason(RuntimeException e) {
    String m = String.valueOf(e.getMessage());
    String last = m;
    for (String line : m.split("\n")) {
      if (!line.isBlank()) {
        last = line.strip();
      }
    }
    return last;
  }

  private IValue run1(String method, NDArray a) {
    IValue in = IValue.from((PtNDArray) a);
    try {
      return IValueUtils.runMethod(block, method, in);
    } finally {
      in.close();
    }
  }

  /**
   * {@link #SOURCE} as a TorchScript archive, written as the model module's {@code TorchScript}
   * writes its own (there package-private): the pickled module object, source, constants, version.
   */
  static byte[] archive() {
    return TorchScriptArchive.of("Vocab", SOURCE);
  }
}
