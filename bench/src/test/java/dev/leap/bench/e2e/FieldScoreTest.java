package dev.leap.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The fields a city answer has right, against counting them one by one. */
class FieldScoreTest {
  private static final String[] NAMES = {"Velmora", "Dunhaven", "Kestria", "Orla"};

  @Test
  void correctFieldsAreTheFieldsEqualToTheTruth() {
    SplittableRandom r = new SplittableRandom(25);
    for (int round = 0; round < 300; round++) {
      Map<String, String> truth = new LinkedHashMap<>();
      truth.put("name", NAMES[r.nextInt(NAMES.length)]);
      truth.put("latitude", "" + (1 + r.nextInt(3)) + ".5");
      truth.put("landmark 1", NAMES[r.nextInt(NAMES.length)] + " Gate");
      String name = r.nextBoolean() ? truth.get("name") : NAMES[r.nextInt(NAMES.length)];
      String lat = r.nextBoolean() ? truth.get("latitude") + "0" : "9.25";
      String mark = r.nextBoolean() ? truth.get("landmark 1") : "Old Gate";
      String text =
          r.nextInt(10) == 0
              ? "{\"name\": \"" + name // cut off: not JSON, no field
              : "{\"name\": \""
                  + name
                  + "\", \"latitude\": "
                  + lat
                  + ", \"top 3 landmarks\": [\""
                  + mark
                  + "\"]}";
      Set<String> right = FieldScore.correctFields(text, truth);
      boolean json = text.endsWith("}");
      assertEquals(json && name.equals(truth.get("name")), right.contains("name"), text);
      assertEquals(
          json && Double.parseDouble(lat) == Double.parseDouble(truth.get("latitude")),
          right.contains("latitude"),
          text);
      assertEquals(
          json && mark.equals(truth.get("landmark 1")), right.contains("landmark 1"), text);
      assertEquals(right.size(), FieldScore.correct(text, truth));
    }
  }

  /**
   * The grouped standard error: by hand on three equal groups; with equal groups, the standard
   * deviation of the groups' shares over the root of their count; with unequal groups, the ratio
   * estimator's linearized variance written the textbook way; zero when every group has the same
   * share; NaN for one group.
   */
  @Test
  void groupedStandardErrorIsThatOfTheGroupsShares() {
    assertEquals(
        0.5 / Math.sqrt(3),
        FieldScore.groupedStandardError(new int[] {1, 2, 0}, new int[] {2, 2, 2}),
        1e-12);
    assertEquals(
        0, FieldScore.groupedStandardError(new int[] {1, 2, 3}, new int[] {2, 4, 6}), 1e-12);
    assertEquals(
        Double.NaN, FieldScore.groupedStandardError(new int[] {1}, new int[] {2}), "one group");
    SplittableRandom r = new SplittableRandom(41);
    for (int round = 0; round < 200; round++) {
      int n = 2 + r.nextInt(40);
      boolean equal = r.nextBoolean();
      int size = 1 + r.nextInt(60);
      int[] all = new int[n];
      int[] right = new int[n];
      for (int g = 0; g < n; g++) {
        all[g] = equal ? size : 1 + r.nextInt(60);
        right[g] = r.nextInt(all[g] + 1);
      }
      double got = FieldScore.groupedStandardError(right, all);
      double expected;
      if (equal) {
        double mean = 0;
        for (int g = 0; g < n; g++) {
          mean += (double) right[g] / all[g] / n;
        }
        double var = 0;
        for (int g = 0; g < n; g++) {
          var += Math.pow((double) right[g] / all[g] - mean, 2) / (n - 1);
        }
        expected = Math.sqrt(var / n);
      } else {
        double sumR = 0;
        double sumA = 0;
        for (int g = 0; g < n; g++) {
          sumR += right[g];
          sumA += all[g];
        }
        double p = sumR / sumA;
        double ss = 0;
        for (int g = 0; g < n; g++) {
          ss += Math.pow(right[g] - p * all[g], 2);
        }
        expected = Math.sqrt((double) n / (n - 1) * ss) / sumA;
      }
      assertEquals(expected, got, 1e-9, "round " + round);
    }
  }
}
