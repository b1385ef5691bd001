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
}
