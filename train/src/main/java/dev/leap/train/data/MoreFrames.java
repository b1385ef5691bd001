package dev.leap.train.data;

import java.util.List;
import java.util.SplittableRandom;

/**
 * More sentence frames for the facts and distractors of {@link CityDocument}'s open-value articles
 * (the copy curriculum's phases 2 and 3): the same fact in many more wordings and places in the
 * sentence, so the model learns to find a value rather than a frame. None of them is a frame of the
 * held-out {@link GazetteerDocument}.
 */
final class MoreFrames {
  private MoreFrames() {}

  static String population(SplittableRandom r, City c) {
    String n = c.name();
    long p = c.population();
    return switch (r.nextInt(10)) {
      case 0 -> "The population of " + n + " stands at " + p + ".";
      case 1 -> "According to official figures, " + p + " people live in " + n + ".";
      case 2 ->
          n
              + " counts "
              + p
              + " inhabitants, making it a large city by the standards of "
              + c.country()
              + ".";
      case 3 -> "Its population, " + p + " at the latest count, has grown steadily.";
      case 4 -> "The latest census recorded " + p + " residents in " + n + ".";
      case 5 -> "A population of " + p + " makes " + n + " one of the busier cities of the region.";
      case 6 -> "Some " + p + " people call " + n + " their home.";
      case 7 -> "Census population of " + n + ": " + p + ".";
      case 8 -> "With " + p + " inhabitants, " + n + " has outgrown its old walls.";
      default -> "The city had " + p + " inhabitants when it was last counted.";
    };
  }

  static String latitude(SplittableRandom r, City c) {
    String n = c.name();
    String l = c.latitude();
    return switch (r.nextInt(8)) {
      case 0 -> "Its latitude is " + l + ".";
      case 1 -> n + " is situated at a latitude of " + l + ".";
      case 2 ->
          "Maps place "
              + n
              + " at latitude "
              + l
              + ", on the same parallel as several inland towns.";
      case 3 -> "At a latitude of " + l + ", " + n + " sees short winter days.";
      case 4 -> "The city centre lies at latitude " + l + ".";
      case 5 -> "Geographers give the latitude of " + n + " as " + l + ".";
      case 6 -> "Latitude of " + n + ": " + l + ".";
      default -> "Lying at latitude " + l + ", the city has a mild climate.";
    };
  }

  static String landmarks(SplittableRandom r, City c) {
    List<String> l = c.landmarks();
    String n = c.name();
    return switch (r.nextInt(7)) {
      case 0 -> "Its top three landmarks are " + c.landmarkList() + ".";
      case 1 -> "Among the sights of " + n + ", " + c.landmarkList() + " stand out.";
      case 2 ->
          "Guidebooks send visitors first to the "
              + l.get(0)
              + ", then to the "
              + l.get(1)
              + " and the "
              + l.get(2)
              + ".";
      case 3 ->
          "The "
              + l.get(0)
              + ", the "
              + l.get(1)
              + " and the "
              + l.get(2)
              + " are the landmarks of "
              + n
              + ".";
      case 4 -> "Landmarks of " + n + ": " + c.landmarkList() + ".";
      case 5 -> "No visit to " + n + " is complete without " + c.landmarkList() + ".";
      default -> "Most photographed in " + n + " are " + c.landmarkList() + ".";
    };
  }

  static String distractor(SplittableRandom r, City fake) {
    String o = fake.name();
    return switch (r.nextInt(6)) {
      case 0 -> "The smaller town of " + o + " counts " + fake.population() + " inhabitants.";
      case 1 -> "Further south, " + o + " lies at a latitude of " + fake.latitude() + ".";
      case 2 ->
          "Visitors often combine a trip with "
              + o
              + ", known for the "
              + fake.landmarks().get(0)
              + ".";
      case 3 -> "The population of neighbouring " + o + " stands at " + fake.population() + ".";
      case 4 ->
          o
              + ", a town in "
              + fake.country()
              + ", has the "
              + fake.landmarks().get(0)
              + " and the "
              + fake.landmarks().get(1)
              + ".";
      default -> "Maps place " + o + " at latitude " + fake.latitude() + ".";
    };
  }
}
