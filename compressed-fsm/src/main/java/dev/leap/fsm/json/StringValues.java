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
 * #jsonEncode}, which writes every character JSON must escape in its one canonical escape; only
 * "any string" ({@link #anyChar}) allows every spelling JSON has.
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
    return alt(List.of(new Re.Chars(UNESCAPED), seq(lit("\\"), new Re.Chars(CharRanges.of('"', '"', '\\', '\\', '/', '/',
        'b', 'b', 'f', 'f', 'n', 'n', 'r', 'r', 't', 't'))), seq(lit("\\u"), rep(hexDigit(), 4, 4))));
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
      converter.notHonoured("minLength", ptr, "minLength above maxStringLength (" + maxStringLength
          + ") is not supported");
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
    Re content = parts.isEmpty() ? rep(anyChar(), 0, -1) : converter.intersection(parts, "pattern", ptr);
    return seq(lit("\""), content, lit("\""));
  }

  /** The format's language (a subset of its strings, see {@link Formats}; JSON-encoded), or null. */
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
      converter.notHonoured("pattern", ptr, "outside Leap's regex dialect: " + e.getMessage().lines().findFirst().orElse(""));
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
          options.add(lit(escape(cp)));
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

  /** The canonical JSON escape of a character that must be escaped. */
  private static String escape(int cp) {
    switch (cp) {
      case '"':
        return "\\\"";
      case '\\':
        return "\\\\";
      case '\n':
        return "\\n";
      case '\t':
        return "\\t";
      case '\r':
        return "\\r";
      case '\b':
        return "\\b";
      case '\f':
        return "\\f";
      default:
        return String.format("\\u%04X", cp);
    }
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
