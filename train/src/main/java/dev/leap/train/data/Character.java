package dev.leap.train.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One row of the project's fact table for SGLang's character benchmark (resource {@code
 * characters.psv}): the facts of one Harry Potter character, each value fitting {@code
 * character_regex}. {@link #ownChoices} names the fields the books do not give, where the value is
 * the project's choice.
 *
 * @param benchmarkName the name as the benchmark's {@code dataset.txt} writes it (the prompt's
 *     name)
 * @param fields the sheet's fields in sheet order: name, house, blood status, occupation, wood,
 *     core, length, alive, patronus, bogart (the regex's spelling)
 */
public record Character(String benchmarkName, Map<String, String> fields, Set<String> ownChoices) {

  /** The sheet's field names, in the order of {@code character_regex}. */
  public static final List<String> FIELDS =
      List.of(
          "name",
          "house",
          "blood status",
          "occupation",
          "wood",
          "core",
          "length",
          "alive",
          "patronus",
          "bogart");

  /** SGLang's prompt for this character. */
  public String prompt() {
    return benchmarkName
        + " is a character in Harry Potter. Please fill in the following information about this character.\n";
  }

  /**
   * The character sheet, exactly in the format of SGLang's {@code character_regex} (4-space
   * indent).
   */
  public String sheet() {
    Map<String, String> f = fields;
    return "{\n"
        + "    \"name\": \""
        + f.get("name")
        + "\",\n"
        + "    \"house\": \""
        + f.get("house")
        + "\",\n"
        + "    \"blood status\": \""
        + f.get("blood status")
        + "\",\n"
        + "    \"occupation\": \""
        + f.get("occupation")
        + "\",\n"
        + "    \"wand\": {\n"
        + "        \"wood\": \""
        + f.get("wood")
        + "\",\n"
        + "        \"core\": \""
        + f.get("core")
        + "\",\n"
        + "        \"length\": "
        + f.get("length")
        + "\n"
        + "    },\n"
        + "    \"alive\": \""
        + f.get("alive")
        + "\",\n"
        + "    \"patronus\": \""
        + f.get("patronus")
        + "\",\n"
        + "    \"bogart\": \""
        + f.get("bogart")
        + "\"\n"
        + "}";
  }

  /** The 50 characters of the benchmark, in the order of its {@code dataset.txt}. */
  public static List<Character> all() {
    List<Character> out = new ArrayList<>();
    try (InputStream in = Character.class.getResourceAsStream("characters.psv")) {
      if (in == null) {
        throw new IllegalStateException("the character fact table resource is missing");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      int lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] cols = line.split("\\|", -1);
        if (cols.length != FIELDS.size() + 1) {
          throw new IllegalStateException(
              "characters.psv line "
                  + lineNo
                  + ": "
                  + cols.length
                  + " columns, expected "
                  + (FIELDS.size() + 1));
        }
        Map<String, String> fields = new LinkedHashMap<>();
        Set<String> own = new TreeSet<>();
        for (int i = 0; i < FIELDS.size(); i++) {
          String v = cols[i + 1].strip();
          if (v.endsWith("*")) {
            v = v.substring(0, v.length() - 1);
            own.add(FIELDS.get(i));
          }
          fields.put(FIELDS.get(i), v);
        }
        out.add(new Character(cols[0].strip(), fields, own));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
