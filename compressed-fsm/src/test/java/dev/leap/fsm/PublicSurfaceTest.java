package dev.leap.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        CompressedFsm.class,
        List.of(
            "dev.leap.fsm.AutomatonTooLargeException",
            "dev.leap.fsm.ByteAutomaton",
            "dev.leap.fsm.CompressedFsm",
            "dev.leap.fsm.ConstraintException",
            "dev.leap.fsm.Dfa",
            "dev.leap.fsm.Dfa$RangeConsumer",
            "dev.leap.fsm.EmptyLanguageException",
            "dev.leap.fsm.Excerpt",
            "dev.leap.fsm.Excerpt$Window",
            "dev.leap.fsm.RegexSyntaxException",
            "dev.leap.fsm.TokenIndex",
            "dev.leap.fsm.grammar.CompiledGrammar",
            "dev.leap.fsm.grammar.Grammar",
            "dev.leap.fsm.grammar.GrammarLimitException",
            "dev.leap.fsm.grammar.GrammarMatcher",
            "dev.leap.fsm.grammar.GrammarSyntaxException",
            "dev.leap.fsm.tags.ReasoningGate",
            "dev.leap.fsm.tags.StructuralTags",
            "dev.leap.fsm.tags.StructuralTags$Tag",
            // Not API: not exported (module-info.java); public to Java for the module's other
            // packages
            // (and for bench, which compiles on the class path).
            "dev.leap.fsm.internal.Automata",
            "dev.leap.fsm.internal.BlockView",
            "dev.leap.fsm.internal.CharRanges",
            "dev.leap.fsm.internal.CountedLoop",
            "dev.leap.fsm.internal.CountedLoop$Finder",
            "dev.leap.fsm.internal.Determinizer",
            "dev.leap.fsm.internal.Interrupts",
            "dev.leap.fsm.internal.Json",
            "dev.leap.fsm.internal.LoopRegion",
            "dev.leap.fsm.internal.LoopRegion$Finder",
            "dev.leap.fsm.internal.Determinizer$RawDfa",
            "dev.leap.fsm.internal.DfaWalk",
            "dev.leap.fsm.internal.Minimizer",
            "dev.leap.fsm.internal.Nfa",
            "dev.leap.fsm.internal.Re",
            "dev.leap.fsm.internal.Re$Alt",
            "dev.leap.fsm.internal.Re$Automaton",
            "dev.leap.fsm.internal.Re$Call",
            "dev.leap.fsm.internal.Re$Chars",
            "dev.leap.fsm.internal.Re$Concat",
            "dev.leap.fsm.internal.Re$Empty",
            "dev.leap.fsm.internal.Re$Repeat",
            "dev.leap.fsm.internal.RegexParser",
            "dev.leap.fsm.internal.RuleCalls",
            "dev.leap.fsm.internal.SharedMasks",
            "dev.leap.fsm.internal.TokensByByte",
            "dev.leap.fsm.internal.Trees",
            "dev.leap.fsm.internal.Utf8Ranges",
            "dev.leap.fsm.internal.VocabView",
            "dev.leap.fsm.json.JsonSchema",
            "dev.leap.fsm.json.JsonSchema$Compiled",
            "dev.leap.fsm.json.JsonSchemaException",
            "dev.leap.fsm.json.JsonSchemaOptions",
            "dev.leap.fsm.json.KeyOrder"));
  }

  /**
   * The packages module-info.java exports: the rest is this module's own, whatever Java visibility
   * says.
   */
  @Test
  void exportedPackagesAreTheListedOnes() {
    assertEquals(
        List.of("dev.leap.fsm", "dev.leap.fsm.grammar", "dev.leap.fsm.json", "dev.leap.fsm.tags"),
        PublicSurface.exports(CompressedFsm.class));
  }

  /** No import cycle crosses a package boundary (see {@link ImportCycles}). */
  @Test
  void noImportCycleCrossesPackages() {
    ImportCycles.check(CompressedFsm.class);
  }
}
