package dev.leap.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leap.bench.Json;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Compares the fields of a generated JSON object with the truth: a nested object contributes its
 * members under their own names (the character sheet's {@code wand} gives {@code wood}, {@code
 * core}, {@code length}), an array of strings its elements as {@code landmark 1..n}. Values are
 * equal when their text is equal or, for numbers, their values are.
 */
final class FieldScore {
  private FieldScore() {}

  /** The generated fields, or an empty map when the text is not a JSON object. */
  static Map<String, String> fields(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    try {
      JsonNode root = Json.MAPPER.readTree(text);
      if (root != null && root.isObject()) {
        flatten(root, out);
      }
    } catch (Exception e) {
      // An incomplete output has no fields.
    }
    return out;
  }

  private static void flatten(JsonNode node, Map<String, String> out) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(v, out);
      } else if (v.isArray()) {
        for (int i = 0; i < v.size(); i++) {
          out.put("landmark " + (i + 1), v.get(i).asText());
        }
      } else {
        out.put(e.getKey(), v.asText());
      }
    }
  }

  /** How many truth fields the generated text has equal. */
  static int correct(String text, Map<String, String> truth) {
    return correctFields(text, truth).size();
  }

  /** The names of the truth fields the generated text has equal, in the truth's order. */
  static Set<String> correctFields(String text, Map<String, String> truth) {
    Map<String, String> got = fields(text);
    Set<String> right = new LinkedHashSet<>();
    for (Map.Entry<String, String> e : truth.entrySet()) {
      if (equal(got.get(e.getKey()), e.getValue())) {
        right.add(e.getKey());
      }
    }
    return right;
  }

  static boolean equal(String got, String truth) {
    if (got == null) {
      return false;
    }
    if (got.equals(truth)) {
      return true;
    }
    try {
      return Double.parseDouble(got) == Double.parseDouble(truth);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * The standard error of a share of fields right when the requests come in groups whose outputs
   * are not independent (the questions about one document): the share {@code p = sum(right) /
   * sum(all)} is a ratio of sums over groups, and its standard error the ratio estimator's, {@code
   * sqrt(n / (n - 1) * sum((right[g] - p * all[g])^2)) / sum(all)} over the {@code n} groups (with
   * groups of equal size, the standard deviation of their shares over {@code sqrt(n)}). NaN for
   * fewer than two groups.
   */
  static double groupedStandardError(int[] right, int[] all) {
    int n = right.length;
    long fields = 0;
    long rightAll = 0;
    for (int g = 0; g < n; g++) {
      fields += all[g];
      rightAll += right[g];
    }
    if (n < 2 || fields == 0) {
      return Double.NaN;
    }
    double p = (double) rightAll / fields;
    double sq = 0;
    for (int g = 0; g < n; g++) {
      double d = right[g] - p * all[g];
      sq += d * d;
    }
    return Math.sqrt((double) n / (n - 1) * sq) / fields;
  }
}
