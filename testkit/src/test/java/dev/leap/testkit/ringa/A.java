package dev.leap.testkit.ringa;

import dev.leap.testkit.ringb.B;

/** One half of a import ring across packages that {@code ImportCyclesTest} must find. */
public final class A {
  private A() {}

  /** Names {@link B}: an edge {@code ringa -> ringb}. */
  public static int viaB() {
    return B.ONE + 1;
  }
}
