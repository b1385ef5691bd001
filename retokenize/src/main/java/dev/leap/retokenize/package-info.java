/** Leap retokenize. */
package dev.leap.retokenize;
