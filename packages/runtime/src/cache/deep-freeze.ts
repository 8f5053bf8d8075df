/**
 * Freezes a parsed JSON value and everything inside it, in place, and returns it typed as before.
 * Freezing (rather than copying on every read) is what lets the cache hand the same object to every
 * reader at no cost: a reader that tries to mutate it gets a TypeError in strict mode.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  // Visit children before freezing the parent; a frozen child is still walked because a shallow
  // freeze elsewhere must not leave mutable grandchildren behind.
  for (const child of Object.values(value as object)) {
    if (typeof child === 'object' && child !== null) deepFreeze(child);
  }
  return Object.freeze(value);
}
