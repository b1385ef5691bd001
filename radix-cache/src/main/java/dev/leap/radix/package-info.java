/** Leap radix-cache. */
package dev.leap.radix;
