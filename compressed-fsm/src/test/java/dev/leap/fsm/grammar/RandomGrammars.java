package dev.leap.fsm.grammar;

import dev.leap.fsm.internal.Re;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Seeded random grammars (recursion, nullable rules, repetition, classes with negation and
 * non-ASCII code points) and random texts: drawn from a grammar, then sometimes mutated.
 */
final class RandomGrammars {
  private RandomGrammars() {}

  private static final String[] LITERALS = {"a", "b", "ab", "c", "", "é", "中", "\\n", "ba", "😀"};
  private static final String[] CLASSES = {
    "[a-c]", "[^a]", "[ab]", "[a-zé-ü]", "[^\\x00-\\x7F]", "[b-d中]", "."
  };

  /** A grammar text with 1 to 4 rules besides root; it may fail the checks (callers skip those). */
  static String grammar(SplittableRandom rnd) {
    int extra = 1 + rnd.nextInt(4);
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r <= extra; r++) {
      sb.append(r == 0 ? "root" : "r" + r).append(" ::= ").append(expr(rnd, extra, 0)).append('\n');
    }
    return sb.toString();
  }

  private static String expr(SplittableRandom rnd, int rules, int depth) {
    int alts = 1 + rnd.nextInt(depth == 0 ? 3 : 2);
    StringBuilder sb = new StringBuilder();
    for (int a = 0; a < alts; a++) {
      if (a > 0) {
        sb.append(" | ");
      }
      int items = 1 + rnd.nextInt(3);
      for (int i = 0; i < items; i++) {
        if (i > 0) {
          sb.append(' ');
        }
        sb.append(item(rnd, rules, depth));
      }
    }
    return sb.toString();
  }

  private static String item(SplittableRandom rnd, int rules, int depth) {
    String base;
    int k = rnd.nextInt(10);
    if (k < 3) {
      base = "\"" + LITERALS[rnd.nextInt(LITERALS.length)] + "\"";
    } else if (k < 5) {
      base = CLASSES[rnd.nextInt(CLASSES.length)];
    } else if (k < 8) {
      base = "r" + (1 + rnd.nextInt(rules));
    } else if (depth < 2) {
      base = "(" + expr(rnd, rules, depth + 1) + ")";
    } else {
      base = "\"x\"";
    }
    int p = rnd.nextInt(12);
    return switch (p) {
      case 0 -> base + "?";
      case 1 -> base + "*";
      case 2 -> base + "+";
      case 3 -> base + "{" + rnd.nextInt(3) + "}";
      case 4 -> base + "{1,3}";
      case 5 -> base + "{2,}";
      default -> base;
    };
  }

  /** A text drawn from {@code rules} (null when it grew past the budget). */
  static byte[] sentence(List<GbnfParser.Rule> rules, SplittableRandom rnd, int budget) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] left = {budget};
    Map<String, GbnfParser.Rule> byName = new HashMap<>();
    rules.forEach(r -> byName.put(r.name(), r));
    return emit(byName.get("root").body(), byName, rnd, out, left, 0) ? out.toByteArray() : null;
  }

  private static boolean emit(
      Re e,
      Map<String, GbnfParser.Rule> rules,
      SplittableRandom rnd,
      ByteArrayOutputStream out,
      int[] left,
      int depth) {
    if (--left[0] < 0 || depth > 60) {
      return false;
    }
    String literal = literal(e);
    if (literal != null) {
      // A literal's text (a sequence of one-code-point sets): one step, nothing to draw.
      out.writeBytes(literal.getBytes(StandardCharsets.UTF_8));
      return true;
    } else if (e instanceof Re.Chars c) {
      int[] r = c.ranges();
      int i = 2 * rnd.nextInt(r.length / 2);
      int cp =
          r[i]
              + (int)
                  rnd.nextLong(Math.min(r[i + 1] - r[i] + 1L, rnd.nextBoolean() ? 3 : 0x110000));
      out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
      return true;
    } else if (e instanceof Re.Call ref) {
      return emit(rules.get(ref.name()).body(), rules, rnd, out, left, depth + 1);
    } else if (e instanceof Re.Concat s) {
      for (Re x : s.items()) {
        if (!emit(x, rules, rnd, out, left, depth + 1)) {
          return false;
        }
      }
      return true;
    } else if (e instanceof Re.Alt a) {
      return emit(
          a.options().get(rnd.nextInt(a.options().size())), rules, rnd, out, left, depth + 1);
    } else if (e instanceof Re.Repeat r) {
      int max = r.max() < 0 ? r.min() + 3 : r.max();
      int n = r.min() + rnd.nextInt(max - r.min() + 1);
      for (int i = 0; i < n; i++) {
        if (!emit(r.item(), rules, rnd, out, left, depth + 1)) {
          return false;
        }
      }
      return true;
    }
    throw new IllegalArgumentException("no GBNF parser writes " + e);
  }

  /**
   * The text of {@code e} when it is what the parser makes of a literal ({@code Trees.lit}: the
   * empty node, one code point, or a sequence of single code points), else null.
   */
  private static String literal(Re e) {
    if (e instanceof Re.Empty) {
      return "";
    }
    if (e instanceof Re.Chars c) {
      return c.ranges().length == 2 && c.ranges()[0] == c.ranges()[1]
          ? new String(Character.toChars(c.ranges()[0]))
          : null;
    }
    if (e instanceof Re.Concat s) {
      StringBuilder sb = new StringBuilder();
      for (Re x : s.items()) {
        if (!(x instanceof Re.Chars c
            && c.ranges().length == 2
            && c.ranges()[0] == c.ranges()[1])) {
          return null;
        }
        sb.appendCodePoint(c.ranges()[0]);
      }
      return sb.toString();
    }
    return null;
  }

  private static final byte[][] PIECES = {
    "a".getBytes(StandardCharsets.UTF_8),
    "b".getBytes(StandardCharsets.UTF_8),
    "c".getBytes(StandardCharsets.UTF_8),
    "x".getBytes(StandardCharsets.UTF_8),
    "é".getBytes(StandardCharsets.UTF_8),
    "中".getBytes(StandardCharsets.UTF_8),
    "\n".getBytes(StandardCharsets.UTF_8),
    {(byte) 0xC3},
    {(byte) 0xFF},
    {(byte) 0x80},
    "\"".getBytes(StandardCharsets.UTF_8),
    "{".getBytes(StandardCharsets.UTF_8),
    "}".getBytes(StandardCharsets.UTF_8),
    ",".getBytes(StandardCharsets.UTF_8),
    "1".getBytes(StandardCharsets.UTF_8)
  };

  /**
   * {@code text} with 1 to 3 random edits (delete, insert, replace a byte; cut; repeat a slice).
   */
  static byte[] mutate(byte[] text, SplittableRandom rnd) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] t = text;
    int edits = 1 + rnd.nextInt(3);
    for (int e = 0; e < edits; e++) {
      out.reset();
      int at = t.length == 0 ? 0 : rnd.nextInt(t.length + 1);
      switch (rnd.nextInt(5)) {
        case 0 -> {
          out.write(t, 0, at);
          if (at < t.length) {
            out.write(t, at + 1, t.length - at - 1);
          }
        }
        case 1 -> {
          out.write(t, 0, at);
          out.writeBytes(PIECES[rnd.nextInt(PIECES.length)]);
          out.write(t, at, t.length - at);
        }
        case 2 -> {
          out.write(t, 0, at);
          if (at < t.length) {
            out.writeBytes(PIECES[rnd.nextInt(PIECES.length)]);
            out.write(t, at + 1, t.length - at - 1);
          }
        }
        case 3 -> out.write(t, 0, at);
        default -> {
          out.write(t, 0, at);
          int len = rnd.nextInt(t.length - at + 1);
          out.write(t, at, len);
          out.write(t, at, t.length - at);
        }
      }
      t = out.toByteArray();
    }
    return t;
  }
}
