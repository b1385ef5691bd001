package dev.leap.train;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

/**
 * One training run of {@link TrainerTest}'s options in its own JVM: {@code WORK STEPS STOP_AT},
 * with the garbage collector run every 20 ms. Runs that followed another run in the same JVM, and 1
 * run in 4 of a fresh JVM on a loaded machine, used to end with different weights (5e-4 .. 2e-2
 * apart): autograd read scalar operands whose memory a collection had freed (see {@code
 * TrainableLlama.constant}). Collecting all the time makes that visible in every run.
 */
public final class TrainerPhase {
  private TrainerPhase() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    int steps = Integer.parseInt(args[1]);
    int stopAt = Integer.parseInt(args[2]);
    // A garbage collection every 20 ms: memory that PyTorch still reads but Java owns
    // and has let go (a direct buffer under a closed tensor) is then freed during the run, and
    // the comparison of runs shows it.
    Thread collector =
        new Thread(
            () -> {
              while (true) {
                System.gc();
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "gc-storm");
    collector.setDaemon(true);
    collector.start();
    new Trainer(TrainerTest.options(work, steps), new PrintWriter(new StringWriter())).run(stopAt);
    System.exit(0);
  }

  /**
   * Runs a phase in a new JVM with this JVM's class path and PyTorch settings; fails on a non-zero
   * exit.
   */
  static void fork(Path work, int steps, int stopAt) throws Exception {
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            javaBin,
            "-Xmx512m",
            "-cp",
            System.getProperty("java.class.path"),
            "-Dai.djl.offline=true",
            "-Dai.djl.pytorch.num_threads=1",
            "-Dai.djl.pytorch.num_interop_threads=1",
            TrainerPhase.class.getName(),
            work.toString(),
            String.valueOf(steps),
            String.valueOf(stopAt));
    pb.redirectErrorStream(true);
    pb.redirectOutput(work.resolveSibling(work.getFileName() + "-" + stopAt + ".log").toFile());
    java.nio.file.Files.createDirectories(work.getParent());
    Process p = pb.start();
    int rc = p.waitFor();
    if (rc != 0) {
      throw new AssertionError(
          "training phase "
              + work
              + " to step "
              + stopAt
              + " exited with "
              + rc
              + "; see "
              + work.resolveSibling(work.getFileName() + "-" + stopAt + ".log"));
    }
  }
}
