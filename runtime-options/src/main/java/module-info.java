/**
 * The options of the commands that load a model through {@code LeapRuntime} ({@code leap generate},
 * {@code leap serve}, {@code leap bench}): one picocli mixin, so that their names, defaults and
 * help text are written once.
 *
 * <p>Exported: {@code dev.leap.options} ({@code RuntimeOptionsMixin}), opened to picocli, which
 * reads and sets the options' fields reflectively.
 */
module dev.leap.options {
  requires transitive dev.leap.runtime; // configure takes and returns a LeapRuntime.Builder
  requires info.picocli;

  exports dev.leap.options;

  opens dev.leap.options to
      info.picocli;
}
