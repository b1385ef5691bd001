package dev.leap.bench;

import dev.leap.testkit.ImportCycles;
import dev.leap.testkit.PublicSurface;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module's public types, listed: a new one is a decision (see the README's API and this
 * module's README).
 */
class PublicSurfaceTest {

  @Test
  void publicTypesAreTheListedOnes() {
    PublicSurface.check(
        BenchData.class,
        List.of(
            "dev.leap.bench.BenchData",
            "dev.leap.bench.Json",
            "dev.leap.bench.Percentile",
            "dev.leap.bench.e2e.BenchCommand",
            "dev.leap.bench.e2e.DemoCommand",
            "dev.leap.bench.fsm.CompileBench",
            "dev.leap.bench.fsm.DecodeStepBench",
            "dev.leap.bench.fsm.TokenIndexBench",
            "dev.leap.bench.grammar.GrammarCompileBench",
            "dev.leap.bench.grammar.GrammarMaskSteps",
            "dev.leap.bench.jsonschema.SchemaCoverage",
            "dev.leap.bench.model.ForwardCommand",
            "dev.leap.bench.model.PrefillGapBench",
            "dev.leap.bench.model.ProfileCommand",
            "dev.leap.bench.peers.GbnfPrinter",
            "dev.leap.bench.peers.GgufWriter",
            "dev.leap.bench.peers.LlamaCppChild",
            "dev.leap.bench.peers.PeersCommand",
            "dev.leap.bench.peers.ShapeModel",
            "dev.leap.bench.model.StepBench",
            "dev.leap.bench.model.StopMatcherBench",
            "dev.leap.bench.model.VocabProductCommand",
            "dev.leap.bench.radix.RadixCacheBench",
            "dev.leap.bench.retokenize.JumpRetokenizeBench",
            "dev.leap.bench.serve.AbuseBenchCommand",
            "dev.leap.bench.serve.IdleConnectionsCommand",
            "dev.leap.bench.serve.ServeBenchCommand",
            "dev.leap.bench.xgrammar.XGrammarSideBySide"));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(BenchData.class);
  }
}
