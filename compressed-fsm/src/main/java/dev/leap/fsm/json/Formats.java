package dev.leap.fsm.json;

import java.util.Map;
import java.util.Set;

/**
 * The {@code format}s of the JSON Schema specification as regexes in Leap's dialect (over the
 * decoded string). Each is a <em>subset</em> of the format's valid strings, so a generated string
 * always passes a format-checking validator; where the full format is not regular (or not worth its
 * states) the subset is named here.
 *
 * <ul>
 *   <li>{@code date}: calendar-exact (days per month, February 29 only in leap years); {@code
 *       time}: no leap seconds; {@code date-time} their combination with {@code T};
 *   <li>{@code email}, {@code idn-email}: dot-atom local part, host names with a letter TLD;
 *   <li>{@code uri}, {@code iri}, {@code uri-reference}, {@code iri-reference}, {@code
 *       uri-template}: absolute host-based URLs without braces;
 *   <li>{@code hostname}, {@code idn-hostname}: ASCII labels, at most four and 253 characters, none
 *       with {@code --} in its 3rd and 4th positions (so no Punycode {@code xn--} labels, whose
 *       validity is not regular);
 *   <li>{@code ipv6}: the eight-group and {@code ::}-compressed forms, no embedded IPv4 or zone;
 *   <li>{@code regex}: literal text without regex metacharacters;
 *   <li>{@code duration}, {@code ipv4}, {@code uuid}, {@code json-pointer}, {@code
 *       relative-json-pointer}: exact.
 * </ul>
 *
 * Strings of any other {@code format} are not checked by validators (it is an annotation), so it
 * asserts nothing in Leap either.
 */
final class Formats {
  private Formats() {}

  private static final String LEAP_YEAR =
      "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)";
  private static final String DATE =
      "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
          + "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|"
          + LEAP_YEAR
          + "-02-29)";
  private static final String TIME =
      "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
  private static final String ATOM = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+";
  private static final String LABEL = "[a-zA-Z0-9]+(?:-+[a-zA-Z0-9]+)*";
  private static final String PCHAR = "(?:[a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
  private static final String URI =
      "[a-zA-Z][a-zA-Z0-9+.-]*://"
          + LABEL
          + "(?:\\."
          + LABEL
          + ")*(?::[0-9]{1,5})?(?:/"
          + PCHAR
          + "*)*(?:\\?(?:"
          + PCHAR
          + "|[/?])*)?";
  private static final String EMAIL =
      ATOM + "(?:\\." + ATOM + ")*@" + LABEL + "(?:\\." + LABEL + ")*\\.[a-zA-Z]{2,24}";

  /**
   * A host name label (RFC 1123: letters, digits and inner hyphens, 1 to 63 characters) without
   * {@code --} in its 3rd and 4th positions: RFC 5891 reserves those labels, and the ones in use,
   * {@code xn--} A-labels, are valid only when their Punycode decodes to a valid U-label, which no
   * automaton of a useful size checks. So no A-label is generated or accepted (a valid one is
   * rejected, an invalid one such as {@code xn--X} never accepted).
   */
  private static final String BOUNDED_LABEL = label(63);

  /**
   * At most four labels and 253 characters (RFC 1034's limit on a name's text): four labels of 63
   * would make 255, so a fourth label has at most 61 characters.
   */
  private static final String HOSTNAME =
      BOUNDED_LABEL
          + "(?:\\."
          + BOUNDED_LABEL
          + "(?:\\."
          + BOUNDED_LABEL
          + "(?:\\."
          + label(61)
          + ")?)?)?";

  /** A {@link #BOUNDED_LABEL} of at most {@code max} (at least 5) characters. */
  private static String label(int max) {
    return "[a-zA-Z0-9](?:[a-zA-Z0-9-]?[a-zA-Z0-9]|[a-zA-Z0-9-]{2}[a-zA-Z0-9]"
        + "|[a-zA-Z0-9-](?:[a-zA-Z0-9][a-zA-Z0-9-]|-[a-zA-Z0-9])[a-zA-Z0-9-]{0,"
        + (max - 5)
        + "}[a-zA-Z0-9])?";
  }

  private static final String OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
  private static final String H = "[0-9a-fA-F]{1,4}";
  private static final String IPV6 =
      "(?:(?:"
          + H
          + ":){7}"
          + H
          + "|(?:"
          + H
          + ":){1,7}:|(?:"
          + H
          + ":){1,6}:"
          + H
          + "|(?:"
          + H
          + ":){1,5}(?::"
          + H
          + "){1,2}|(?:"
          + H
          + ":){1,4}(?::"
          + H
          + "){1,3}|(?:"
          + H
          + ":){1,3}(?::"
          + H
          + "){1,4}|(?:"
          + H
          + ":){1,2}(?::"
          + H
          + "){1,5}|"
          + H
          + ":(?::"
          + H
          + "){1,6}|:(?:(?::"
          + H
          + "){1,7}|:))";
  private static final String DUR_TIME =
      "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)";
  private static final String DURATION =
      "P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:"
          + DUR_TIME
          + ")?|"
          + DUR_TIME
          + "|[0-9]+W)";
  private static final String POINTER = "(?:/(?:[^~/]|~[01])*)*";

  private static final Map<String, String> REGEX =
      Map.ofEntries(
          Map.entry("date", DATE),
          Map.entry("time", TIME),
          Map.entry("date-time", DATE + "T" + TIME),
          Map.entry("duration", DURATION),
          Map.entry(
              "uuid",
              "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
          Map.entry("email", EMAIL),
          Map.entry("idn-email", EMAIL),
          Map.entry("uri", URI),
          Map.entry("uri-reference", URI),
          Map.entry("iri", URI),
          Map.entry("iri-reference", URI),
          Map.entry("uri-template", URI),
          Map.entry("hostname", HOSTNAME),
          Map.entry("idn-hostname", HOSTNAME),
          Map.entry("ipv4", OCTET + "\\." + OCTET + "\\." + OCTET + "\\." + OCTET),
          Map.entry("ipv6", IPV6),
          Map.entry("json-pointer", POINTER),
          Map.entry("relative-json-pointer", "(?:0|[1-9][0-9]*)(?:#|" + POINTER + ")"),
          Map.entry("regex", "[^\\\\^$.|?*+()\\[\\]{}]*"));

  /** The specification's formats (all supported). */
  static final Set<String> KNOWN = REGEX.keySet();

  /**
   * The regex of format {@code name}, or {@code null} if it is not a format of the specification.
   */
  static String regex(String name) {
    return REGEX.get(name);
  }
}
