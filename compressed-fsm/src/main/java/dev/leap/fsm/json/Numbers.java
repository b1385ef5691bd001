package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.opt;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Numbers in a range and multiples, as exact languages over JSON number text. Ranges are written as
 * plain decimals {@code -?I(.F)?} (no exponent: a subset of the numbers, every one of them in
 * range); the comparison with a bound {@code B.G} is on the integer part first, then on the
 * fraction digits against {@code G} (digit by digit, as a fraction: {@code .5 == .50}).
 */
final class Numbers {
  private Numbers() {}

  static final Re DIGIT = IntegerRange.DIGIT;
  static final Re ANY_FRACTION = opt(seq(lit("."), rep(DIGIT, 1, -1)));

  /** Plain decimals in the range (a null bound is open on that side). */
  static Re range(BigDecimal lo, boolean loEx, BigDecimal hi, boolean hiEx, int maxStates) {
    List<Re> parts = new ArrayList<>();
    if (hi == null || hi.signum() > 0 || (hi.signum() == 0 && !hiEx)) {
      boolean nonNegativeLo = lo != null && lo.signum() >= 0;
      parts.add(
          magnitudes(
              nonNegativeLo ? lo : BigDecimal.ZERO, nonNegativeLo && loEx, hi, hiEx, maxStates));
    }
    if (lo == null || lo.signum() < 0) {
      // -m with m in (max(0, -hi), -lo]: mirrored; -0 is never written (0 is, on the other side).
      boolean hiNegative = hi != null && hi.signum() < 0;
      BigDecimal ml = hiNegative ? hi.negate() : BigDecimal.ZERO;
      boolean mlEx = !hiNegative || hiEx;
      parts.add(
          seq(lit("-"), magnitudes(ml, mlEx, lo == null ? null : lo.negate(), loEx, maxStates)));
    }
    return alt(parts);
  }

  /**
   * Non-negative plain decimals {@code I(.F)?} between {@code l >= 0} and {@code u} (null:
   * unbounded).
   */
  static Re magnitudes(BigDecimal l, boolean lEx, BigDecimal u, boolean uEx, int maxStates) {
    if (u != null && (u.compareTo(l) < 0 || (u.compareTo(l) == 0 && (lEx || uEx)))) {
      return NOTHING;
    }
    BigInteger li = l.setScale(0, RoundingMode.FLOOR).toBigIntegerExact();
    String lf = fractionDigits(l);
    if (u != null) {
      BigInteger ui = u.setScale(0, RoundingMode.FLOOR).toBigIntegerExact();
      String uf = fractionDigits(u);
      if (ui.equals(li)) {
        Dfa above = Automata.compile(fraction(lf, true, lEx), "number range", maxStates);
        Dfa below = Automata.compile(fraction(uf, false, uEx), "number range", maxStates);
        Dfa both =
            above == null || below == null
                ? null
                : Automata.intersect(above, below, maxStates, "number range");
        return both == null ? NOTHING : seq(IntegerRange.of(li, li), new Re.Automaton(both));
      }
      List<Re> parts = new ArrayList<>();
      parts.add(seq(IntegerRange.of(li, li), fraction(lf, true, lEx)));
      if (li.add(BigInteger.ONE).compareTo(ui) < 0) {
        parts.add(
            seq(
                IntegerRange.of(li.add(BigInteger.ONE), ui.subtract(BigInteger.ONE)),
                ANY_FRACTION));
      }
      parts.add(seq(IntegerRange.of(ui, ui), fraction(uf, false, uEx)));
      return alt(parts);
    }
    return alt(
        List.of(
            seq(IntegerRange.of(li, li), fraction(lf, true, lEx)),
            seq(IntegerRange.of(li.add(BigInteger.ONE), null), ANY_FRACTION)));
  }

  /** The digits after the point of {@code x >= 0}, without trailing zeros ("" for an integer). */
  static String fractionDigits(BigDecimal x) {
    BigDecimal f = x.subtract(x.setScale(0, RoundingMode.FLOOR)).stripTrailingZeros();
    if (f.signum() == 0) {
      return "";
    }
    String plain = f.toPlainString();
    return plain.substring(plain.indexOf('.') + 1);
  }

  /**
   * The optional fraction part ({@code ""} or {@code "." digits}) whose value {@code 0.F} is {@code
   * >=} ({@code ge}) or {@code <=} {@code 0.g}, strictly if {@code strict}.
   */
  static Re fraction(String g, boolean ge, boolean strict) {
    boolean emptyOk = ge ? g.isEmpty() && !strict : !(g.isEmpty() && strict);
    Re digits = compare(g, 0, ge, strict, true);
    List<Re> parts = new ArrayList<>();
    if (emptyOk) {
      parts.add(Re.EMPTY);
    }
    parts.add(seq(lit("."), digits));
    return alt(parts);
  }

  /**
   * Digit strings {@code F} (non-empty if {@code first}) with {@code 0.F} compared to {@code
   * 0.g[k..]}.
   */
  private static Re compare(String g, int k, boolean ge, boolean strict, boolean first) {
    Re anyDigits = rep(DIGIT, 0, -1);
    if (k == g.length()) {
      // The rest of the bound is zero.
      if (ge) {
        return strict
            ? seq(anyDigits, new Re.Chars(new int[] {'1', '9'}), anyDigits)
            : rep(DIGIT, first ? 1 : 0, -1);
      }
      return strict ? NOTHING : rep(lit("0"), first ? 1 : 0, -1);
    }
    int d = g.charAt(k);
    List<Re> opts = new ArrayList<>();
    if (ge && d < '9') {
      opts.add(seq(new Re.Chars(new int[] {d + 1, '9'}), anyDigits));
    }
    if (!ge && d > '0') {
      opts.add(seq(new Re.Chars(new int[] {'0', d - 1}), anyDigits));
    }
    Re rest = compare(g, k + 1, ge, strict, false);
    if (!(rest instanceof Re.Chars c && c.ranges().length == 0)) {
      opts.add(seq(lit(String.valueOf((char) d)), rest));
    }
    if (!first && !ge) {
      // F ends here: zeros, below the rest of g (which has a non-zero digit).
      opts.add(Re.EMPTY);
    }
    return alt(opts);
  }

  /**
   * Fraction parts of multiples of {@code 10^-k} ({@code k >= 0}): at most {@code k} significant
   * digits.
   */
  static Re fractionOfMultiple(int k) {
    Re zeros = rep(lit("0"), 0, -1);
    return k == 0
        ? opt(seq(lit("."), rep(lit("0"), 1, -1)))
        : opt(seq(lit("."), rep(DIGIT, 1, k), zeros));
  }

  /**
   * Integer texts {@code -?[0-9]+} whose value is a multiple of {@code n} (leading zeros not
   * excluded).
   */
  static Re multiplesOf(int n) {
    // Byte classes: 0 other, 1..10 the digits, 11 '-'. States: 0 start, 1 after '-', 2 + r residue
    // r.
    int[] classOf = new int[256];
    for (int d = 0; d <= 9; d++) {
      classOf['0' + d] = 1 + d;
    }
    classOf['-'] = 11;
    int states = 2 + n;
    int[] table = new int[states * 12];
    Arrays.fill(table, Dfa.DEAD);
    for (int state = 0; state < states; state++) {
      for (int d = 0; d <= 9; d++) {
        int r = state < 2 ? d % n : (int) ((10L * (state - 2) + d) % n);
        table[state * 12 + 1 + d] = 2 + r;
      }
    }
    table[11] = 1;
    long[] accepting = new long[(states + 63) >>> 6];
    accepting[0] |= 1L << 2;
    return new Re.Automaton(new Dfa(states, classOf, 12, table, accepting));
  }
}
