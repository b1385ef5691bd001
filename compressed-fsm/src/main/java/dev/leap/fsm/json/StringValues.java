package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.internal.CharRanges;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.List;

/**
 * String values: {@code minLength}/{@code maxLength} (in code points, an escape counting as one
 * character; bounds above {@link JsonSchemaOptions#maxStringLength} generate at most that many),
 * {@code format} ({@link Formats}) and {@code pattern} ({@link EcmaPattern}, searched), all three
 * intersected into one language of string contents.
 *
 * <p>Escaping: a language of decoded strings becomes one of JSON string contents through {@link
 * #jsonEncode}, which writes every character JSON must escape in its canonical escape (the
 * two-character one where JSON has it, else {@code \\u00XY} with the hex letter in either case);
 * only "any string" ({@link #anyChar}) allows every spelling JSON has. Literal JSON text (listed
 * keys, {@code enum}, {@code const}) goes through {@link #jsonText}, which accepts the same two
 * cases.
 */
final class StringValues {
  /** The characters a JSON string holds unescaped: all but controls, {@code "} and {@code \}. */
  static final int[] UNESCAPED = CharRanges.of(0x20, 0x21, 0x23, 0x5B, 0x5D, CharRanges.MAX);

  private final Converter converter;

  StringValues(Converter converter) {
    this.converter = converter;
  }

  /** One JSON string character in any of JSON's spellings. */
  static Re anyChar() {
    return alt(
        List.of(
            new Re.Chars(UNESCAPED),
            seq(
                lit("\\"),
                new Re.Chars(
                    CharRanges.of(
                        '"', '"', '\\', '\\', '/', '/', 'b', 'b', 'f', 'f', 'n', 'n', 'r', 'r', 't',
                        't'))),
            seq(lit("\\u"), rep(hexDigit(), 4, 4))));
  }

  /** Any JSON string, quotes included. */
  static Re anyString() {
    return seq(lit("\""), rep(anyChar(), 0, -1), lit("\""));
  }

  private static Re hexDigit() {
    return new Re.Chars(CharRanges.of('0', '9', 'A', 'F', 'a', 'f'));
  }

  /** The strings string schema {@code o} allows, quotes included. */
  Re value(ObjectNode o, String ptr) {
    int maxStringLength = converter.options.maxStringLength();
    int min = o.has("minLength") ? Converter.nonNegative(o, "minLength", ptr) : 0;
    int max = o.has("maxLength") ? Converter.nonNegative(o, "maxLength", ptr) : -1;
    if (min > maxStringLength) {
      converter.notHonoured(
          "minLength",
          ptr,
          "minLength above maxStringLength (" + maxStringLength + ") is not supported");
      min = 0;
    }
    if (max > maxStringLength) {
      // Generated strings stay within the cap, so they satisfy the larger maxLength too.
      max = maxStringLength;
    }
    if (max >= 0 && max < min) {
      return NOTHING;
    }
    // The content is in every applicable language at once: length, format, pattern.
    List<Re> parts = new ArrayList<>();
    if (min > 0 || max >= 0) {
      parts.add(rep(anyChar(), min, max));
    }
    if (o.has("format")) {
      Re f = format(o.get("format").asText());
      if (f != null) {
        parts.add(f);
      }
    }
    if (o.has("pattern")) {
      parts.add(pattern(o.get("pattern").asText(), ptr));
    }
    Re content =
        parts.isEmpty() ? rep(anyChar(), 0, -1) : converter.intersection(parts, "pattern", ptr);
    return seq(lit("\""), content, lit("\""));
  }

  /**
   * The format's language (a subset of its strings, see {@link Formats}; JSON-encoded), or null.
   */
  private static Re format(String name) {
    String regex = Formats.regex(name);
    // Not a format of the specification: an annotation, as validators treat it.
    return regex == null ? null : jsonEncode(RegexParser.parse(regex));
  }

  /**
   * The strings that contain a match of {@code pattern} (searched, as JSON Schema reads it; ECMA
   * classes), JSON-encoded; any string where it is not honoured (lenient).
   */
  Re pattern(String pattern, String ptr) {
    try {
      return jsonEncode(EcmaPattern.searchLanguage(pattern));
    } catch (ConstraintException e) {
      converter.notHonoured(
          "pattern",
          ptr,
          "outside Leap's regex dialect: " + e.getMessage().lines().findFirst().orElse(""));
      return rep(anyChar(), 0, -1);
    }
  }

  /** The same language of decoded strings, with characters JSON must escape written canonically. */
  static Re jsonEncode(Re re) {
    if (re instanceof Re.Chars c) {
      List<Re> options = new ArrayList<>();
      int[] unescaped = intersect(c.ranges(), UNESCAPED);
      if (unescaped.length > 0) {
        options.add(new Re.Chars(unescaped));
      }
      for (int cp = 0; cp <= 0x5C; cp++) {
        if ((cp < 0x20 || cp == '"' || cp == '\\') && CharRanges.contains(c.ranges(), cp)) {
          options.add(escape(cp));
        }
      }
      return options.isEmpty() ? NOTHING : alt(options);
    }
    if (re instanceof Re.Concat c) {
      List<Re> items = new ArrayList<>();
      c.items().forEach(x -> items.add(jsonEncode(x)));
      return new Re.Concat(items);
    }
    if (re instanceof Re.Alt a) {
      List<Re> items = new ArrayList<>();
      a.options().forEach(x -> items.add(jsonEncode(x)));
      return new Re.Alt(items);
    }
    if (re instanceof Re.Repeat r) {
      return new Re.Repeat(jsonEncode(r.item()), r.min(), r.max());
    }
    return re;
  }

  /**
   * The JSON escape of a character that must be escaped: its two-character escape where JSON has
   * one, else {@code \\u00XY} with a hex letter in either case ({@code \\u001f} and {@code
   * \\u001F}: both are the same string, and writers differ, RFC 8785 and Python writing lowercase,
   * Jackson uppercase).
   */
  private static Re escape(int cp) {
    switch (cp) {
      case '"':
        return lit("\\\"");
      case '\\':
        return lit("\\\\");
      case '\n':
        return lit("\\n");
      case '\t':
        return lit("\\t");
      case '\r':
        return lit("\\r");
      case '\b':
        return lit("\\b");
      case '\f':
        return lit("\\f");
      default:
        return seq(
            lit(String.format("\\u%03x", cp >> 4)),
            hexDigitEitherCase(Character.forDigit(cp & 0xF, 16)));
    }
  }

  /** Hex digit {@code d} (lowercase or a decimal digit) in either case. */
  private static Re hexDigitEitherCase(char d) {
    char upper = Character.toUpperCase(d);
    return new Re.Chars(d == upper ? CharRanges.of(d, d) : CharRanges.of(upper, upper, d, d));
  }

  /**
   * JSON text as a JSON writer wrote it (a value, or a quoted key with what follows), as a tree
   * that accepts every {@code \\uXXXX} escape in it with its hex letters in either case, so that a
   * listed key, an {@code enum} or a {@code const} matches however a writer spelled its escapes.
   * Everything else is matched literally.
   */
  static Re jsonText(String text) {
    int at = text.indexOf("\\u");
    if (at < 0) {
      return lit(text);
    }
    List<Re> items = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\\' && i + 1 < text.length()) {
        if (text.charAt(i + 1) == 'u' && i + 6 <= text.length()) {
          items.add(lit(text.substring(from, i + 2)));
          for (int k = i + 2; k < i + 6; k++) {
            items.add(hexDigitEitherCase(Character.toLowerCase(text.charAt(k))));
          }
          from = i + 6;
          i += 5;
        } else {
          i++; // any other escape, such as an escaped backslash before a 'u'
        }
      }
    }
    items.add(lit(text.substring(from)));
    return seq(items.toArray(new Re[0]));
  }

  /** The intersection of two range sets ({@link Re.Chars} encoding). */
  private static int[] intersect(int[] a, int[] b) {
    IntArrayList out = new IntArrayList();
    for (int i = 0; i < a.length; i += 2) {
      for (int j = 0; j < b.length; j += 2) {
        int lo = Math.max(a[i], b[j]);
        int hi = Math.min(a[i + 1], b[j + 1]);
        if (lo <= hi) {
          out.add(lo);
          out.add(hi);
        }
      }
    }
    return CharRanges.normalize(out);
  }
}
