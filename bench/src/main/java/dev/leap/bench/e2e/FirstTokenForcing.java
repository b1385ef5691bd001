package dev.leap.bench.e2e;

import dev.leap.retokenize.Tokenizer;
import dev.leap.train.data.City;
import java.util.ArrayList;
import java.util.List;

/**
 * A diagnostic of {@code leap bench longdoc --force-first-token}: SGLang's {@code city_regex} with
 * each value's first token fixed to the truth's, the rest of the value left to the model as before.
 * Measured against the plain run, it says how much of the error is the choice of a value's first
 * token (which place, which figure) and how much the copying of the rest. Never a result of its
 * own.
 *
 * <p>The first token is the one the model would write: the truth's answer ({@link City#answer}) is
 * encoded on its own, as the runtime appends output, and the token that holds a value's first
 * character gives the value's forced start (the part of the token inside the value).
 */
final class FirstTokenForcing {
  private FirstTokenForcing() {}

  /** The string values' pattern in {@code city_regex} (name, country, the three landmarks). */
  static final String STRING_SLOT = "[\\w\\d\\s]{1,16}";

  /** The latitude's pattern in {@code city_regex}. */
  static final String LATITUDE_SLOT = "[-+]?[0-9]*\\.?[0-9]{0,2}";

  /** The population's pattern in {@code city_regex}. */
  static final String POPULATION_SLOT = "[-+]?[0-9]{1,9}";

  /**
   * {@code cityRegex} with every value's pattern replaced by the forced start of {@code city}'s
   * value and the rest of the original pattern's language after it (at the same total length
   * bound).
   *
   * @throws IllegalArgumentException {@code cityRegex} lacks one of the value patterns, or a forced
   *     start holds a character its pattern does not allow
   */
  static String regex(String cityRegex, City city, Tokenizer tokenizer) {
    List<String> starts = firstTokens(city, tokenizer);
    StringBuilder out = new StringBuilder();
    int at = 0;
    for (int f = 0; f < starts.size(); f++) {
      String slot = f == 2 ? LATITUDE_SLOT : f == 3 ? POPULATION_SLOT : STRING_SLOT;
      int i = cityRegex.indexOf(slot, at);
      if (i < 0) {
        throw new IllegalArgumentException(
            "city_regex has no pattern " + slot + " for value " + (f + 1) + " after index " + at);
      }
      String start = starts.get(f);
      String rest;
      if (f == 2) {
        if (!start.matches("[0-9.]+")) {
          throw new IllegalArgumentException("latitude start '" + start + "' is not digits");
        }
        int dot = start.indexOf('.');
        rest =
            dot < 0
                ? "[0-9]*\\.?[0-9]{0,2}"
                : "[0-9]{0," + Math.max(0, 2 - (start.length() - dot - 1)) + "}";
      } else if (f == 3) {
        if (!start.matches("[0-9]+")) {
          throw new IllegalArgumentException("population start '" + start + "' is not digits");
        }
        rest = "[0-9]{0," + (9 - start.length()) + "}";
      } else {
        if (!start.matches("[\\w\\d\\s]+")) {
          throw new IllegalArgumentException(
              "value start '" + start + "' has a character outside [\\w\\d\\s]");
        }
        rest = "[\\w\\d\\s]{0," + Math.max(0, 16 - start.length()) + "}";
      }
      out.append(cityRegex, at, i).append(literal(start)).append(rest);
      at = i + slot.length();
    }
    return out.append(cityRegex.substring(at)).toString();
  }

  /**
   * Per field of {@link City#fields}, in order, the part of the answer's token that holds the
   * value's first character which lies inside the value.
   */
  static List<String> firstTokens(City city, Tokenizer tokenizer) {
    String answer = city.answer();
    int[] ids = tokenizer.encode(answer);
    int[] end = new int[ids.length];
    int pos = 0;
    for (int j = 0; j < ids.length; j++) {
      pos += tokenizer.tokenBytes(ids[j]).length; // ASCII: bytes are characters
      end[j] = pos;
    }
    if (pos != answer.length()) {
      throw new IllegalStateException("the answer's tokens do not spell it: " + answer);
    }
    List<String> starts = new ArrayList<>();
    for (int[] span : city.valueSpans(answer)) {
      int j = 0;
      while (end[j] <= span[0]) {
        j++;
      }
      starts.add(answer.substring(span[0], Math.min(end[j], span[1])));
    }
    return starts;
  }

  private static String literal(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (Character.isLetterOrDigit(c)) {
        b.append(c);
      } else if (c == ' ') {
        b.append("\\x20");
      } else {
        b.append('\\').append(c);
      }
    }
    return b.toString();
  }
}
