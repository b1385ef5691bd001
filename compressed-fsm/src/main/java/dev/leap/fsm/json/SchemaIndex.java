package dev.leap.fsm.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The schema resources and anchors inside one JSON Schema document, for resolving {@code $ref}:
 * every schema node's base URI (changed by {@code $id}, or {@code id} in draft-04 documents), the
 * resources by URI, and the anchors ({@code $anchor}, and draft 6/7's {@code "$id": "#name"}). A
 * reference resolves against the base URI of the node that holds it; its fragment is a JSON pointer
 * into the resource or an anchor name. References to other documents are not resolved (nothing is
 * fetched).
 */
final class SchemaIndex {
  /** The base of a document without {@code $id} (only relative references within it resolve). */
  static final URI DEFAULT_BASE = URI.create("https://leap.invalid/schema.json");

  /** Keywords whose values are data, not schemas (an {@code $id} inside them is not one). */
  private static final Set<String> DATA = Set.of("enum", "const", "examples", "default");

  private final JsonNode root;
  private final boolean draft4;
  private final Map<JsonNode, URI> baseOf = new IdentityHashMap<>();
  private final Map<String, JsonNode> resources = new HashMap<>();
  private final Map<String, JsonNode> anchors = new HashMap<>();

  /** A resolved reference: its target and a canonical key (the absolute URI) that names it. */
  record Target(JsonNode node, String key) {}

  SchemaIndex(JsonNode root) {
    this.root = root;
    this.draft4 = root.path("$schema").asText("").contains("draft-04");
    walk(root, DEFAULT_BASE);
  }

  private void walk(JsonNode schema, URI base) {
    if (!schema.isObject()) {
      if (schema.isArray()) {
        for (JsonNode x : schema) {
          walk(x, base);
        }
      }
      return;
    }
    JsonNode id =
        schema.path("$id").isTextual()
            ? schema.get("$id")
            : draft4 && schema.path("id").isTextual() ? schema.get("id") : null;
    if (id != null) {
      String text = id.asText();
      URI u = resolve(base, text);
      if (u != null) {
        if (text.startsWith("#")) {
          anchors.put(
              withoutFragment(base) + "#" + text.substring(1),
              schema); // draft 6/7 plain-name fragment
        } else {
          base = URI.create(withoutFragment(u));
          resources.putIfAbsent(base.toString(), schema);
        }
      }
    }
    if (schema == root) {
      resources.putIfAbsent(withoutFragment(base), schema);
      resources.putIfAbsent(DEFAULT_BASE.toString(), schema);
    }
    if (schema.path("$anchor").isTextual()) {
      anchors.put(withoutFragment(base) + "#" + schema.get("$anchor").asText(), schema);
    }
    baseOf.put(schema, base);
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!DATA.contains(e.getKey())) {
        walk(e.getValue(), base);
      }
    }
  }

  /**
   * A deep copy of {@code node} whose nodes keep the base URIs of the nodes they copy, so that a
   * reference inside the copy (a merge's result, a schema without some keyword) resolves where it
   * does in the original: a {@code $ref} in an embedded resource ({@code $id}) stays relative to
   * that resource's URI, not the document's.
   */
  @SuppressWarnings("unchecked")
  <T extends JsonNode> T copy(T node) {
    T copy = (T) node.deepCopy();
    inherit(copy, node);
    return copy;
  }

  private void inherit(JsonNode copy, JsonNode original) {
    URI base = baseOf.get(original);
    if (base != null) {
      baseOf.putIfAbsent(copy, base);
    }
    if (original.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = original.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode c = copy.get(e.getKey());
        if (c != null && !DATA.contains(e.getKey())) {
          inherit(c, e.getValue());
        }
      }
    } else if (original.isArray()) {
      for (int i = 0; i < original.size() && i < copy.size(); i++) {
        inherit(copy.get(i), original.get(i));
      }
    }
  }

  /**
   * Resolves {@code ref}, written in node {@code at} (the document's base if {@code at} is not a
   * node of it, e.g. a merged copy).
   *
   * @return the target, or null if it is not in this document
   * @throws IllegalArgumentException if {@code ref} is not a URI reference
   */
  Target resolve(String ref, JsonNode at) {
    URI base = at == null ? null : baseOf.get(at);
    URI u = resolve(base == null ? baseOf.getOrDefault(root, DEFAULT_BASE) : base, ref);
    if (u == null) {
      throw new IllegalArgumentException("not a URI reference: " + ref);
    }
    String doc = withoutFragment(u);
    String fragment = u.getRawFragment();
    JsonNode resource = resources.get(doc);
    if (resource == null) {
      return null;
    }
    if (fragment == null || fragment.isEmpty()) {
      return new Target(resource, doc);
    }
    String key = doc + "#" + fragment;
    if (fragment.startsWith("/")) {
      String pointer = URLDecoder.decode(fragment.replace("+", "%2B"), StandardCharsets.UTF_8);
      JsonNode n = resource.at(pointer);
      return n.isMissingNode() ? null : new Target(n, key);
    }
    JsonNode n = anchors.get(key);
    return n == null ? null : new Target(n, key);
  }

  private static URI resolve(URI base, String ref) {
    try {
      URI r = new URI(ref);
      if (r.isAbsolute()) {
        return r;
      }
      if (base.isOpaque()) {
        // A URN base: only fragments resolve against it.
        return ref.startsWith("#")
            ? new URI(base.getScheme(), base.getSchemeSpecificPart(), r.getFragment())
            : null;
      }
      return base.resolve(r);
    } catch (URISyntaxException e) {
      return null;
    }
  }

  /**
   * The URI without its fragment, in one spelling per resource ({@link URI#resolve} writes {@code
   * file:///a} as {@code file:/a}: an empty authority is dropped).
   */
  private static String withoutFragment(URI u) {
    if (u.isOpaque()) {
      return u.getScheme() + ":" + u.getRawSchemeSpecificPart();
    }
    String authority = u.getRawAuthority();
    return (u.getScheme() == null ? "" : u.getScheme() + ":")
        + (authority == null || authority.isEmpty() ? "" : "//" + authority)
        + (u.getRawPath() == null ? "" : u.getRawPath())
        + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
  }
}
