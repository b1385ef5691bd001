package dev.leap.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Each wither of {@link LeapServer.Options} changes its own fields and keeps every other one. */
class ServerOptionsTest {
  private static final LeapServer.Options D =
      new LeapServer.Options("h", 1, "k", "m", 2, 3, 4, 5, List.of("a"), 6, 7, 8, 9);

  @Test
  void eachWitherChangesItsFieldsAlone() {
    assertEquals(
        new LeapServer.Options("h", 80, "k", "m", 2, 3, 4, 5, List.of("a"), 6, 7, 8, 9),
        D.withPort(80));
    assertEquals(
        new LeapServer.Options("h", 1, "key", "m", 2, 3, 4, 5, List.of("a"), 6, 7, 8, 9),
        D.withApiKey("key"));
    assertEquals(
        new LeapServer.Options("h", 1, "k", "m", 2, 3, 4, 5, List.of("b", "c"), 6, 7, 8, 9),
        D.withAllowedHosts(List.of("b", "c")));
    assertEquals(
        new LeapServer.Options("h", 1, "k", "m", 2, 30, 4, 5, List.of("a"), 60, 70, 8, 9),
        D.withLimits(60, 30, 70));
    assertEquals(
        new LeapServer.Options("h", 1, "k", "m", 2, 3, 4, 5, List.of("a"), 6, 7, 80, 90),
        D.withBudget(80, 90));
  }
}
