package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.opt;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;

/**
 * Number and integer values: bounds ({@code minimum}, {@code maximum}, both spellings of the
 * exclusive ones) and {@code multipleOf}, exactly, through the languages of {@link IntegerRange}
 * and {@link Numbers}. Unbounded numbers use JSON's full syntax (exponents too); bounded numbers
 * and multiples are written as plain decimals. {@code multipleOf} is exact for integers up to
 * {@link #MAX_MODULUS} and, for numbers, for powers of ten ({@code 0.01}, {@code 1}, ...) and whole
 * numbers up to it; other divisors are not honoured.
 */
final class NumberValues {
  /** The largest whole {@code multipleOf} written out (its automaton has that many states). */
  static final int MAX_MODULUS = 10_000;

  private static final Re DIGIT = IntegerRange.DIGIT;
  private static final Re NONZERO_DIGIT = new Re.Chars(new int[] {'1', '9'});

  private final Converter converter;

  NumberValues(Converter converter) {
    this.converter = converter;
  }

  /** The bounds of a number schema; a null end is unbounded. */
  record Bounds(BigDecimal lo, boolean loExclusive, BigDecimal hi, boolean hiExclusive) {}

  /** The integers integer schema {@code o} allows. */
  Re integer(ObjectNode o, String ptr) {
    BigInteger lo = null;
    BigInteger hi = null;
    Bounds b = bounds(o, ptr);
    if (b.lo() != null) {
      lo = ceil(b.lo(), b.loExclusive());
    }
    if (b.hi() != null) {
      hi = floor(b.hi(), b.hiExclusive());
    }
    if (lo != null && hi != null && lo.compareTo(hi) > 0) {
      return NOTHING;
    }
    Re range = IntegerRange.of(lo, hi);
    if (!o.has("multipleOf")) {
      return range;
    }
    BigDecimal m = positive(o, "multipleOf", ptr);
    if (BigDecimal.ONE.remainder(m).signum() == 0) {
      return range; // every integer is a multiple of 1/n
    }
    if (m.stripTrailingZeros().scale() <= 0 && m.compareTo(BigDecimal.valueOf(MAX_MODULUS)) <= 0) {
      return converter.intersection(
          List.of(range, Numbers.multiplesOf(m.intValueExact())), "multipleOf", ptr);
    }
    converter.notHonoured(
        "multipleOf",
        ptr,
        "integers: multipleOf is supported for whole numbers up to " + MAX_MODULUS);
    return range;
  }

  /** The numbers number schema {@code o} allows. */
  Re number(ObjectNode o, String ptr) {
    Bounds b = bounds(o, ptr);
    Re exp =
        opt(
            seq(
                new Re.Chars(CharRanges.of('E', 'E', 'e', 'e')),
                opt(new Re.Chars(CharRanges.of('+', '+', '-', '-'))),
                rep(DIGIT, 1, -1)));
    Re intPart = alt(List.of(lit("0"), seq(NONZERO_DIGIT, rep(DIGIT, 0, -1))));
    if (b.lo() == null && b.hi() == null && !o.has("multipleOf")) {
      return seq(opt(lit("-")), intPart, Numbers.ANY_FRACTION, exp);
    }
    // Plain decimals (no exponent) from here on.
    Re range =
        b.lo() == null && b.hi() == null
            ? seq(opt(lit("-")), intPart, Numbers.ANY_FRACTION)
            : Numbers.range(
                b.lo(), b.loExclusive(), b.hi(), b.hiExclusive(), converter.options.maxDfaStates());
    if (!o.has("multipleOf")) {
      return range;
    }
    BigDecimal m = positive(o, "multipleOf", ptr).stripTrailingZeros();
    Re multiples;
    if (m.unscaledValue().equals(BigInteger.ONE) && m.scale() >= 0) {
      multiples = seq(opt(lit("-")), intPart, Numbers.fractionOfMultiple(m.scale()));
    } else if (m.scale() <= 0 && m.compareTo(BigDecimal.valueOf(MAX_MODULUS)) <= 0) {
      multiples = seq(Numbers.multiplesOf(m.intValueExact()), Numbers.fractionOfMultiple(0));
    } else {
      converter.notHonoured(
          "multipleOf",
          ptr,
          "numbers: multipleOf is supported for powers of ten (0.01, 1, ...) and"
              + " whole numbers up to "
              + MAX_MODULUS);
      return range;
    }
    return converter.intersection(List.of(range, multiples), "multipleOf", ptr);
  }

  /**
   * The bounds of {@code o}: {@code minimum}/{@code maximum} with draft-4 boolean {@code
   * exclusiveMinimum}/{@code exclusiveMaximum}, tightened by numeric (draft 6 on) exclusive bounds.
   */
  private static Bounds bounds(ObjectNode o, String ptr) {
    BigDecimal lo = null;
    BigDecimal hi = null;
    boolean loEx = false;
    boolean hiEx = false;
    if (o.has("minimum")) {
      lo = decimal(o, "minimum", ptr);
      loEx = o.path("exclusiveMinimum").isBoolean() && o.get("exclusiveMinimum").asBoolean();
    }
    if (o.has("maximum")) {
      hi = decimal(o, "maximum", ptr);
      hiEx = o.path("exclusiveMaximum").isBoolean() && o.get("exclusiveMaximum").asBoolean();
    }
    if (o.path("exclusiveMinimum").isNumber()) {
      BigDecimal e = o.get("exclusiveMinimum").decimalValue();
      if (lo == null || e.compareTo(lo) >= 0) {
        lo = e;
        loEx = true;
      }
    }
    if (o.path("exclusiveMaximum").isNumber()) {
      BigDecimal e = o.get("exclusiveMaximum").decimalValue();
      if (hi == null || e.compareTo(hi) <= 0) {
        hi = e;
        hiEx = true;
      }
    }
    return new Bounds(lo, loEx, hi, hiEx);
  }

  private static BigDecimal positive(ObjectNode o, String key, String ptr) {
    BigDecimal m = decimal(o, key, ptr);
    if (m.signum() <= 0) {
      throw new JsonSchemaException(key, ptr, key + " must be greater than 0, found " + m);
    }
    return m;
  }

  private static BigDecimal decimal(ObjectNode o, String key, String ptr) {
    JsonNode n = o.get(key);
    if (!n.isNumber()) {
      throw new JsonSchemaException(key, ptr, key + " must be a number, found " + n);
    }
    return n.decimalValue();
  }

  /** The least integer above {@code d} (or at it, unless {@code exclusive}). */
  private static BigInteger ceil(BigDecimal d, boolean exclusive) {
    BigInteger c = d.setScale(0, RoundingMode.CEILING).toBigIntegerExact();
    if (exclusive && d.compareTo(new BigDecimal(c)) == 0) {
      c = c.add(BigInteger.ONE);
    }
    return c;
  }

  /** The greatest integer below {@code d} (or at it, unless {@code exclusive}). */
  private static BigInteger floor(BigDecimal d, boolean exclusive) {
    BigInteger f = d.setScale(0, RoundingMode.FLOOR).toBigIntegerExact();
    if (exclusive && d.compareTo(new BigDecimal(f)) == 0) {
      f = f.subtract(BigInteger.ONE);
    }
    return f;
  }
}
