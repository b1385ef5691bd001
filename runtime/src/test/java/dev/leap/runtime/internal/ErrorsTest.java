package dev.leap.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.RegexSyntaxException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ErrorsTest {

  @Test
  void userErrorsAreTheirMessageOnOneLine() {
    assertEquals(
        "bad value two",
        Errors.oneLine(new IllegalArgumentException("bad value\ntwo"), "x failed"));
    assertEquals("closed", Errors.oneLine(new IllegalStateException("closed"), "x failed"));
    assertEquals(
        "cannot read f",
        Errors.oneLine(new UncheckedIOException("cannot read f", new IOException()), "x failed"));
    assertTrue(Errors.isUserError(new IllegalArgumentException("a")));
  }

  @Test
  void aRegexErrorIsItsBoundedExcerptAlsoInsideACompletionException() {
    String regex = "x".repeat(60_000) + "(?=y)";
    RegexSyntaxException e = null;
    try {
      CompressedFsm.compile(regex);
    } catch (RegexSyntaxException ex) {
      e = ex;
    }
    String line = Errors.oneLine(new CompletionException(e), "x failed");
    assertEquals(e.oneLine(), line);
    assertTrue(line.contains("index 60000") && line.length() < 400, line);
  }

  @Test
  void anythingElseIsNamedByTheCaller() {
    NullPointerException npe = new NullPointerException("boom");
    assertFalse(Errors.isUserError(new CompletionException(npe)));
    assertEquals(
        "compilation failed: java.lang.NullPointerException: boom",
        Errors.oneLine(new CompletionException(npe), "compilation failed"));
    assertEquals(
        "IllegalArgumentException", Errors.oneLine(new IllegalArgumentException(), "x failed"));
  }
}
