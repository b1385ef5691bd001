package dev.leap.server.chat;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's string methods on strings in templates ({@code content.startswith('<tool_response>')},
 * {@code .split('</think>')[-1].lstrip('\n')}), which Hugging Face's templates call and Jinjava
 * lacks (it would call Java's methods: {@code split} as a regex, no {@code startswith}). Resolves
 * only method calls on a {@code String} base whose name is one of {@link #METHODS}; everything else
 * falls through to Jinjava's own resolvers.
 */
final class PythonStringMethods extends ELResolver {
  static final List<String> METHODS =
      List.of(
          "startswith",
          "endswith",
          "strip",
          "lstrip",
          "rstrip",
          "split",
          "upper",
          "lower",
          "title",
          "capitalize",
          "replace",
          "find",
          "count");

  @Override
  public Object invoke(
      ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
    if (!(base instanceof String s) || method == null || !METHODS.contains(method.toString())) {
      return null;
    }
    Object[] p = params == null ? new Object[0] : params;
    Object result =
        switch (method.toString()) {
          case "startswith" -> s.startsWith(arg(p, 0));
          case "endswith" -> s.endsWith(arg(p, 0));
          case "strip" -> rstrip(lstrip(s, chars(p)), chars(p));
          case "lstrip" -> lstrip(s, chars(p));
          case "rstrip" -> rstrip(s, chars(p));
          case "split" -> split(s, p.length == 0 || p[0] == null ? null : p[0].toString());
          case "upper" -> s.toUpperCase(Locale.ROOT);
          case "lower" -> s.toLowerCase(Locale.ROOT);
          case "title" -> title(s);
          case "capitalize" ->
              s.isEmpty()
                  ? s
                  : s.substring(0, 1).toUpperCase(Locale.ROOT)
                      + s.substring(1).toLowerCase(Locale.ROOT);
          case "replace" -> s.replace(arg(p, 0), arg(p, 1));
          case "find" -> s.indexOf(arg(p, 0));
          case "count" -> count(s, arg(p, 0));
          default -> throw new IllegalStateException(method.toString());
        };
    context.setPropertyResolved(true);
    return result;
  }

  private static String arg(Object[] p, int i) {
    if (i >= p.length || p[i] == null) {
      throw new IllegalArgumentException("string method needs argument " + (i + 1));
    }
    return p[i].toString();
  }

  /** The characters to strip: Python's default is whitespace ({@code null} here). */
  private static String chars(Object[] p) {
    return p.length == 0 || p[0] == null ? null : p[0].toString();
  }

  private static boolean strips(char c, String chars) {
    return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
  }

  static String lstrip(String s, String chars) {
    int i = 0;
    while (i < s.length() && strips(s.charAt(i), chars)) {
      i++;
    }
    return s.substring(i);
  }

  static String rstrip(String s, String chars) {
    int i = s.length();
    while (i > 0 && strips(s.charAt(i - 1), chars)) {
      i--;
    }
    return s.substring(0, i);
  }

  /**
   * Python's {@code split}: on a literal separator, or on runs of whitespace (dropping empty ends)
   * without one.
   */
  static List<String> split(String s, String sep) {
    List<String> out = new ArrayList<>();
    if (sep == null) {
      for (String part : s.strip().split("\\s+")) {
        if (!part.isEmpty()) {
          out.add(part);
        }
      }
      return out;
    }
    if (sep.isEmpty()) {
      throw new IllegalArgumentException("empty separator");
    }
    int from = 0;
    int at;
    while ((at = s.indexOf(sep, from)) >= 0) {
      out.add(s.substring(from, at));
      from = at + sep.length();
    }
    out.add(s.substring(from));
    return out;
  }

  private static String title(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    boolean start = true;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      sb.append(start ? Character.toUpperCase(c) : Character.toLowerCase(c));
      start = !Character.isLetter(c);
    }
    return sb.toString();
  }

  private static int count(String s, String sub) {
    if (sub.isEmpty()) {
      return s.length() + 1;
    }
    int n = 0;
    for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
      n++;
    }
    return n;
  }

  @Override
  public Object getValue(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public Class<?> getType(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public void setValue(ELContext context, Object base, Object property, Object value) {}

  @Override
  public boolean isReadOnly(ELContext context, Object base, Object property) {
    return true;
  }

  @Override
  public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
    return null;
  }

  @Override
  public Class<?> getCommonPropertyType(ELContext context, Object base) {
    return null;
  }
}
