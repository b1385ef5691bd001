package dev.leap.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A module's public types, for the test each module keeps beside its expected list: a new public
 * type (or one that went) fails that test, so the public surface changes only on purpose.
 */
public final class PublicSurface {
  private PublicSurface() {}

  /**
   * The binary names of the public types compiled into the class directory (or jar root) that holds
   * {@code anyClassOfTheModule}: top-level and nested types whose class files are public, as are
   * their enclosing types' (a nested {@code protected} type counts: it is visible to subclasses);
   * anonymous, local and synthetic classes, {@code module-info} and {@code package-info} are not
   * counted, nor JMH's generated {@code jmh_generated} packages.
   *
   * <p>The class files are read, never loaded: loading a module's classes in a test JVM can change
   * what later tests in it observe (identity hash codes, class initialization order).
   */
  public static List<String> of(Class<?> anyClassOfTheModule) {
    Path root = root(anyClassOfTheModule);
    TreeSet<String> publicFiles = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String rel = root.relativize(f).toString().replace('\\', '/');
        if (!rel.endsWith(".class")
            || rel.endsWith("module-info.class")
            || rel.endsWith("package-info.class")
            || rel.contains("/jmh_generated/")) { // JMH's generated harness, not written by anyone
          continue;
        }
        int flags = accessFlags(Files.readAllBytes(f));
        if ((flags & ACC_PUBLIC) != 0 && (flags & ACC_SYNTHETIC) == 0) {
          publicFiles.add(rel.substring(0, rel.length() - ".class".length()).replace('/', '.'));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> names = new ArrayList<>();
    for (String name : publicFiles) {
      if (enclosingArePublic(name, publicFiles)) {
        names.add(name);
      }
    }
    return names;
  }

  /** The class directory (or jar root) that holds {@code c}. */
  static Path root(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final int ACC_PUBLIC = 0x0001;
  private static final int ACC_SYNTHETIC = 0x1000;

  /**
   * {@code Outer$Inner} counts when {@code Outer} does; {@code Outer$1} (anonymous or local) never.
   */
  private static boolean enclosingArePublic(String name, Set<String> publicFiles) {
    int dollar = name.lastIndexOf('$');
    if (dollar < 0) {
      return true;
    }
    if (dollar + 1 < name.length() && Character.isDigit(name.charAt(dollar + 1))) {
      return false;
    }
    String outer = name.substring(0, dollar);
    return publicFiles.contains(outer) && enclosingArePublic(outer, publicFiles);
  }

  /**
   * The {@code access_flags} of a class file: after the magic, the versions and the constant pool
   * (JVMS 4.1).
   */
  static int accessFlags(byte[] classFile) {
    ByteBuffer b = ByteBuffer.wrap(classFile);
    if (b.getInt() != 0xCAFEBABE) {
      throw new IllegalArgumentException("not a class file");
    }
    b.getInt(); // minor, major
    int count = b.getShort() & 0xFFFF;
    for (int i = 1; i < count; i++) {
      int tag = b.get();
      switch (tag) {
        case 1 -> { // Utf8: a length, then the bytes
          int length = b.getShort() & 0xFFFF;
          b.position(b.position() + length);
        }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> b.position(b.position() + 4);
        case 5, 6 -> { // Long and Double take two entries
          b.position(b.position() + 8);
          i++;
        }
        case 7, 8, 16, 19, 20 -> b.position(b.position() + 2);
        case 15 -> b.position(b.position() + 3);
        default -> throw new IllegalArgumentException("constant pool tag " + tag);
      }
    }
    return b.getShort() & 0xFFFF;
  }

  /**
   * The packages the module of {@code anyClassOfTheModule} exports, read from its compiled {@code
   * module-info.class} (tests run on the class path, where the class's own module is unnamed):
   * {@code "pkg"} for an export to every module, {@code "pkg to m1, m2"} for a qualified one,
   * sorted; empty when the module has no descriptor.
   */
  public static List<String> exports(Class<?> anyClassOfTheModule) {
    Path info = root(anyClassOfTheModule).resolve("module-info.class");
    if (!Files.exists(info)) {
      return List.of();
    }
    TreeSet<String> out = new TreeSet<>();
    try (InputStream in = Files.newInputStream(info)) {
      for (ModuleDescriptor.Exports e : ModuleDescriptor.read(in).exports()) {
        out.add(
            e.isQualified()
                ? e.source() + " to " + String.join(", ", new TreeSet<>(e.targets()))
                : e.source());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrayList<>(out);
  }

  /**
   * Fails, naming what appeared and what went, unless the module's public types are {@code
   * expected}.
   */
  public static void check(Class<?> anyClassOfTheModule, List<String> expected) {
    List<String> actual = of(anyClassOfTheModule);
    TreeSet<String> added = new TreeSet<>(actual);
    added.removeAll(expected);
    TreeSet<String> gone = new TreeSet<>(expected);
    gone.removeAll(actual);
    if (!added.isEmpty() || !gone.isEmpty()) {
      StringBuilder list = new StringBuilder();
      for (String n : actual) {
        list.append("\n        \"").append(n).append("\",");
      }
      fail(
          "public types changed: new "
              + added
              + ", gone "
              + gone
              + ". If that is meant, update the expected list (and the module's README):"
              + list);
    }
  }
}
