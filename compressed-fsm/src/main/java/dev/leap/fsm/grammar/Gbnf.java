package dev.leap.fsm.grammar;

import java.util.List;

/**
 * The syntax tree of a GBNF grammar as parsed ({@link GbnfParser}), before any check. Text is code
 * points; character sets are normalized code point ranges (see {@code internal.CharRanges}).
 */
final class Gbnf {
  private Gbnf() {}

  /**
   * A rule definition {@code name ::= body} at 1-based {@code line}/{@code column} (of the name).
   */
  record Rule(String name, Expr body, int line, int column) {}

  /** A rule body or a part of one. */
  sealed interface Expr {}

  /** A quoted literal (possibly empty). */
  record Lit(String text) implements Expr {}

  /** One code point from a non-empty set: a character class, its negation, or {@code .}. */
  record CharSet(int[] ranges) implements Expr {}

  /** A reference to rule {@code name}, written at {@code line}/{@code column}. */
  record Ref(String name, int line, int column) implements Expr {}

  record Seq(List<Expr> items) implements Expr {}

  record Alt(List<Expr> options) implements Expr {}

  /** {@code min..max} repetitions, {@code max == -1} unbounded. */
  record Repeat(Expr item, int min, int max) implements Expr {}
}
