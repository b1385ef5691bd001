package dev.leap.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntBinaryOperator;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;

/**
 * Seeded random regexes over the whole of Leap's dialect, their {@code java.util.regex}
 * translations, and strings drawn from a compiled DFA (so that matches occur) or at random. Public
 * so that later modules' tests (runtime, retokenize) can drive random constraints.
 *
 * <p>Dialect differences handled by {@link #toJava}: Java's {@code .} excludes line terminators
 * other than {@code \n} unless {@link Pattern#UNIX_LINES} is set (it is); Java's {@code \v} is a
 * class of vertical whitespace, Leap's is U+000B (translated to {@code \x0B}); Java spells named
 * groups {@code (?<n>...)}, Python {@code (?P<n>...)} (translated). {@code \d \w \s} are ASCII in
 * both. Generated regexes avoid {@code []...]} and other forms the two dialects read differently.
 */
public final class RandomRegex {
  private final SplittableRandom rnd;
  private int groups;

  private static final String[] LITERALS = {
    "a",
    "b",
    "c",
    "x",
    "Z",
    "0",
    "7",
    " ",
    "\\n",
    "\\t",
    "-",
    ",",
    ":",
    "\"",
    "\\.",
    "\\*",
    "\\+",
    "\\?",
    "\\(",
    "\\)",
    "\\[",
    "\\]",
    "\\{",
    "\\}",
    "\\|",
    "\\\\",
    "\\^",
    "\\$",
    "é",
    "ü",
    "ß",
    "中",
    "文",
    "😀",
    "\\x41",
    "\\u00e9",
    "\\x{1F600}",
    "/",
    "#",
    "\\v",
    "_",
    "\\/"
  };
  private static final String[] CLASS_ITEMS = {
    "a",
    "b-d",
    "x-z",
    "0-9",
    "\\d",
    "\\w",
    "\\s",
    "\\D",
    "_",
    "\\-",
    ".",
    " ",
    "é",
    "à-ÿ",
    "一-龥",
    "😀-😎",
    "\\n",
    "\\]",
    "\\[",
    "\\\\",
    "\"",
    "A-Z",
    "\\x00-\\x1f",
    "\\u0100-\\u017F"
  };
  private static final String[] ESCAPES = {"\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "."};

  public RandomRegex(long seed) {
    this.rnd = new SplittableRandom(seed);
  }

  /** A random regex of about {@code depth} levels of nesting. */
  public String next(int depth) {
    StringBuilder sb = new StringBuilder();
    groups = 0;
    boolean anchors = rnd.nextInt(8) == 0;
    if (anchors) {
      sb.append('^');
    }
    alt(sb, depth);
    if (anchors) {
      sb.append('$');
    }
    return sb.toString();
  }

  private void alt(StringBuilder sb, int depth) {
    int n = rnd.nextInt(5) == 0 ? 2 + rnd.nextInt(2) : 1;
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append('|');
      }
      concat(sb, depth);
    }
  }

  private void concat(StringBuilder sb, int depth) {
    int n = rnd.nextInt(4);
    if (n == 0 && rnd.nextBoolean()) {
      n = 1;
    }
    for (int i = 0; i < n; i++) {
      atom(sb, depth);
      quantifier(sb);
    }
  }

  private void atom(StringBuilder sb, int depth) {
    int k = rnd.nextInt(depth > 0 ? 10 : 7);
    switch (k) {
      case 0:
      case 1:
      case 2:
        String lit = LITERALS[rnd.nextInt(LITERALS.length)];
        sb.append(lit);
        break;
      case 3:
        sb.append(ESCAPES[rnd.nextInt(ESCAPES.length)]);
        break;
      case 4:
      case 5:
        sb.append('[');
        if (rnd.nextInt(4) == 0) {
          sb.append('^');
        }
        int items = 1 + rnd.nextInt(3);
        for (int i = 0; i < items; i++) {
          sb.append(CLASS_ITEMS[rnd.nextInt(CLASS_ITEMS.length)]);
        }
        sb.append(']');
        break;
      case 6:
        sb.append(rnd.nextBoolean() ? "ab" : "cd");
        break;
      default:
        int g = rnd.nextInt(3);
        sb.append(g == 0 ? "(" : g == 1 ? "(?:" : "(?P<g" + (groups++) + ">");
        alt(sb, depth - 1);
        sb.append(')');
    }
  }

  private void quantifier(StringBuilder sb) {
    int q = rnd.nextInt(12);
    String s;
    switch (q) {
      case 0:
        s = "*";
        break;
      case 1:
        s = "+";
        break;
      case 2:
        s = "?";
        break;
      case 3:
        s = "{" + rnd.nextInt(4) + "}";
        break;
      case 4:
        s = "{" + rnd.nextInt(3) + ",}";
        break;
      case 5:
        int m = rnd.nextInt(3);
        s = "{" + m + "," + (m + rnd.nextInt(4)) + "}";
        break;
      default:
        s = "";
    }
    sb.append(s);
    if (!s.isEmpty() && rnd.nextInt(6) == 0) {
      sb.append('?');
    }
  }

  /** The {@code java.util.regex} pattern with the same full-match language. */
  public static Pattern toJava(String leapRegex) {
    String j = leapRegex.replace("(?P<", "(?<");
    // \v is U+000B in Leap (Python); in Java it is a class. Replace only an unescaped \v.
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < j.length(); i++) {
      char c = j.charAt(i);
      if (c == '\\' && i + 1 < j.length()) {
        char d = j.charAt(i + 1);
        sb.append(d == 'v' ? "\\x0B" : "\\" + d);
        i++;
      } else {
        sb.append(c);
      }
    }
    return Pattern.compile(sb.toString(), Pattern.UNIX_LINES);
  }

  /**
   * A deterministic byte automaton as the random walk sees it (the project's {@code Dfa} and {@code
   * ByteAutomaton} through {@link #automaton}; testkit depends on no module of the project).
   */
  public interface Automaton {
    int initialState();

    boolean isAccepting(int state);

    /** The state after byte {@code b} (0-255), or a negative number where the automaton dies. */
    int step(int state, int b);
  }

  /**
   * An {@link Automaton} from its three functions ({@code dfa.initialState(), dfa::isAccepting,
   * dfa::step}).
   */
  public static Automaton automaton(
      int initialState, IntPredicate accepting, IntBinaryOperator step) {
    return new Automaton() {
      @Override
      public int initialState() {
        return initialState;
      }

      @Override
      public boolean isAccepting(int state) {
        return accepting.test(state);
      }

      @Override
      public int step(int state, int b) {
        return step.applyAsInt(state, b);
      }
    };
  }

  /** A string drawn by a random walk of the automaton that ends in an accepting state, or null. */
  public String sampleMatch(Automaton dfa, int maxBytes) {
    byte[] buf = new byte[maxBytes];
    int s = dfa.initialState();
    int n = 0;
    int[] live = new int[256];
    while (true) {
      int count = 0;
      for (int b = 0; b < 256; b++) {
        if (dfa.step(s, b) >= 0) {
          live[count++] = b;
        }
      }
      if (dfa.isAccepting(s) && (rnd.nextInt(4) == 0 || count == 0)) {
        return new String(buf, 0, n, StandardCharsets.UTF_8);
      }
      if (n == maxBytes || count == 0) {
        return null;
      }
      int b = live[rnd.nextInt(count)];
      buf[n++] = (byte) b;
      s = dfa.step(s, b);
    }
  }

  /** A short random string over characters that appear in regexes, plus a few others. */
  public String sampleRandom(int maxLen) {
    String[] chars = {
      "a", "b", "c", "d", "x", "Z", "0", "7", " ", "\n", "\t", "-", ",", ".", "\"", "é", "ü", "中",
      "😀", "A", "_", "{", "}", "\u000B", "\u00ff", "\u0100", "ÿ", "\u0001"
    };
    int len = rnd.nextInt(maxLen + 1);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < len; i++) {
      sb.append(chars[rnd.nextInt(chars.length)]);
    }
    return sb.toString();
  }

  /** A small edit of {@code s}: delete, insert or replace one character (code point). */
  public String mutate(String s) {
    int[] cps = s.codePoints().toArray();
    List<Integer> list = new ArrayList<>();
    for (int c : cps) {
      list.add(c);
    }
    String extra = sampleRandom(1);
    int add = extra.isEmpty() ? 'q' : extra.codePointAt(0);
    int op = rnd.nextInt(3);
    if (list.isEmpty() || op == 0) {
      list.add(list.isEmpty() ? 0 : rnd.nextInt(list.size() + 1), add);
    } else if (op == 1) {
      list.remove(rnd.nextInt(list.size()));
    } else {
      list.set(rnd.nextInt(list.size()), add);
    }
    StringBuilder sb = new StringBuilder();
    for (int c : list) {
      sb.appendCodePoint(c);
    }
    return sb.toString();
  }

  public SplittableRandom random() {
    return rnd;
  }
}
