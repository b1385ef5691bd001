/** Leap examples. */
package dev.leap.examples;
