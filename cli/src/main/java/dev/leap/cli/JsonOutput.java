package dev.leap.cli;

/**
 * A command that can print its result as JSON: its errors are then one {@code {"error": "..."}}
 * object.
 */
interface JsonOutput {
  boolean json();
}
