/** Leap bench. */
package dev.leap.bench;
