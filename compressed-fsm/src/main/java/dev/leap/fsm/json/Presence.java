package dev.leap.fsm.json;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A Boolean formula over which object members are present: what {@code required}, {@code
 * dependentRequired} / {@code dependencies}, and {@code anyOf} / {@code oneOf} / {@code allOf} /
 * {@code not} of {@code required}-only schemas say about an object. Its variables: {@link Has} (a
 * member is present) and {@link Meets} (a member is present and written in a version whose value
 * meets a numbered value constraint, such as the {@code properties} of a dependent schema).
 * Immutable; {@link #assign} and {@link #assignMeets} return the simplified residual, so a formula
 * with every variable assigned is {@link #TRUE} or {@link #FALSE}. {@link #toString()} is canonical
 * for equal structure (used as a memo key).
 */
sealed interface Presence {
  Presence TRUE = new Const(true);
  Presence FALSE = new Const(false);

  /**
   * The formula with member {@code name} present or absent, simplified (an absent member meets
   * nothing).
   */
  Presence assign(String name, boolean present);

  /**
   * The formula with member {@code name}'s value constraint {@code constraint} met or not,
   * simplified.
   */
  Presence assignMeets(String name, int constraint, boolean meets);

  /** Its value when every member is present or, for {@code false}, absent. */
  boolean evalAll(boolean present);

  /** The members it mentions. */
  void names(Set<String> out);

  record Const(boolean value) implements Presence {
    public Presence assign(String name, boolean present) {
      return this;
    }

    public Presence assignMeets(String name, int constraint, boolean meets) {
      return this;
    }

    public boolean evalAll(boolean present) {
      return value;
    }

    public void names(Set<String> out) {}

    @Override
    public String toString() {
      return value ? "T" : "F";
    }
  }

  record Has(String name) implements Presence {
    public Presence assign(String n, boolean present) {
      return n.equals(name) ? (present ? TRUE : FALSE) : this;
    }

    public Presence assignMeets(String n, int constraint, boolean meets) {
      return this;
    }

    public boolean evalAll(boolean present) {
      return present;
    }

    public void names(Set<String> out) {
      out.add(name);
    }

    @Override
    public String toString() {
      return "h" + name.length() + ":" + name;
    }
  }

  /**
   * Member {@code name} is present and its value meets constraint {@code constraint}. Only used
   * positively (never under {@link Not}): a member written in a version that does not claim the
   * constraint may still meet it, and another version writes the same text.
   */
  record Meets(String name, int constraint) implements Presence {
    public Presence assign(String n, boolean present) {
      return n.equals(name) && !present ? FALSE : this;
    }

    public Presence assignMeets(String n, int c, boolean meets) {
      return n.equals(name) && c == constraint ? (meets ? TRUE : FALSE) : this;
    }

    public boolean evalAll(boolean present) {
      return present; // on a value that is not an object, properties constrain nothing
    }

    public void names(Set<String> out) {}

    @Override
    public String toString() {
      return "m" + constraint + ":" + name.length() + ":" + name;
    }
  }

  record Not(Presence item) implements Presence {
    public Presence assign(String name, boolean present) {
      return not(item.assign(name, present));
    }

    public Presence assignMeets(String name, int constraint, boolean meets) {
      return not(item.assignMeets(name, constraint, meets));
    }

    public boolean evalAll(boolean present) {
      return !item.evalAll(present);
    }

    public void names(Set<String> out) {
      item.names(out);
    }

    @Override
    public String toString() {
      return "!" + item;
    }
  }

  /**
   * {@code kind}: all ({@code and}), any ({@code or}) or exactly one ({@code one}) of the items.
   */
  record Nary(String kind, List<Presence> items) implements Presence {
    public Presence assign(String name, boolean present) {
      List<Presence> out = new ArrayList<>();
      for (Presence p : items) {
        out.add(p.assign(name, present));
      }
      return of(kind, out);
    }

    public Presence assignMeets(String name, int constraint, boolean meets) {
      List<Presence> out = new ArrayList<>();
      for (Presence p : items) {
        out.add(p.assignMeets(name, constraint, meets));
      }
      return of(kind, out);
    }

    public boolean evalAll(boolean present) {
      int n = 0;
      for (Presence p : items) {
        n += p.evalAll(present) ? 1 : 0;
      }
      return switch (kind) {
        case "and" -> n == items.size();
        case "or" -> n > 0;
        default -> n == 1;
      };
    }

    public void names(Set<String> out) {
      items.forEach(p -> p.names(out));
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(kind).append('(');
      items.forEach(p -> sb.append(p).append(','));
      return sb.append(')').toString();
    }
  }

  static Presence not(Presence p) {
    if (p instanceof Const c) {
      return c.value() ? FALSE : TRUE;
    }
    if (p instanceof Not n) {
      return n.item();
    }
    return new Not(p);
  }

  static Presence and(List<Presence> items) {
    return of("and", items);
  }

  static Presence or(List<Presence> items) {
    return of("or", items);
  }

  static Presence exactlyOne(List<Presence> items) {
    return of("one", items);
  }

  /** The simplified n-ary formula: constants folded, a single item unwrapped. */
  static Presence of(String kind, List<Presence> items) {
    List<Presence> rest = new ArrayList<>();
    int trues = 0;
    int falses = 0;
    for (Presence p : items) {
      if (p instanceof Const c) {
        if (c.value()) {
          trues++;
        } else {
          falses++;
        }
        continue;
      }
      rest.add(p);
    }
    switch (kind) {
      case "and":
        return falses > 0
            ? FALSE
            : rest.isEmpty() ? TRUE : rest.size() == 1 ? rest.get(0) : new Nary(kind, rest);
      case "or":
        return trues > 0
            ? TRUE
            : rest.isEmpty() ? FALSE : rest.size() == 1 ? rest.get(0) : new Nary(kind, rest);
      default:
        if (trues > 1) {
          return FALSE;
        }
        if (trues == 1) {
          List<Presence> none = new ArrayList<>();
          rest.forEach(p -> none.add(not(p)));
          return and(none);
        }
        return rest.isEmpty() ? FALSE : rest.size() == 1 ? rest.get(0) : new Nary(kind, rest);
    }
  }
}
