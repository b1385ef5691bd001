package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leap.fsm.internal.Re;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@code $ref}: resolution within the document ({@link SchemaIndex}) and recursion, unrolled.
 *
 * <p>Each reference, by its canonical name, has an expansion depth: how many times it is being
 * expanded on the current path. A reference at {@link JsonSchemaOptions#maxRecursion} already
 * yields no value (deeper values cannot be generated: a subset of the valid ones). A merge that
 * inlines references ({@link #resolveShallow}) counts as an expansion of each of them ({@link
 * #valueOfMerge}), so recursion through {@code allOf} is bounded the same way. Because a schema's
 * language depends on the depths of the references reachable from it, those depths are part of the
 * memo key ({@link #expansionKey}).
 */
final class References {
  private final Converter converter;
  private final SchemaIndex index;

  /** How often each reference (canonical name) is being expanded on the current path. */
  private final Map<String, Integer> depth = new HashMap<>();

  /** The references {@link #resolveShallow} followed (merging inlines their targets). */
  private final List<String> followed = new ArrayList<>();

  /** The local references reachable from a schema node, following references (sorted). */
  private final Map<JsonNode, Set<String>> reachable = new IdentityHashMap<>();

  /** The references inside a schema node's own JSON (not followed). */
  private final Map<JsonNode, Set<String>> inside = new IdentityHashMap<>();

  /** Targets of the references seen by {@link #refsInside}, by canonical name. */
  private final Map<String, JsonNode> targets = new HashMap<>();

  References(Converter converter, SchemaIndex index) {
    this.converter = converter;
    this.index = index;
  }

  /**
   * The value of object schema {@code o} with a {@code $ref} (and maybe siblings to merge with its
   * target).
   */
  Re ref(ObjectNode o, String ptr, int level) {
    SchemaIndex.Target t = target(o.get("$ref").asText(), o, ptr);
    String key = t.key();
    if (converter.rules != null
        && (reachesItself(key, t.node()) || (converter.sharedRules && shared(key)))) {
      // Recursion (or a shared reference) as a rule (RecursiveRules); with sibling keywords, the
      // merge is the rule.
      ObjectNode siblings = withoutRef(o);
      if (!Keywords.hasAssertions(siblings)) {
        return converter.rules.reference(key, t.node(), ptr);
      }
      JsonNode target = t.node();
      return converter.rules.rule(
          key + " " + siblings,
          RecursiveRules.displayName(key)
              + " with "
              + siblings.size()
              + " sibling keywords at "
              + (ptr.isEmpty() ? "#" : "#" + ptr),
          () -> valueOfMerge(() -> converter.merge.merge(target, siblings, ptr), ptr, 0));
    }
    int d = depth.getOrDefault(key, 0);
    if (d >= converter.options.maxRecursion()) {
      return NOTHING; // recursion unrolled as far as allowed: deeper values cannot be generated
    }
    JsonNode target = t.node();
    ObjectNode rest = index.copy(o);
    rest.remove("$ref");
    depth.put(key, d + 1);
    try {
      return Keywords.hasAssertions(rest)
          ? valueOfMerge(() -> converter.merge.merge(target, rest, ptr), ptr, level)
          : converter.value(target, ptr, level);
    } finally {
      depth.put(key, d);
    }
  }

  /**
   * The value of a schema that merging produced ({@code null} if the merge gives none). A merge
   * inlines the targets of the references it follows, so they count as expansions of those
   * references, as in {@link #ref}: recursion through {@code allOf} is unrolled to {@link
   * JsonSchemaOptions#maxRecursion} like any other.
   */
  Re valueOfMerge(Supplier<JsonNode> merge, String ptr, int level) {
    int mark = followed.size();
    JsonNode merged;
    List<String> refs;
    try {
      merged = merge.get();
    } finally {
      List<String> tail = followed.subList(mark, followed.size());
      refs = new ArrayList<>(new LinkedHashSet<>(tail));
      tail.clear();
    }
    if (merged == null) {
      return null;
    }
    if (converter.rules != null
        && !refs.isEmpty()
        && !Collections.disjoint(reachableRefs(merged), refs)) {
      // Recursion through a merge (allOf): the merged schema is a rule (RecursiveRules).
      JsonNode m = merged;
      return converter.rules.rule(
          refs + " " + merged,
          "merge of "
              + refs.stream().map(RecursiveRules::displayName).toList()
              + " at "
              + (ptr.isEmpty() ? "#" : "#" + ptr),
          () -> converter.value(m, ptr, 0));
    }
    for (String r : refs) {
      if (depth.getOrDefault(r, 0) >= converter.options.maxRecursion()) {
        return NOTHING; // as in ref(): deeper values cannot be generated
      }
    }
    refs.forEach(r -> depth.merge(r, 1, Integer::sum));
    try {
      return converter.value(merged, ptr, level);
    } finally {
      refs.forEach(r -> depth.merge(r, -1, Integer::sum));
    }
  }

  /**
   * Follows a top-level {@code $ref} and merges a top-level {@code allOf} (for merging); recursion
   * is left to {@link #ref}.
   */
  JsonNode resolveShallow(JsonNode schema, String ptr) {
    int guard = 0;
    while (schema.isObject() && schema.has("$ref") && guard++ < 8) {
      SchemaIndex.Target t = target(schema.get("$ref").asText(), schema, ptr);
      followed.add(t.key());
      JsonNode target = t.node();
      ObjectNode rest = index.copy((ObjectNode) schema);
      rest.remove("$ref");
      if (rest.isEmpty()) {
        schema = target;
      } else {
        JsonNode copy = target.isObject() ? index.copy(target) : target;
        schema = converter.merge.merge(copy, rest, ptr);
      }
    }
    if (schema.isObject() && schema.has("allOf")) {
      schema = converter.merge.mergeAllOf((ObjectNode) schema, ptr);
    }
    return schema;
  }

  /**
   * Whether reference {@code key} can be met again inside its own {@code target} (a recursive
   * reference).
   */
  boolean reachesItself(String key, JsonNode target) {
    return reachableRefs(target).contains(key);
  }

  /**
   * How many {@code $ref}s in the document's JSON (every node, definitions included) name a target
   * that can reach the same reference again (a recursive reference, {@link #reachesItself}): the
   * places that unrolled recursion copies a level into. Reads the JSON only (a reference that does
   * not resolve is not counted; conversion reports it itself).
   */
  int recursiveReferenceSites(JsonNode document) {
    int[] n = {0};
    forEachSite(
        document,
        t -> {
          if (reachesItself(t.key(), t.node())) {
            n[0]++;
          }
        });
    return n[0];
  }

  /**
   * Calls {@code site} with the target of every {@code $ref} in {@code document}'s JSON (every
   * node, definitions included) that resolves in the document.
   */
  private void forEachSite(JsonNode document, Consumer<SchemaIndex.Target> site) {
    if (document.isObject() && document.path("$ref").isTextual()) {
      SchemaIndex.Target t = localTarget(document.get("$ref").asText(), document);
      if (t != null) {
        site.accept(t);
      }
    }
    for (JsonNode child : document) {
      forEachSite(child, site);
    }
  }

  /** References by canonical name named from two or more places of the document (lazily). */
  private Set<String> shared;

  /**
   * Whether reference {@code key} is named from two or more places of the document's JSON (every
   * node, definitions included; as {@link #recursiveReferenceSites}, the JSON only).
   */
  boolean shared(String key) {
    return sharedReferences().contains(key);
  }

  /** Whether some reference is named from two or more places of the document's JSON. */
  boolean anyShared() {
    return !sharedReferences().isEmpty();
  }

  private Set<String> sharedReferences() {
    if (shared == null) {
      Map<String, Integer> sites = new HashMap<>();
      forEachSite(converter.root, t -> sites.merge(t.key(), 1, Integer::sum));
      shared = new HashSet<>();
      sites.forEach(
          (k, n) -> {
            if (n >= 2) {
              shared.add(k);
            }
          });
    }
    return shared;
  }

  /** {@code o} without its {@code $ref}: a copy in which references resolve as in {@code o}. */
  private ObjectNode withoutRef(ObjectNode o) {
    ObjectNode rest = index.copy(o);
    rest.remove("$ref");
    return rest;
  }

  /**
   * A deep copy of {@code node} in which references resolve as in {@code node} ({@link
   * SchemaIndex#copy}).
   */
  <T extends JsonNode> T copy(T node) {
    return index.copy(node);
  }

  /** A mark of the references followed so far, for {@link #forgetFollowedSince}. */
  int followedMark() {
    return followed.size();
  }

  /**
   * Forgets the references followed since {@code mark} (a merge done only to inspect its result).
   */
  void forgetFollowedSince(int mark) {
    followed.subList(mark, followed.size()).clear();
  }

  /**
   * The part of the memo key of {@code schema} that references decide: each reference reachable
   * from it that is being expanded, with its depth ({@code |name=depth}, in name order).
   */
  String expansionKey(JsonNode schema) {
    StringBuilder key = new StringBuilder();
    for (String r : reachableRefs(schema)) {
      int d = depth.getOrDefault(r, 0);
      if (d > 0) {
        key.append('|').append(r).append('=').append(d);
      }
    }
    return key.toString();
  }

  /**
   * The canonical names of the references reachable from {@code schema}, following references
   * (sorted).
   */
  private Set<String> reachableRefs(JsonNode schema) {
    Set<String> out = reachable.get(schema);
    if (out != null) {
      return out;
    }
    out = new TreeSet<>(refsInside(schema));
    ArrayDeque<String> todo = new ArrayDeque<>(out);
    while (!todo.isEmpty()) {
      JsonNode target = targets.get(todo.poll());
      if (target != null) {
        for (String r : refsInside(target)) {
          if (out.add(r)) {
            todo.add(r);
          }
        }
      }
    }
    reachable.put(schema, out);
    return out;
  }

  /**
   * The canonical names of the references inside a schema node's own JSON (not followed;
   * unresolvable ones left out).
   */
  private Set<String> refsInside(JsonNode schema) {
    Set<String> out = inside.get(schema);
    if (out != null) {
      return out;
    }
    out = new HashSet<>();
    if (schema.isObject() && schema.path("$ref").isTextual()) {
      SchemaIndex.Target t = localTarget(schema.get("$ref").asText(), schema);
      if (t != null) {
        out.add(t.key());
        targets.put(t.key(), t.node());
      }
    }
    for (JsonNode child : schema) {
      out.addAll(refsInside(child));
    }
    inside.put(schema, out);
    return out;
  }

  /** The target of a reference, or null (conversion reports bad references itself). */
  SchemaIndex.Target localTarget(String ref, JsonNode at) {
    try {
      return index.resolve(ref, at);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The target of {@code ref}, written in node {@code at}, and its canonical name; a {@link
   * JsonSchemaException} if none.
   */
  SchemaIndex.Target target(String ref, JsonNode at, String ptr) {
    SchemaIndex.Target t;
    try {
      t = index.resolve(ref, at);
    } catch (IllegalArgumentException e) {
      throw new JsonSchemaException("$ref", ptr, e.getMessage());
    }
    if (t == null) {
      throw new JsonSchemaException(
          "$ref",
          ptr,
          "reference "
              + ref
              + " does not resolve within the schema document (Leap"
              + " resolves $id, $anchor and JSON pointers in the document and fetches nothing)");
    }
    return t;
  }
}
