/** Leap runtime. */
package dev.leap.runtime;
