package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.opt;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.RegexParser;
import java.util.ArrayList;
import java.util.List;

/**
 * Array values: a tuple ({@code prefixItems}, or draft-4 {@code items} as an array) then further
 * elements ({@code items}, or {@code additionalItems}; any value where absent), between {@code
 * minItems} and {@code maxItems} elements. {@code uniqueItems} is honoured only where at most one
 * element is allowed; counts above {@link RegexParser#MAX_REPEAT} are not honoured.
 */
final class ArrayValues {
  private final Converter converter;

  ArrayValues(Converter converter) {
    this.converter = converter;
  }

  /** The arrays array schema {@code o} allows at nesting {@code level}. */
  Re value(ObjectNode o, String ptr, int level) {
    int min = o.has("minItems") ? Converter.nonNegative(o, "minItems", ptr) : 0;
    int max = o.has("maxItems") ? Converter.nonNegative(o, "maxItems", ptr) : -1;
    if (o.path("uniqueItems").asBoolean(false) && (max < 0 || max > 1)) {
      converter.notHonoured(
          "uniqueItems", ptr, "unique items are not expressible as a regular language");
    }
    if (max >= 0 && max < min) {
      return NOTHING;
    }
    List<Re> prefix = new ArrayList<>();
    Re rest;
    JsonNode items = o.get("items");
    if (o.has("prefixItems") || (items != null && items.isArray())) {
      JsonNode tuple = o.has("prefixItems") ? o.get("prefixItems") : items;
      String key = o.has("prefixItems") ? "prefixItems" : "items";
      for (int i = 0; i < tuple.size(); i++) {
        prefix.add(converter.value(tuple.get(i), ptr + "/" + key + "/" + i, level + 1));
      }
      JsonNode after = o.has("prefixItems") ? items : o.get("additionalItems");
      rest =
          after == null
              ? converter.any.value(level + 1, Converter.ANY_DEPTH - 1)
              : converter.value(
                  after,
                  ptr + "/" + (o.has("prefixItems") ? "items" : "additionalItems"),
                  level + 1);
    } else {
      rest =
          items == null
              ? converter.any.value(level + 1, Converter.ANY_DEPTH - 1)
              : converter.value(items, ptr + "/items", level + 1);
    }
    String in = converter.layout.newline(level + 1);
    String out = converter.layout.newline(level);
    int k = prefix.size();
    if (min > RegexParser.MAX_REPEAT || max > RegexParser.MAX_REPEAT) {
      converter.notHonoured(
          max > RegexParser.MAX_REPEAT ? "maxItems" : "minItems",
          ptr,
          "item counts above " + RegexParser.MAX_REPEAT);
      min = Math.min(min, RegexParser.MAX_REPEAT);
      max = -1;
    }
    // Elements after the first are preceded by a comma; element i is the prefix schema or rest.
    // tail: the elements from index i on, given that element i-1 was written.
    int restMin = Math.max(0, min - k);
    int restMax = max < 0 ? -1 : Math.max(0, max - k);
    Re tail = (max >= 0 && max <= k) ? Re.EMPTY : rep(seq(lit("," + in), rest), restMin, restMax);
    for (int i = k - 1; i >= 1; i--) {
      if (max >= 0 && i >= max) {
        continue;
      }
      Re here = seq(lit("," + in), prefix.get(i), tail);
      tail = i < min ? here : opt(here);
    }
    if (max == 0) {
      return lit("[]");
    }
    Re elements =
        k > 0
            ? seq(lit(in), prefix.get(0), tail)
            : seq(
                lit(in),
                rest,
                rep(seq(lit("," + in), rest), Math.max(0, min - 1), max < 0 ? -1 : max - 1));
    Re body = seq(lit("["), elements, lit(out + "]"));
    return min == 0 ? alt(List.of(lit("[]"), body)) : body;
  }
}
