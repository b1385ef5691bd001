package dev.leap.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Import cycles that cross a package boundary, in one module's compiled classes: a class of one
 * package that depends, through any chain, on a class of another package that depends back on it
 * (the ring {@code CompressedFsm -> internal.Automata -> CompressedFsm} that once existed only to
 * get around visibility). Each module's {@code PublicSurfaceTest} forbids them.
 *
 * <p>Allowed: cycles inside one package, and packages that use each other's classes without a class
 * ring (an API package calls into its {@code internal} package, whose classes build and throw the
 * API's value and exception types).
 *
 * <p>The graph is over top-level classes (a nested class counts as its outer class). An edge {@code
 * A -> B} exists when a class file of {@code A} names {@code B} in its constant pool (class
 * entries, and the descriptors of its fields, methods and the members it uses). Generic type
 * arguments that appear only in signatures are not read. The class files are read, never loaded.
 */
public final class ImportCycles {
  private ImportCycles() {}

  private static final Pattern IN_DESCRIPTOR = Pattern.compile("L([\\w/$]+);");

  /**
   * The class graph of the module that holds {@code anyClassOfTheModule}: for each top-level class
   * (binary name, {@code a.b.C}) the other top-level classes of the module it names.
   */
  public static Map<String, Map<String, String>> graph(Class<?> anyClassOfTheModule) {
    Path root = PublicSurface.root(anyClassOfTheModule);
    Map<String, Map<String, String>> graph = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String rel = root.relativize(f).toString().replace('\\', '/');
        if (!rel.endsWith(".class")
            || rel.endsWith("module-info.class")
            || rel.endsWith("package-info.class")
            || rel.contains("/jmh_generated/")) {
          continue;
        }
        String from = topLevel(rel.substring(0, rel.length() - ".class".length()));
        Map<String, String> out = graph.computeIfAbsent(from, k -> new TreeMap<>());
        for (String r : referencedClasses(Files.readAllBytes(f))) {
          String to = topLevel(r);
          if (!to.equals(from)) {
            out.put(to, "");
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    graph.values().forEach(out -> out.keySet().retainAll(graph.keySet()));
    return graph;
  }

  /** The cycles of a class graph whose classes lie in more than one package. */
  public static List<List<String>> crossingPackages(Map<String, ? extends Map<String, ?>> graph) {
    List<List<String>> out = new ArrayList<>();
    for (List<String> cycle : cycles(graph)) {
      Set<String> packages = new TreeSet<>();
      for (String c : cycle) {
        packages.add(packageOf(c));
      }
      if (packages.size() > 1) {
        out.add(cycle);
      }
    }
    return out;
  }

  /**
   * The cycles of a graph: its strongly connected components of more than one node (Tarjan's
   * algorithm, iterative), each sorted, in a deterministic order.
   */
  public static List<List<String>> cycles(Map<String, ? extends Map<String, ?>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<List<String>> out = new ArrayList<>();
    int[] next = {0};
    for (String start : new TreeSet<>(graph.keySet())) {
      if (index.containsKey(start)) {
        continue;
      }
      // Explicit DFS frames: the node and an iterator over its successors.
      Deque<Map.Entry<String, Iterator<String>>> frames = new ArrayDeque<>();
      visit(start, graph, index, low, stack, onStack, next, frames);
      while (!frames.isEmpty()) {
        Map.Entry<String, Iterator<String>> top = frames.peek();
        String v = top.getKey();
        if (top.getValue().hasNext()) {
          String w = top.getValue().next();
          if (!index.containsKey(w)) {
            visit(w, graph, index, low, stack, onStack, next, frames);
          } else if (onStack.contains(w)) {
            low.put(v, Math.min(low.get(v), index.get(w)));
          }
          continue;
        }
        frames.pop();
        if (!frames.isEmpty()) {
          String parent = frames.peek().getKey();
          low.put(parent, Math.min(low.get(parent), low.get(v)));
        }
        if (low.get(v).equals(index.get(v))) {
          TreeSet<String> component = new TreeSet<>();
          String w;
          do {
            w = stack.pop();
            onStack.remove(w);
            component.add(w);
          } while (!w.equals(v));
          if (component.size() > 1) {
            out.add(new ArrayList<>(component));
          }
        }
      }
    }
    out.sort((a, b) -> a.get(0).compareTo(b.get(0)));
    return out;
  }

  private static void visit(
      String v,
      Map<String, ? extends Map<String, ?>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      int[] next,
      Deque<Map.Entry<String, Iterator<String>>> frames) {
    index.put(v, next[0]);
    low.put(v, next[0]);
    next[0]++;
    stack.push(v);
    onStack.add(v);
    Map<String, ?> succ = graph.get(v);
    Set<String> successors = succ == null ? Set.of() : new TreeSet<>(succ.keySet());
    frames.push(Map.entry(v, successors.iterator()));
  }

  /**
   * Fails, naming each ring of classes and its edges, unless no import cycle of the module that
   * holds {@code anyClassOfTheModule} crosses a package boundary.
   */
  public static void check(Class<?> anyClassOfTheModule) {
    Map<String, Map<String, String>> graph = graph(anyClassOfTheModule);
    List<List<String>> rings = crossingPackages(graph);
    if (rings.isEmpty()) {
      return;
    }
    StringBuilder why = new StringBuilder("classes of different packages that import each other:");
    for (List<String> ring : rings) {
      why.append("\n  ").append(ring);
      for (String c : ring) {
        for (String d : graph.get(c).keySet()) {
          if (ring.contains(d)) {
            why.append("\n    ").append(c).append(" -> ").append(d);
          }
        }
      }
    }
    fail(why.toString());
  }

  /** {@code a/b/C$D} or {@code a.b.C$D} to {@code a.b.C}. */
  static String topLevel(String name) {
    String dotted = name.replace('/', '.');
    int dollar = dotted.indexOf('$');
    return dollar < 0 ? dotted : dotted.substring(0, dollar);
  }

  /** {@code a.b.C} to {@code a.b}; the unnamed package is {@code ""}. */
  static String packageOf(String binaryName) {
    int dot = binaryName.lastIndexOf('.');
    return dot < 0 ? "" : binaryName.substring(0, dot);
  }

  /**
   * The internal names of the classes a class file refers to: its constant pool's class entries
   * (arrays unwrapped) and the class names inside the descriptors of its method types, the members
   * it uses and its own fields and methods (JVMS 4.4, 4.5, 4.6).
   */
  static Set<String> referencedClasses(byte[] classFile) {
    ByteBuffer b = ByteBuffer.wrap(classFile);
    if (b.getInt() != 0xCAFEBABE) {
      throw new IllegalArgumentException("not a class file");
    }
    b.getInt(); // minor, major
    int count = b.getShort() & 0xFFFF;
    String[] utf8 = new String[count];
    List<Integer> classNames = new ArrayList<>();
    List<Integer> descriptors = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      int tag = b.get();
      switch (tag) {
        case 1 -> {
          int length = b.getShort() & 0xFFFF;
          byte[] bytes = new byte[length];
          b.get(bytes);
          // Modified UTF-8 differs from UTF-8 only outside ASCII, where class names of ours are
          // not.
          utf8[i] = new String(bytes, StandardCharsets.UTF_8);
        }
        case 7 -> classNames.add(b.getShort() & 0xFFFF);
        case 12 -> { // NameAndType: a name, then a descriptor
          b.getShort();
          descriptors.add(b.getShort() & 0xFFFF);
        }
        case 16 -> descriptors.add(b.getShort() & 0xFFFF); // MethodType
        case 3, 4, 9, 10, 11, 17, 18 -> b.position(b.position() + 4);
        case 5, 6 -> {
          b.position(b.position() + 8);
          i++;
        }
        case 8, 19, 20 -> b.position(b.position() + 2);
        case 15 -> b.position(b.position() + 3);
        default -> throw new IllegalArgumentException("constant pool tag " + tag);
      }
    }
    b.getShort(); // access flags
    b.getShort(); // this class
    b.getShort(); // super class
    int interfaces = b.getShort() & 0xFFFF;
    b.position(b.position() + 2 * interfaces);
    for (int part = 0; part < 2; part++) { // fields, then methods
      int members = b.getShort() & 0xFFFF;
      for (int m = 0; m < members; m++) {
        b.getShort(); // access flags
        b.getShort(); // name
        descriptors.add(b.getShort() & 0xFFFF);
        int attributes = b.getShort() & 0xFFFF;
        for (int a = 0; a < attributes; a++) {
          b.getShort(); // name
          int length = b.getInt();
          b.position(b.position() + length);
        }
      }
    }
    Set<String> out = new TreeSet<>();
    for (int k : classNames) {
      String n = utf8[k];
      if (n.startsWith("[")) {
        Matcher m = IN_DESCRIPTOR.matcher(n);
        while (m.find()) {
          out.add(m.group(1));
        }
      } else {
        out.add(n);
      }
    }
    for (int k : descriptors) {
      Matcher m = IN_DESCRIPTOR.matcher(utf8[k]);
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }
}
