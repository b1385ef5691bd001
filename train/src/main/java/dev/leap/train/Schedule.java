package dev.leap.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The copy recipe's schedule of learning rate and character sheets per step: the main cycle
 * (warm-up, flat, linear decay to a tenth of its peak, ending at the last phase's end) and then
 * zero or more further cycles, each flat at its own peak and decaying to a tenth of it over its
 * last steps, with its own number of character sheets per step.
 *
 * <p>Invariant: a step's rate and sheet count are those a run resumed at the previous cycle's end
 * with that cycle's end as {@code --phases}' last value, its {@code --lr}, {@code --decay} and
 * {@code --characters} would use (the same {@link #learningRate} on the same step), so one run with
 * cycles replaces a chain of resumed runs.
 *
 * @param cycles the cycles in order, their ends increasing; the first is the main cycle
 * @param warmup warm-up steps, counted from {@code initStep}
 * @param initStep the first step of a warm start from another model (0 otherwise)
 */
record Schedule(List<Cycle> cycles, int warmup, int initStep) {

  /**
   * One cycle: steps up to {@code end} (exclusive), flat at {@code peak} and then decaying linearly
   * over the last {@code decay} steps to a tenth of it, with {@code characters} sheets per step (a
   * decay longer than the cycle starts it part-way down, as {@link #learningRate} does).
   */
  record Cycle(int end, float peak, int decay, int characters) {
    /** {@code END:LR:DECAY[:CHARACTERS]}, as {@code --cycles} writes it. */
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d:%s:%d:%d", end, peak, decay, characters);
    }
  }

  public Schedule {
    if (cycles.isEmpty()) {
      throw new IllegalArgumentException("a schedule needs at least its main cycle");
    }
    for (int i = 0; i < cycles.size(); i++) {
      Cycle c = cycles.get(i);
      int start = i == 0 ? initStep : cycles.get(i - 1).end();
      if (c.end() <= start || c.decay() < 0 || !(c.peak() > 0) || c.characters() < 0) {
        throw new IllegalArgumentException(
            "cycle "
                + (i + 1)
                + " ("
                + c
                + ") must end after step "
                + start
                + " and have a positive rate and no negative decay or sheet count");
      }
    }
    cycles = List.copyOf(cycles);
  }

  /** The run's length: the last cycle's end. */
  public int steps() {
    return cycles.get(cycles.size() - 1).end();
  }

  /** The learning rate of a 0-based step (before {@link #steps()}). */
  public float rate(int step) {
    Cycle c = cycle(step);
    return learningRate(
        step - initStep, c.end() - initStep, warmup, c.decay(), c.peak(), c.peak() / 10);
  }

  /** Character sheets in a 0-based step. */
  public int characters(int step) {
    return cycle(step).characters();
  }

  private Cycle cycle(int step) {
    for (Cycle c : cycles) {
      if (step < c.end()) {
        return c;
      }
    }
    throw new IllegalArgumentException("step " + step + " is past the schedule's " + steps());
  }

  /**
   * The learning rate of a 0-based step: linear warm-up, flat, linear decay over the last {@code
   * decaySteps}.
   */
  static float learningRate(int step, int steps, int warmup, int decay, float peak, float last) {
    if (step < warmup) {
      return peak * (step + 1) / warmup;
    }
    int decayStart = steps - decay;
    if (step < decayStart) {
      return peak;
    }
    return peak + (last - peak) * (step - decayStart + 1) / Math.max(1, decay);
  }

  /**
   * The cycles after the main one from {@code --cycles}: comma-separated {@code
   * END:LR:DECAY[:CHARACTERS]} ({@code characters} when the fourth is absent); empty for {@code
   * none} or an empty string.
   *
   * @throws IllegalArgumentException naming the entry that does not parse
   */
  public static List<Cycle> parse(String spec, int characters) {
    List<Cycle> out = new ArrayList<>();
    if (spec.isBlank() || spec.strip().equals("none")) {
      return out;
    }
    for (String part : spec.split(",")) {
      String[] f = part.strip().split(":");
      try {
        if (f.length < 3 || f.length > 4) {
          throw new NumberFormatException();
        }
        out.add(
            new Cycle(
                Integer.parseInt(f[0]),
                Float.parseFloat(f[1]),
                Integer.parseInt(f[2]),
                f.length == 4 ? Integer.parseInt(f[3]) : characters));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--cycles entry '" + part.strip() + "' is not END:LR:DECAY[:CHARACTERS]");
      }
    }
    return out;
  }
}
