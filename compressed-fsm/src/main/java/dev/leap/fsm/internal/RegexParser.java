package dev.leap.fsm.internal;

import dev.leap.fsm.RegexSyntaxException;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive-descent parser for Leap's regex dialect (the Python/PCRE subset that Outlines, SGLang
 * and JSON-Schema converters emit), producing a {@link Re} tree over code points.
 *
 * <p>Dialect: literals; escapes {@code \n \t \r \f \v \a \e \\ \xHH \x{H..} \\uHHHH \\UHHHHHHHH} and
 * any escaped punctuation; {@code .} (any code point but {@code \n}); classes {@code [...]} with
 * ranges, negation and {@code \d \w \s \D \W \S} inside; these with ASCII meaning
 * ({@code [0-9]}, {@code [A-Za-z0-9_]}, {@code [ \t\n\r\f\v]}; {@link #parse(String, boolean)} reads
 * {@code \s} and {@code .} as ECMA-262 does, for JSON Schema); groups {@code ( )}, {@code (?: )},
 * {@code (?P<name> )}, {@code (?<name> )}; alternation; {@code * + ? {m} {m,} {m,n}}, lazy forms
 * accepted as greedy (a DFA has no preference); {@code ^} only at the start and {@code $} only at
 * the end of the regex or of one of its top-level alternatives ({@code ^$|^a$}: anchors that change
 * nothing, since Leap matches whole texts). An unescaped {@code [} inside a class is a literal, as
 * in Python ({@code [[a]} is {@code [\[a]}). Everything else is a {@link RegexSyntaxException}
 * naming the feature and its index: backreferences, lookaround, possessive quantifiers, inline
 * flags, word boundaries, {@code \p} classes, POSIX classes ({@code [[:alpha:]]}) and class set
 * operations. An unescaped {@code {} that does not start a valid quantifier is an error (Python
 * would read it as a literal; Java and Rust reject it).
 */
public final class RegexParser {
  /** Largest count allowed in {@code {m,n}}. */
  public static final int MAX_REPEAT = 1000;

  /**
   * Deepest nesting of groups: the parser and the passes over its tree recurse once per level, so a
   * deeper pattern would overflow the thread's stack instead of failing with a message.
   */
  public static final int MAX_NESTING = 500;

  private static final int[] DIGIT = {'0', '9'};
  private static final int[] WORD = CharRanges.of('0', '9', 'A', 'Z', '_', '_', 'a', 'z');
  private static final int[] SPACE = CharRanges.of('\t', '\r', ' ', ' ');
  private static final int[] DOT = CharRanges.negate(new int[] {'\n', '\n'});

  /**
   * ECMA-262's {@code \s}: WhiteSpace and LineTerminator (the same with and without the u flag).
   */
  private static final int[] ECMA_SPACE =
      CharRanges.of(
          '\t', '\r', ' ', ' ', 0xA0, 0xA0, 0x1680, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F,
          0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF);

  /** ECMA-262's {@code .} without the s flag: any code point but a LineTerminator. */
  private static final int[] ECMA_DOT =
      CharRanges.negate(CharRanges.of('\n', '\n', '\r', '\r', 0x2028, 0x2029));

  private final String pattern;
  private final int[] space;
  private final int[] dot;
  private int pos;
  private int depth;

  private RegexParser(String pattern, boolean ecma) {
    this.pattern = pattern;
    this.space = ecma ? ECMA_SPACE : SPACE;
    this.dot = ecma ? ECMA_DOT : DOT;
  }

  public static Re parse(String pattern) {
    return parse(pattern, false);
  }

  /**
   * Parses {@code pattern} in Leap's dialect; with {@code ecma}, {@code \s}, {@code \S} and {@code
   * .} have ECMA-262's meaning (as JSON Schema's {@code pattern} reads them: {@code \s} also
   * matches the Unicode spaces and line terminators, {@code .} matches neither {@code \r} nor
   * U+2028/2029); {@code \d \w} are ASCII in both.
   */
  public static Re parse(String pattern, boolean ecma) {
    RegexParser p = new RegexParser(pattern, ecma);
    int end = pattern.length();
    Re re = p.parseAlt(end, true);
    if (p.pos < end) {
      if (pattern.charAt(p.pos) == ')') {
        throw p.error("unbalanced ')'", p.pos);
      }
      throw p.error("unexpected character", p.pos);
    }
    return re;
  }

  private RegexSyntaxException error(String description, int index) {
    return new RegexSyntaxException(description, pattern, index);
  }

  private boolean more(int end) {
    return pos < end;
  }

  private char peek() {
    return pattern.charAt(pos);
  }

  /**
   * {@code top}: the regex's own alternatives, where {@code ^} and {@code $} may stand at the ends.
   */
  private Re parseAlt(int end, boolean top) {
    List<Re> options = new ArrayList<>();
    options.add(parseConcat(end, top));
    while (more(end) && peek() == '|') {
      pos++;
      options.add(parseConcat(end, top));
    }
    return options.size() == 1 ? options.get(0) : new Re.Alt(options);
  }

  /**
   * One alternative. In a top-level one ({@code top}), a {@code ^} first and a {@code $} last are
   * anchors that change nothing (Leap's regexes match whole texts), as Python's {@code fullmatch}
   * reads {@code ^$|^a$}.
   */
  private Re parseConcat(int end, boolean top) {
    List<Re> items = new ArrayList<>();
    if (top && more(end) && peek() == '^') {
      pos++;
    }
    while (more(end)) {
      char c = peek();
      if (c == '|' || c == ')') {
        break;
      }
      if (top && c == '$' && (pos + 1 == end || pattern.charAt(pos + 1) == '|')) {
        pos++;
        break;
      }
      Re atom = parseAtom(end);
      items.add(parseQuantifiers(atom, end));
    }
    if (items.isEmpty()) {
      return Re.EMPTY;
    }
    return items.size() == 1 ? items.get(0) : new Re.Concat(items);
  }

  private Re parseQuantifiers(Re atom, int end) {
    Re re = atom;
    while (more(end)) {
      int at = pos;
      char c = peek();
      int min;
      int max;
      if (c == '*') {
        min = 0;
        max = -1;
        pos++;
      } else if (c == '+') {
        min = 1;
        max = -1;
        pos++;
      } else if (c == '?') {
        min = 0;
        max = 1;
        pos++;
      } else if (c == '{') {
        int[] mm = parseCounted(end);
        min = mm[0];
        max = mm[1];
      } else {
        break;
      }
      if (re instanceof Re.Repeat && at > 0 && isQuantifierEnd(pattern.charAt(at - 1))) {
        throw error("multiple repeat (a quantifier after a quantifier)", at);
      }
      if (more(end) && peek() == '?') {
        pos++; // lazy: same language
      } else if (more(end) && peek() == '+') {
        throw error("possessive quantifiers are not supported", pos);
      }
      re = new Re.Repeat(re, min, max);
    }
    return re;
  }

  private static boolean isQuantifierEnd(char c) {
    return c == '*' || c == '+' || c == '?' || c == '}';
  }

  /** Parses {@code {m}}, {@code {m,}} or {@code {m,n}} at {@code pos}. */
  private int[] parseCounted(int end) {
    int start = pos;
    pos++;
    int min = parseNumber(end, start);
    int max = min;
    if (more(end) && peek() == ',') {
      pos++;
      if (more(end) && peek() == '}') {
        max = -1;
      } else {
        max = parseNumber(end, start);
      }
    }
    if (!more(end) || peek() != '}') {
      throw error(
          "'{' does not start a valid repetition {m}, {m,} or {m,n} (escape it as \\{)", start);
    }
    pos++;
    if (max != -1 && max < min) {
      throw error("repetition {" + min + "," + max + "} has max < min", start);
    }
    return new int[] {min, max};
  }

  private int parseNumber(int end, int start) {
    int from = pos;
    long v = 0;
    while (more(end) && peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      if (v > MAX_REPEAT) {
        throw error("repetition count above the limit of " + MAX_REPEAT, from);
      }
      pos++;
    }
    if (pos == from) {
      throw error(
          "'{' does not start a valid repetition {m}, {m,} or {m,n} (escape it as \\{)", start);
    }
    return (int) v;
  }

  private Re parseAtom(int end) {
    int at = pos;
    char c = peek();
    switch (c) {
      case '(':
        return parseGroup(end);
      case '[':
        return new Re.Chars(parseClass(end));
      case '.':
        pos++;
        return new Re.Chars(dot.clone());
      case '\\':
        return parseEscapeAtom(end);
      case '^':
        throw error(
            "'^' is supported only at the start of the regex or of one of its top-level alternatives",
            at);
      case '$':
        throw error(
            "'$' is supported only at the end of the regex or of one of its top-level alternatives",
            at);
      case '*':
      case '+':
      case '?':
        throw error("nothing to repeat", at);
      case '{':
        throw error("'{' does not start a valid repetition here (escape it as \\{)", at);
      default:
        int cp = pattern.codePointAt(pos);
        pos += Character.charCount(cp);
        return literal(cp, at);
    }
  }

  private Re literal(int cp, int at) {
    if (cp >= CharRanges.SURROGATE_LO && cp <= CharRanges.SURROGATE_HI) {
      throw error("a lone surrogate has no UTF-8 encoding", at);
    }
    return new Re.Chars(new int[] {cp, cp});
  }

  private Re parseGroup(int end) {
    int at = pos;
    if (++depth > MAX_NESTING) {
      throw error("groups nested deeper than the limit of " + MAX_NESTING, at);
    }
    try {
      return parseGroupBody(end, at);
    } finally {
      depth--;
    }
  }

  private Re parseGroupBody(int end, int at) {
    pos++;
    if (more(end) && peek() == '?') {
      pos++;
      if (!more(end)) {
        throw error("unterminated group", at);
      }
      char k = peek();
      if (k == ':') {
        pos++;
      } else if (k == 'P' && pos + 1 < end && pattern.charAt(pos + 1) == '<') {
        pos += 2;
        skipGroupName(end, at);
      } else if (k == 'P' && pos + 1 < end && pattern.charAt(pos + 1) == '=') {
        throw error("backreferences (?P=name) are not supported", at);
      } else if (k == '<'
          && pos + 1 < end
          && (pattern.charAt(pos + 1) == '=' || pattern.charAt(pos + 1) == '!')) {
        throw error("lookbehind is not supported", at);
      } else if (k == '<') {
        pos++;
        skipGroupName(end, at);
      } else if (k == '=' || k == '!') {
        throw error("lookahead is not supported", at);
      } else if (k == '>') {
        throw error("atomic groups are not supported", at);
      } else if (k == '#') {
        throw error("comments (?#...) are not supported", at);
      } else if (k == '(') {
        throw error("conditionals are not supported", at);
      } else {
        throw error("inline flags and other (?...) constructs are not supported", at);
      }
    }
    Re inner = parseAlt(end, false);
    if (!more(end) || peek() != ')') {
      throw error("missing ')' for the group opened here", at);
    }
    pos++;
    return inner;
  }

  private void skipGroupName(int end, int at) {
    int from = pos;
    while (more(end) && (Character.isLetterOrDigit(peek()) || peek() == '_')) {
      pos++;
    }
    if (pos == from || !more(end) || peek() != '>') {
      throw error("bad group name", at);
    }
    pos++;
  }

  private Re parseEscapeAtom(int end) {
    int at = pos;
    int[] set = parseEscape(end, false);
    return new Re.Chars(set);
  }

  /** Parses an escape at {@code pos} (the backslash) and returns its code point set. */
  private int[] parseEscape(int end, boolean inClass) {
    int at = pos;
    pos++;
    if (!more(end)) {
      throw error("trailing backslash", at);
    }
    int c = pattern.codePointAt(pos);
    pos += Character.charCount(c);
    switch (c) {
      case 'n':
        return single('\n');
      case 't':
        return single('\t');
      case 'r':
        return single('\r');
      case 'f':
        return single('\f');
      case 'v':
        return single(0x0B);
      case 'a':
        return single(0x07);
      case 'e':
        return single(0x1B);
      case 'd':
        return DIGIT.clone();
      case 'D':
        return CharRanges.negate(DIGIT);
      case 'w':
        return WORD.clone();
      case 'W':
        return CharRanges.negate(WORD);
      case 's':
        return space.clone();
      case 'S':
        return CharRanges.negate(space);
      case 'x':
        return single(parseHexEscape(end, at));
      case 'u':
        return single(hexDigits(end, 4, at, "\\u needs 4 hex digits"));
      case 'U':
        return single(hexDigits(end, 8, at, "\\U needs 8 hex digits"));
      case 'b':
        if (inClass) {
          throw error("\\b inside a class (backspace) is not supported; write \\x08", at);
        }
        throw error("word boundaries (\\b) are not supported", at);
      case 'B':
        throw error("word boundaries (\\B) are not supported", at);
      case 'A':
      case 'Z':
      case 'z':
      case 'G':
        throw error("anchor \\" + (char) c + " is not supported (only ^ and $ at the ends)", at);
      case 'p':
      case 'P':
        throw error("Unicode property classes (\\" + (char) c + ") are not supported", at);
      case 'k':
        throw error("backreferences (\\k) are not supported", at);
      case 'Q':
      case 'E':
        throw error("quoting (\\Q...\\E) is not supported", at);
      case 'N':
        throw error("named characters (\\N) are not supported", at);
      default:
        if (c >= '0' && c <= '9') {
          throw error(
              "backreferences and octal escapes (\\" + (char) c + ") are not supported", at);
        }
        if (Character.isLetterOrDigit(c)) {
          throw error("unknown escape \\" + new String(Character.toChars(c)), at);
        }
        return single(c);
    }
  }

  private int[] single(int cp) {
    if (cp >= CharRanges.SURROGATE_LO && cp <= CharRanges.SURROGATE_HI) {
      throw error("a surrogate code point has no UTF-8 encoding", pos - 1);
    }
    return new int[] {cp, cp};
  }

  private int parseHexEscape(int end, int at) {
    if (more(end) && peek() == '{') {
      pos++;
      int from = pos;
      long v = 0;
      while (more(end) && Character.digit(peek(), 16) >= 0) {
        v = v * 16 + Character.digit(peek(), 16);
        if (v > CharRanges.MAX) {
          throw error("code point above U+10FFFF", at);
        }
        pos++;
      }
      if (pos == from || !more(end) || peek() != '}') {
        throw error("bad \\x{...} escape", at);
      }
      pos++;
      return (int) v;
    }
    return hexDigits(end, 2, at, "\\x needs 2 hex digits");
  }

  private int hexDigits(int end, int n, int at, String message) {
    if (pos + n > end) {
      throw error(message, at);
    }
    int v = 0;
    for (int i = 0; i < n; i++) {
      int d = Character.digit(pattern.charAt(pos + i), 16);
      if (d < 0) {
        throw error(message, at);
      }
      v = v * 16 + d;
    }
    if (v > CharRanges.MAX || v < 0) {
      throw error("code point above U+10FFFF", at);
    }
    pos += n;
    return v;
  }

  private int[] parseClass(int end) {
    int at = pos;
    pos++;
    boolean negate = false;
    if (more(end) && peek() == '^') {
      negate = true;
      pos++;
    }
    IntArrayList ranges = new IntArrayList();
    boolean first = true;
    while (true) {
      if (!more(end)) {
        throw error("unterminated character class", at);
      }
      char c = peek();
      if (c == ']' && !first) {
        pos++;
        break;
      }
      int itemAt = pos;
      if (c == '['
          && pos + 1 < end
          && (pattern.charAt(pos + 1) == ':'
              || pattern.charAt(pos + 1) == '='
              || pattern.charAt(pos + 1) == '.')) {
        throw error("POSIX classes ([:name:]) are not supported", pos);
      }
      if ((c == '&' || c == '~' || c == '|' || c == '-')
          && pos + 1 < end
          && pattern.charAt(pos + 1) == c
          && !(c == '-' && first)) {
        throw error("class set operations ('" + c + c + "') are not supported", pos);
      }
      first = false;
      int lo;
      if (c == '\\') {
        int[] set = parseEscape(end, true);
        if (set.length != 2 || set[0] != set[1]) {
          ranges.addElements(ranges.size(), set);
          if (more(end) && peek() == '-' && pos + 1 < end && pattern.charAt(pos + 1) != ']') {
            throw error("a class like \\d cannot start a range", itemAt);
          }
          continue;
        }
        lo = set[0];
      } else {
        lo = pattern.codePointAt(pos);
        pos += Character.charCount(lo);
      }
      int hi = lo;
      if (more(end) && peek() == '-' && pos + 1 < end && pattern.charAt(pos + 1) != ']') {
        pos++;
        char d = peek();
        if (d == '\\') {
          int[] set = parseEscape(end, true);
          if (set.length != 2 || set[0] != set[1]) {
            throw error("a class like \\d cannot end a range", itemAt);
          }
          hi = set[0];
        } else {
          hi = pattern.codePointAt(pos);
          pos += Character.charCount(hi);
        }
        if (hi < lo) {
          throw error("bad character range (end before start)", itemAt);
        }
      }
      ranges.add(lo);
      ranges.add(hi);
    }
    int[] set = CharRanges.normalize(ranges);
    return negate ? CharRanges.negate(set) : set;
  }
}
