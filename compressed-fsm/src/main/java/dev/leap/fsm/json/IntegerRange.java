package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import dev.leap.fsm.internal.Re;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The decimal integers in {@code [lo, hi]} (either end may be unbounded) as a regex tree, exactly:
 * no leading zeros, no {@code -0}. The range is split by sign and by digit count; a range of
 * numbers with the same digit count is split on its first differing digit (the classic digit-range
 * construction).
 */
final class IntegerRange {
  private IntegerRange() {}

  static final Re DIGIT = new Re.Chars(new int[] {'0', '9'});

  /** {@code lo} or {@code hi} null means unbounded on that side. */
  static Re of(BigInteger lo, BigInteger hi) {
    List<Re> parts = new ArrayList<>();
    BigInteger minusOne = BigInteger.ONE.negate();
    if (lo == null || lo.signum() < 0) {
      BigInteger negHi = hi == null || hi.signum() >= 0 ? minusOne : hi;
      if (lo == null || lo.compareTo(negHi) <= 0) {
        parts.add(seq(lit("-"), nonNegative(negHi.negate(), lo == null ? null : lo.negate())));
      }
    }
    if (hi == null || hi.signum() >= 0) {
      BigInteger a = lo == null || lo.signum() < 0 ? BigInteger.ZERO : lo;
      if (hi == null || a.compareTo(hi) <= 0) {
        parts.add(nonNegative(a, hi));
      }
    }
    return alt(parts);
  }

  /** Non-negative integers in {@code [a, b]}, {@code b} null for no upper bound. */
  static Re nonNegative(BigInteger a, BigInteger b) {
    List<Re> parts = new ArrayList<>();
    int la = a.toString().length();
    int lb = b == null ? Integer.MAX_VALUE : b.toString().length();
    for (int len = la; len <= lb; len++) {
      BigInteger low = len == la ? a : BigInteger.TEN.pow(len - 1);
      if (b == null && len > la) {
        // Every number with more digits than a: a non-zero digit, then len-1 or more digits.
        parts.add(seq(new Re.Chars(new int[] {'1', '9'}), rep(DIGIT, la, -1)));
        break;
      }
      BigInteger high = len == lb ? b : BigInteger.TEN.pow(len).subtract(BigInteger.ONE);
      parts.add(sameLength(low.toString(), high.toString()));
      if (b == null) {
        // continue once more to add the "longer" part
        continue;
      }
    }
    return alt(parts);
  }

  /**
   * Digit strings of equal length from {@code x} to {@code y} (x <= y), leading zeros allowed
   * inside.
   */
  static Re sameLength(String x, String y) {
    int n = x.length();
    if (n == 1) {
      return new Re.Chars(new int[] {x.charAt(0), y.charAt(0)});
    }
    char x0 = x.charAt(0);
    char y0 = y.charAt(0);
    String xr = x.substring(1);
    String yr = y.substring(1);
    if (x0 == y0) {
      return seq(lit(String.valueOf(x0)), sameLength(xr, yr));
    }
    if (xr.chars().allMatch(c -> c == '0') && yr.chars().allMatch(c -> c == '9')) {
      return seq(new Re.Chars(new int[] {x0, y0}), rep(DIGIT, n - 1, n - 1));
    }
    List<Re> parts = new ArrayList<>();
    parts.add(seq(lit(String.valueOf(x0)), sameLength(xr, "9".repeat(n - 1))));
    if (x0 + 1 <= y0 - 1) {
      parts.add(seq(new Re.Chars(new int[] {x0 + 1, y0 - 1}), rep(DIGIT, n - 1, n - 1)));
    }
    parts.add(seq(lit(String.valueOf(y0)), sameLength("0".repeat(n - 1), yr)));
    return alt(parts);
  }
}
