package dev.leap.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A long descriptive article about a fictional city, written by this project for the long-document
 * extraction benchmark (about 3,000 GPT-2 tokens by default). It is generated from a fixed seed so
 * every run sees the same text; its facts (name, country, coordinates, population, landmarks) are
 * stated several times, as a real encyclopedia page would.
 */
public final class CityDocument {
  private CityDocument() {}

  public static final String CITY = "Velmora";
  public static final String COUNTRY = "Kestria";

  private static final String[] DISTRICTS = {
    "Old Harbour", "Lantern Hill", "the Weaver Quarter", "Saltmarsh", "North Terrace", "Copperfield",
    "the Glass Market", "Riverside", "Ashgrove", "the Upper Town", "Millbrook", "Stonegate"
  };
  private static final String[] LANDMARKS = {
    "the Tidewatch Lighthouse", "the Amber Cathedral", "the Great Covered Market", "Orlan Bridge",
    "the Observatory of Saint Ilse", "the Velmora Opera House", "the Salt Museum", "Kingsfall Gardens"
  };
  private static final String[] TRADES = {
    "shipbuilding", "glassblowing", "salt refining", "textile weaving", "clockmaking", "printing",
    "fishing", "copper smelting", "brewing", "banking"
  };
  private static final String[] SUBJECTS = {
    "The city's economy", "Local historians", "A survey of the municipal archives", "The regional council",
    "Visitors from the capital", "The harbour authority", "A guidebook published last century",
    "The university's geography department", "Residents of the older districts", "Travel writers"
  };
  private static final String[] VERBS = {
    "describe", "record", "emphasise", "note", "remember", "celebrate", "document", "point out"
  };
  private static final String[] SEASONS = {"spring", "summer", "autumn", "winter"};

  /** The article, deterministic for a given seed and target length in words. */
  public static String text(long seed, int words) {
    SplittableRandom r = new SplittableRandom(seed);
    StringBuilder sb = new StringBuilder();
    sb.append(CITY).append(" is a port city in the north of ").append(COUNTRY)
        .append(", on the estuary of the river Orla. It is the second largest city of ").append(COUNTRY)
        .append(", with a population of 1,482,300 at the last census, and lies at latitude 54.37 north. ")
        .append("Its best known landmarks are the Tidewatch Lighthouse, the Amber Cathedral and Orlan Bridge.\n\n");
    List<String> sections = new ArrayList<>(List.of(
        "History", "Geography", "Climate", "Districts", "Economy", "Culture", "Transport", "Education",
        "Architecture", "Sport", "Festivals", "Government"));
    int section = 0;
    while (countWords(sb) < words) {
      String title = sections.get(section % sections.size());
      sb.append("== ").append(title).append(" ==\n");
      int paragraphs = 2 + r.nextInt(2);
      for (int p = 0; p < paragraphs; p++) {
        int sentences = 4 + r.nextInt(3);
        for (int s = 0; s < sentences; s++) {
          sb.append(sentence(r, title)).append(' ');
        }
        sb.setLength(sb.length() - 1);
        sb.append("\n\n");
      }
      section++;
    }
    sb.append("In summary, ").append(CITY).append(" (").append(COUNTRY)
        .append(") remains a city of 1,482,300 people at latitude 54.37, famous for the Tidewatch Lighthouse.\n");
    return sb.toString();
  }

  private static String sentence(SplittableRandom r, String topic) {
    String district = pick(r, DISTRICTS);
    String landmark = pick(r, LANDMARKS);
    String trade = pick(r, TRADES);
    int year = 1200 + r.nextInt(800);
    switch (r.nextInt(8)) {
      case 0:
        return pick(r, SUBJECTS) + " " + pick(r, VERBS) + " that " + district + " grew around " + trade
            + " in the years after " + year + ".";
      case 1:
        return "In " + year + ", " + landmark + " was restored, and the work drew craftsmen from "
            + district + " and from across " + COUNTRY + ".";
      case 2:
        return "The " + topic.toLowerCase() + " of " + CITY + " is shaped by the river Orla, which divides "
            + district + " from " + pick(r, DISTRICTS) + ".";
      case 3:
        return "Each " + pick(r, SEASONS) + ", residents of " + district + " gather near " + landmark
            + " for a festival that dates from " + year + ".";
      case 4:
        return "By " + year + " about " + (2 + r.nextInt(40)) + " percent of the workers in " + district
            + " were employed in " + trade + ".";
      case 5:
        return pick(r, SUBJECTS) + " " + pick(r, VERBS) + " the view of " + landmark + " from the hills above "
            + district + ".";
      case 6:
        return "A tram line opened in " + year + " links " + district + " with " + pick(r, DISTRICTS)
            + ", passing " + landmark + ".";
      default:
        return "Records from " + year + " mention " + trade + " workshops near " + landmark + ", many of which "
            + "still operate in " + district + ".";
    }
  }

  private static String pick(SplittableRandom r, String[] options) {
    return options[r.nextInt(options.length)];
  }

  private static int countWords(CharSequence s) {
    int n = 0;
    boolean in = false;
    for (int i = 0; i < s.length(); i++) {
      boolean ws = Character.isWhitespace(s.charAt(i));
      if (!ws && !in) {
        n++;
      }
      in = !ws;
    }
    return n;
  }

  /** The extraction questions asked over the document (each one request). */
  public static List<String> questions() {
    return List.of(
        "Here is the name, country, and symbol of the city in JSON format.\n",
        "Here are the city's name, country, latitude, population and three landmarks in JSON format.\n",
        "Summarise the city as JSON: its name, its country, its latitude and population, and its top landmarks.\n",
        "Fill in the city's record in JSON format, taking every value from the page.\n",
        "Extract the facts a traveller needs first about this city, in JSON format.\n",
        "Here is the structured data of the city described above, in JSON format.\n",
        "Give the city's key facts as a JSON object for an atlas entry.\n",
        "Here is the census and geography summary of the city in JSON format.\n",
        "Return the city's name, country, latitude, population and landmarks as JSON.\n",
        "Here is a JSON card about the city for a school project.\n");
  }

  /** SGLang's city prompt around the document and one question. */
  public static String prompt(String document, String question) {
    return "Please extract the information of a city from the following wikipedia page.\n"
        + "Page begin.\n" + document + "Page end.\n" + question;
  }
}
