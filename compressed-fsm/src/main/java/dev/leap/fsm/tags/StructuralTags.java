package dev.leap.fsm.tags;

import dev.leap.fsm.AutomatonTooLargeException;
import dev.leap.fsm.CompressedFsm;
import dev.leap.fsm.ConstraintException;
import dev.leap.fsm.Dfa;
import dev.leap.fsm.internal.Automata;
import dev.leap.fsm.internal.Re;
import dev.leap.fsm.internal.Trees;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Free text with tags in it, the way XGrammar's structural tags ({@code triggered_tags}) and vLLM's
 * {@code structural_tag} response format describe tool calls: the model writes what it likes, but
 * wherever it writes a <em>trigger</em> it has started a tag, and the tag's begin, its content (a
 * regular language: a regex, a JSON Schema, a grammar without recursion) and its end must follow.
 *
 * <p>The language, exactly. Let {@code T} be the triggers, {@code N} the UTF-8 texts in which no
 * trigger occurs, and for a trigger {@code t}, {@code D(t)} the texts that end with {@code t} and
 * in which no trigger ends earlier (so {@code D(t) = (N·t) \ (Σ* T Σ+)}). A tag {@code (b, C, e)}
 * whose begin {@code b} starts with the triggers {@code t1..tk} is entered by {@code Pre(b) = ∪
 * D(ti) · b[|ti|..]}. The constraint is
 *
 * <pre>  ( ∪_tags Pre(b) · C · e )*  ·  N</pre>
 *
 * <p>In words: outside tags, text never contains a trigger except as the start of a tag's begin;
 * the first trigger completed in free text (by where it ends) commits to a tag whose begin starts
 * with it; after a tag's end, free text starts afresh (a trigger overlapping the end does not
 * count). Tags do not nest, any number of them may follow each other, and the text may end anywhere
 * in free text (including after a trigger's first bytes), never inside a tag. Inside a tag's
 * content a trigger is just text.
 *
 * <p>The result is one minimal, trimmed DFA (the tree of the formula above, with the contents and
 * the free-text languages embedded as {@link Re.Automaton}s, through the regex pipeline), so jump
 * edges and token masks work as for any regex: once a trigger is complete, the rest of the begin
 * and the content's forced text are one jump. Compiling costs products of small automata ({@link
 * FreeText}) and one subset construction, each bounded by {@code maxDfaStates}.
 */
public final class StructuralTags {
  private StructuralTags() {}

  /**
   * One kind of tag.
   *
   * @param begin the text that opens the tag; it must start with one of the triggers
   * @param content what goes between begin and end (a compiled regex, JSON Schema or grammar
   *     without recursion)
   * @param end the text that closes the tag (may be empty)
   */
  public record Tag(String begin, CompressedFsm content, String end) {
    public Tag {
      Objects.requireNonNull(content, "content");
    }
  }

  /**
   * {@link #compile(List, List, int)} with the default state limit ({@value
   * CompressedFsm#DEFAULT_MAX_DFA_STATES}).
   */
  public static CompressedFsm compile(List<String> triggers, List<Tag> tags) {
    return compile(triggers, tags, CompressedFsm.DEFAULT_MAX_DFA_STATES);
  }

  /**
   * Compiles free text with {@code tags}, entered at {@code triggers} (see the class comment).
   *
   * @throws ConstraintException no trigger or no tag, an empty, null or repeated trigger, a begin
   *     that starts with no trigger, or a tag that can never start (another trigger ends inside its
   *     begin before its own trigger is complete); each names the trigger or the tag (index and
   *     begin)
   * @throws AutomatonTooLargeException an automaton needs more than {@code maxDfaStates} states
   */
  public static CompressedFsm compile(List<String> triggers, List<Tag> tags, int maxDfaStates) {
    Objects.requireNonNull(triggers, "triggers");
    Objects.requireNonNull(tags, "tags");
    if (triggers.isEmpty()) {
      throw new ConstraintException("structural tags need at least one trigger");
    }
    if (tags.isEmpty()) {
      throw new ConstraintException("structural tags need at least one tag");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < triggers.size(); i++) {
      String t = Texts.check(triggers.get(i), "trigger " + i, false);
      if (!seen.add(t)) {
        throw new ConstraintException(
            "trigger " + i + " " + Texts.quote(t) + " repeats an earlier trigger");
      }
    }
    String source = describe(triggers, tags);
    List<List<String>> startsWith = new ArrayList<>();
    for (int i = 0; i < tags.size(); i++) {
      Tag tag = tags.get(i);
      if (tag == null) {
        throw new ConstraintException("tag " + i + " is null");
      }
      Texts.check(tag.begin(), "the begin of tag " + i, false);
      Texts.check(tag.end(), "the end of tag " + i, true);
      List<String> ts = new ArrayList<>();
      for (String t : triggers) {
        if (tag.begin().startsWith(t)) {
          ts.add(t);
        }
      }
      if (ts.isEmpty()) {
        throw new ConstraintException(
            "tag "
                + i
                + " (begin "
                + Texts.quote(tag.begin())
                + ") does not start with any trigger "
                + quoteAll(triggers)
                + ": a tag's begin must start with one");
      }
      startsWith.add(ts);
    }
    FreeText free = new FreeText(triggers, maxDfaStates, source);
    Map<String, Dfa> upTo = new HashMap<>();
    List<Re> tagOptions = new ArrayList<>();
    for (int i = 0; i < tags.size(); i++) {
      Tag tag = tags.get(i);
      List<Re> entries = new ArrayList<>();
      for (String t : startsWith.get(i)) {
        Dfa d = upTo.computeIfAbsent(t, free::upTo);
        if (d != null) {
          entries.add(Trees.seq(new Re.Automaton(d), Trees.lit(tag.begin().substring(t.length()))));
        }
      }
      if (entries.isEmpty()) {
        throw new ConstraintException(
            "tag "
                + i
                + " (begin "
                + Texts.quote(tag.begin())
                + ") can never start: "
                + "another trigger of "
                + quoteAll(triggers)
                + " ends inside its trigger "
                + quoteAll(startsWith.get(i))
                + " before it is complete, and that one starts the tag instead");
      }
      tagOptions.add(
          Trees.seq(
              Trees.alt(entries), new Re.Automaton(tag.content().dfa()), Trees.lit(tag.end())));
    }
    Re tree =
        Trees.seq(
            Trees.rep(Trees.alt(tagOptions), 0, -1), new Re.Automaton(free.withoutTriggers()));
    return CompressedFsm.of(Automata.compileNonEmpty(tree, source, maxDfaStates), source);
  }

  private static String describe(List<String> triggers, List<Tag> tags) {
    StringBuilder sb =
        new StringBuilder("structural tags: triggers ")
            .append(quoteAll(triggers))
            .append(", tags [");
    for (int i = 0; i < tags.size(); i++) {
      Tag tag = tags.get(i);
      if (tag == null) {
        continue;
      }
      sb.append(i == 0 ? "" : ", ")
          .append(tag.begin() == null ? "null" : Texts.quote(tag.begin()))
          .append(" (")
          .append(tag.content().source())
          .append(") ")
          .append(tag.end() == null ? "null" : Texts.quote(tag.end()));
    }
    return sb.append(']').toString();
  }

  private static String quoteAll(List<String> texts) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < texts.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(Texts.quote(texts.get(i)));
    }
    return sb.append(']').toString();
  }
}
