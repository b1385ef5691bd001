package dev.leap.server.chat;

/**
 * Rewrites of a template's code ({@code {% %}} and {@code {{ }}}) for what Jinjava reads otherwise
 * than Jinja, each meaning the same in Jinja's own reading:
 *
 * <ul>
 *   <li>{@code f(name=expr)} becomes {@code f(name=(expr))}: Jinjava binds a keyword argument
 *       tighter than arithmetic, so Qwen3's {@code namespace(last_query_index=messages|length - 1)}
 *       would subtract 1 from the named parameter itself;
 *   <li>{@code x[::-1]} becomes {@code x|reverse}: Jinjava has no slice step.
 * </ul>
 *
 * String literals and text outside tags are left as they are.
 */
final class TemplateRewrites {
  private TemplateRewrites() {}

  static String apply(String template) {
    StringBuilder out = new StringBuilder(template.length() + 16);
    int i = 0;
    int n = template.length();
    while (i < n) {
      int open = nextTag(template, i);
      if (open < 0) {
        out.append(template, i, n);
        break;
      }
      out.append(template, i, open + 2);
      String close = template.charAt(open + 1) == '%' ? "%}" : "}}";
      int end = endOfTag(template, open + 2, close);
      out.append(rewriteCode(template.substring(open + 2, end)));
      i = end;
    }
    return out.toString();
  }

  private static int nextTag(String t, int from) {
    int a = t.indexOf("{%", from);
    int b = t.indexOf("{{", from);
    if (a < 0) {
      return b;
    }
    return b < 0 ? a : Math.min(a, b);
  }

  /** The index of the closing delimiter, skipping string literals. */
  private static int endOfTag(String t, int from, String close) {
    char quote = 0;
    for (int i = from; i < t.length(); i++) {
      char c = t.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (t.startsWith(close, i)) {
        return i;
      }
    }
    return t.length();
  }

  private static String rewriteCode(String code) {
    StringBuilder out = new StringBuilder(code.length() + 8);
    // For each open parenthesis: whether a keyword argument's value is open at this depth.
    boolean[] wrapped = new boolean[code.length() + 2];
    int depth = 0;
    char quote = 0;
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      if (quote != 0) {
        out.append(c);
        if (c == '\\' && i + 1 < code.length()) {
          out.append(code.charAt(++i));
        } else if (c == quote) {
          quote = 0;
        }
        continue;
      }
      switch (c) {
        case '\'', '"' -> {
          quote = c;
          out.append(c);
        }
        case '[' -> {
          if (code.startsWith("[::-1]", i)) {
            out.append("|reverse");
            i += "[::-1]".length() - 1;
          } else {
            depth++;
            wrapped[depth] = false;
            out.append(c);
          }
        }
        case '(', '{' -> {
          depth++;
          wrapped[depth] = false;
          out.append(c);
        }
        case ')', ']', '}' -> {
          if (depth > 0 && wrapped[depth]) {
            out.append(')');
            wrapped[depth] = false;
          }
          depth = Math.max(0, depth - 1);
          out.append(c);
        }
        case ',' -> {
          if (depth > 0 && wrapped[depth]) {
            out.append(')');
            wrapped[depth] = false;
          }
          out.append(c);
        }
        case '=' -> {
          boolean comparison =
              (i + 1 < code.length() && code.charAt(i + 1) == '=')
                  || (i > 0 && "=!<>".indexOf(code.charAt(i - 1)) >= 0);
          out.append(c);
          if (!comparison && depth > 0 && !wrapped[depth] && precededByName(code, i)) {
            out.append('(');
            wrapped[depth] = true;
          }
        }
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** Whether {@code code[..at)} ends with an identifier (optional spaces before {@code =}). */
  private static boolean precededByName(String code, int at) {
    int i = at - 1;
    while (i >= 0 && code.charAt(i) == ' ') {
      i--;
    }
    int end = i;
    while (i >= 0 && (Character.isLetterOrDigit(code.charAt(i)) || code.charAt(i) == '_')) {
      i--;
    }
    return end > i && !Character.isDigit(code.charAt(i + 1));
  }
}
