package dev.leap.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/architecture.md} names only classes that exist: every backticked name that looks like
 * a Java type ({@code LlamaModel}, or the type of {@code LeapRuntime.generate}) has a source file
 * of that name in some module. A renamed or deleted class fails here until the map follows.
 */
class ArchitectureDocTest {
  static final Pattern FENCE = Pattern.compile("(?s)```.*?```");
  static final Pattern CODE = Pattern.compile("`([^`\\n]+)`");
  static final Pattern TYPE = Pattern.compile("[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*");

  @Test
  void everyClassItNamesExists() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    String doc = Files.readString(root.resolve("docs/architecture.md"), StandardCharsets.UTF_8);
    Set<String> sources;
    try (Stream<Path> s = Files.walk(root)) {
      sources =
          s.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/"))
              .map(p -> p.getFileName().toString().replace(".java", ""))
              .collect(Collectors.toSet());
    }
    Set<String> named = new TreeSet<>();
    Set<String> missing = new TreeSet<>();
    Matcher m = CODE.matcher(FENCE.matcher(doc).replaceAll(""));
    while (m.find()) {
      String type = m.group(1).split("\\.")[0];
      if (TYPE.matcher(type).matches()) {
        named.add(type);
        if (!sources.contains(type)) {
          missing.add(type);
        }
      }
    }
    assertTrue(named.size() > 40, "the map names too few classes: " + named);
    assertTrue(
        missing.isEmpty(), "docs/architecture.md names classes that do not exist: " + missing);
  }
}
