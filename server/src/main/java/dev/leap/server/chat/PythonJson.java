package dev.leap.server.chat;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON as Python's {@code json.dumps(value, ensure_ascii=False, indent=indent)} writes it, which is
 * what Hugging Face's chat templates get from their {@code tojson} filter: {@code ", "} and {@code
 * ": "} between items without indent ({@code ","} and {@code ": "} with it), non-ASCII text
 * unescaped, control characters as {@code \\uXXXX} except the short escapes, members in insertion
 * order. Values are what a template sees: maps, lists, strings, numbers, booleans and null.
 */
final class PythonJson {
  private PythonJson() {}

  /** The JSON text of {@code value}; {@code indent < 0} writes it on one line. */
  static String dumps(Object value, int indent) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, indent, 0);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v, int indent, int depth) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Boolean b) {
      sb.append(b ? "true" : "false");
    } else if (v instanceof Double || v instanceof Float) {
      sb.append(pythonFloat(((Number) v).doubleValue()));
    } else if (v instanceof Number n) {
      sb.append(n.toString());
    } else if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        sb.append("{}");
        return;
      }
      sb.append('{');
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      boolean first = true;
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        separate(sb, first, indent, depth + 1);
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue(), indent, depth + 1);
      }
      close(sb, indent, depth);
      sb.append('}');
    } else if (v instanceof List<?> l) {
      if (l.isEmpty()) {
        sb.append("[]");
        return;
      }
      sb.append('[');
      boolean first = true;
      for (Object item : l) {
        separate(sb, first, indent, depth + 1);
        first = false;
        write(sb, item, indent, depth + 1);
      }
      close(sb, indent, depth);
      sb.append(']');
    } else if (v instanceof Object[] a) {
      write(sb, List.of(a), indent, depth);
    } else {
      string(sb, v.toString());
    }
  }

  private static void separate(StringBuilder sb, boolean first, int indent, int depth) {
    if (!first) {
      sb.append(indent < 0 ? ", " : ",");
    }
    if (indent >= 0) {
      sb.append('\n').append(" ".repeat(indent * depth));
    }
  }

  private static void close(StringBuilder sb, int indent, int depth) {
    if (indent >= 0) {
      sb.append('\n').append(" ".repeat(indent * depth));
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /**
   * Python's {@code repr} of a float: shortest round-trip digits, {@code 1.0}, {@code 1e+20},
   * {@code NaN}, {@code Infinity}.
   */
  static String pythonFloat(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "Infinity" : "-Infinity";
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e16) {
      return String.format("%.1f", d);
    }
    String s = Double.toString(d);
    int e = s.indexOf('E');
    if (e < 0) {
      return s;
    }
    String mantissa = s.substring(0, e);
    if (mantissa.endsWith(".0")) {
      mantissa = mantissa.substring(0, mantissa.length() - 2);
    }
    int exp = Integer.parseInt(s.substring(e + 1));
    if (exp >= -4 && exp < 16) {
      return new BigDecimal(s).stripTrailingZeros().toPlainString();
    }
    return mantissa + "e" + (exp < 0 ? "-" : "+") + String.format("%02d", Math.abs(exp));
  }
}
