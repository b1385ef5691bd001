package dev.leap.fsm.grammar;

import dev.leap.fsm.Excerpt;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import dev.leap.fsm.internal.Trees;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.List;

/**
 * GBNF text to rules whose bodies are regex trees ({@link Re}), as llama.cpp and XGrammar write it:
 * a literal is its code points ({@link Trees#lit}), a class or {@code .} a {@link Re.Chars}, a rule
 * reference a {@link Re.Call} by name with its line and column (resolved later, {@link
 * GrammarTrees}), a sequence a {@link Re.Concat}, alternatives a {@link Re.Alt}, a repetition a
 * {@link Re.Repeat}.
 *
 * <p>Dialect: {@code name ::= alternatives}; names are {@code [A-Za-z0-9_-]+}; a rule ends where
 * the next {@code name ::=} starts (so newlines are free: a rule may span lines, and alternatives
 * may start a line with {@code |}); {@code #} starts a comment to the end of the line. Terms:
 * {@code "literal"}, character classes {@code [a-z_]} and {@code [^"\\]}, {@code .} (any code
 * point), rule references, {@code ( )}; postfix {@code ? * + {m} {m,} {m,n}}; {@code |} between
 * sequences. Escapes in literals and classes: {@code \n \r \t \\ \" \' \[ \] \- \/ \^}, and a
 * backslash followed by {@code x}, {@code u} or {@code U} and 2, 4 or 8 hex digits (a code point).
 * Every error names its line and column.
 */
final class GbnfParser {
  /** Largest {@code m} or {@code n} in a {@code {m,n}} repetition. */
  static final int MAX_REPEAT = 10_000;

  private final int[] cp;
  private int pos;

  private GbnfParser(String text) {
    this.cp = text.codePoints().toArray();
  }

  /**
   * A rule definition {@code name ::= body} at 1-based {@code line}/{@code column} (of the name),
   * before any check.
   */
  record Rule(String name, Re body, int line, int column) {}

  /** The rules of {@code text} in definition order. */
  static List<Rule> parse(String text) {
    return new GbnfParser(text).rules();
  }

  private List<Rule> rules() {
    List<Rule> out = new ArrayList<>();
    skipSpace();
    while (pos < cp.length) {
      int start = pos;
      String name = name();
      if (name == null) {
        throw error(start, "expected a rule name, found " + describe(start));
      }
      skipSpace();
      if (!lookingAt("::=")) {
        throw error(
            pos,
            "expected \"::=\" after rule name \""
                + Excerpt.around(name, -1)
                + "\", found "
                + describe(pos));
      }
      pos += 3;
      skipSpace();
      Re body = alternatives(0);
      if (pos < cp.length && cp[pos] == ')') {
        throw error(pos, "unbalanced \")\"");
      }
      int[] lc = lineColumn(start);
      out.add(new Rule(name, body, lc[0], lc[1]));
    }
    return out;
  }

  /**
   * Deepest nesting of parenthesized groups (the parser and the passes over its tree recurse per
   * level).
   */
  static final int MAX_NESTING = RegexParser.MAX_NESTING;

  private Re alternatives(int depth) {
    List<Re> options = new ArrayList<>();
    options.add(sequence(depth));
    while (pos < cp.length && cp[pos] == '|') {
      pos++;
      skipSpace();
      options.add(sequence(depth));
    }
    return options.size() == 1 ? options.get(0) : new Re.Alt(options);
  }

  private Re sequence(int depth) {
    List<Re> items = new ArrayList<>();
    while (pos < cp.length && cp[pos] != '|' && cp[pos] != ')' && !atRuleStart()) {
      Re term = postfix(term(depth));
      items.add(term);
      skipSpace();
    }
    if (items.isEmpty()) {
      // An empty alternative ("a" | ) matches the empty string, as in llama.cpp.
      return Re.EMPTY;
    }
    return items.size() == 1 ? items.get(0) : new Re.Concat(items);
  }

  private Re term(int depth) {
    int start = pos;
    int c = cp[pos];
    if (c == '"') {
      return literal();
    }
    if (c == '[') {
      return charClass();
    }
    if (c == '.') {
      pos++;
      return new Re.Chars(CharRanges.normalize(IntArrayList.of(0, CharRanges.MAX)));
    }
    if (c == '(') {
      if (depth >= MAX_NESTING) {
        throw error(start, "groups nested deeper than the limit of " + MAX_NESTING);
      }
      pos++;
      skipSpace();
      Re inner = alternatives(depth + 1);
      if (pos >= cp.length || cp[pos] != ')') {
        throw error(start, "unclosed \"(\"");
      }
      pos++;
      return inner;
    }
    String name = name();
    if (name != null) {
      int[] lc = lineColumn(start);
      return Re.Call.named(name, lc[0], lc[1]);
    }
    throw error(pos, "unexpected " + describe(pos));
  }

  private Re postfix(Re term) {
    while (true) {
      int save = pos;
      skipSpace();
      if (pos >= cp.length) {
        pos = save;
        return term;
      }
      int c = cp[pos];
      if (c == '*') {
        pos++;
        term = new Re.Repeat(term, 0, -1);
      } else if (c == '+') {
        pos++;
        term = new Re.Repeat(term, 1, -1);
      } else if (c == '?') {
        pos++;
        term = new Re.Repeat(term, 0, 1);
      } else if (c == '{') {
        term = braces(term);
      } else {
        pos = save;
        return term;
      }
    }
  }

  private Re braces(Re term) {
    int start = pos;
    pos++;
    skipInlineSpace();
    int min = number(start);
    int max = min;
    skipInlineSpace();
    if (pos < cp.length && cp[pos] == ',') {
      pos++;
      skipInlineSpace();
      max = pos < cp.length && cp[pos] == '}' ? -1 : number(start);
      skipInlineSpace();
    }
    if (pos >= cp.length || cp[pos] != '}') {
      throw error(start, "repetition must be {m}, {m,} or {m,n}");
    }
    pos++;
    if (max >= 0 && max < min) {
      throw error(start, "repetition {" + min + "," + max + "} has its maximum below its minimum");
    }
    return new Re.Repeat(term, min, max);
  }

  private int number(int braceStart) {
    int start = pos;
    long v = 0;
    while (pos < cp.length && cp[pos] >= '0' && cp[pos] <= '9') {
      v = v * 10 + (cp[pos] - '0');
      if (v > MAX_REPEAT) {
        throw error(start, "repetition count above the limit of " + MAX_REPEAT);
      }
      pos++;
    }
    if (pos == start) {
      throw error(braceStart, "repetition must be {m}, {m,} or {m,n}");
    }
    return (int) v;
  }

  private Re literal() {
    int start = pos;
    pos++;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= cp.length || cp[pos] == '\n') {
        throw error(start, "unterminated string literal");
      }
      int c = cp[pos];
      if (c == '"') {
        pos++;
        return Trees.lit(sb.toString());
      }
      sb.appendCodePoint(c == '\\' ? escape() : cp[pos++]);
    }
  }

  private Re charClass() {
    int start = pos;
    pos++;
    boolean negated = pos < cp.length && cp[pos] == '^';
    if (negated) {
      pos++;
    }
    IntArrayList raw = new IntArrayList();
    while (true) {
      if (pos >= cp.length || cp[pos] == '\n') {
        throw error(start, "unterminated character class");
      }
      if (cp[pos] == ']') {
        pos++;
        break;
      }
      int itemStart = pos;
      int lo = classChar();
      int hi = lo;
      if (pos + 1 < cp.length && cp[pos] == '-' && cp[pos + 1] != ']') {
        pos++;
        hi = classChar();
        if (hi < lo) {
          throw error(
              itemStart, "character range " + show(lo) + "-" + show(hi) + " is out of order");
        }
      }
      raw.add(lo);
      raw.add(hi);
    }
    int[] ranges = CharRanges.normalize(raw);
    if (negated) {
      ranges = CharRanges.negate(ranges);
    }
    if (ranges.length == 0) {
      throw error(start, "character class matches no character");
    }
    return new Re.Chars(ranges);
  }

  private int classChar() {
    return cp[pos] == '\\' ? escape() : cp[pos++];
  }

  /** Reads an escape at {@code pos} (a backslash) and returns its code point. */
  private int escape() {
    int start = pos;
    pos++;
    if (pos >= cp.length) {
      throw error(start, "backslash at the end of the grammar");
    }
    int c = cp[pos++];
    switch (c) {
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case '\\':
      case '"':
      case '\'':
      case '[':
      case ']':
      case '-':
      case '/':
      case '^':
        return c;
      case 'x':
        return hex(start, 2);
      case 'u':
        return hex(start, 4);
      case 'U':
        return hex(start, 8);
      default:
        throw error(start, "unknown escape \\" + new String(Character.toChars(c)));
    }
  }

  private int hex(int start, int digits) {
    int v = 0;
    for (int i = 0; i < digits; i++) {
      int d = pos < cp.length ? Character.digit(cp[pos], 16) : -1;
      if (d < 0) {
        throw error(start, "escape needs " + digits + " hex digits");
      }
      v = v * 16 + d;
      pos++;
    }
    if (v > CharRanges.MAX || (v >= 0xD800 && v <= 0xDFFF)) {
      throw error(start, "escape " + String.format("U+%04X", v) + " is not a Unicode scalar value");
    }
    return v;
  }

  /** The rule name at {@code pos}, consumed, or null (nothing consumed) if none. */
  private String name() {
    int start = pos;
    while (pos < cp.length && isNameChar(cp[pos])) {
      pos++;
    }
    return pos == start ? null : new String(cp, start, pos - start);
  }

  private static boolean isNameChar(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  /** Whether {@code name ::=} starts at {@code pos} (the next rule). */
  private boolean atRuleStart() {
    int p = pos;
    while (p < cp.length && isNameChar(cp[p])) {
      p++;
    }
    if (p == pos) {
      return false;
    }
    while (p < cp.length && (cp[p] == ' ' || cp[p] == '\t' || cp[p] == '\r' || cp[p] == '\n')) {
      p++;
    }
    return p + 2 < cp.length && cp[p] == ':' && cp[p + 1] == ':' && cp[p + 2] == '=';
  }

  private boolean lookingAt(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (pos + i >= cp.length || cp[pos + i] != s.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Skips whitespace (newlines too) and comments. */
  private void skipSpace() {
    while (pos < cp.length) {
      int c = cp[pos];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        pos++;
      } else if (c == '#') {
        while (pos < cp.length && cp[pos] != '\n') {
          pos++;
        }
      } else {
        return;
      }
    }
  }

  /** Skips spaces and tabs (inside {@code {m,n}}). */
  private void skipInlineSpace() {
    while (pos < cp.length && (cp[pos] == ' ' || cp[pos] == '\t')) {
      pos++;
    }
  }

  private String describe(int p) {
    if (p >= cp.length) {
      return "the end of the grammar";
    }
    return "\"" + new String(Character.toChars(cp[p])) + "\"";
  }

  private static String show(int c) {
    return c >= 0x21 && c < 0x7F ? String.valueOf((char) c) : String.format("U+%04X", c);
  }

  /** 1-based line and column (code points) of code point index {@code p}. */
  private int[] lineColumn(int p) {
    int line = 1;
    int col = 1;
    for (int i = 0; i < p && i < cp.length; i++) {
      if (cp[i] == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return new int[] {line, col};
  }

  private GrammarSyntaxException error(int p, String description) {
    int[] lc = lineColumn(p);
    return new GrammarSyntaxException(lc[0], lc[1], description);
  }
}
