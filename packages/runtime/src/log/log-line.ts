/**
 * How one log entry becomes one JSON line. Logging must never throw at its caller: a field that
 * `JSON.stringify` refuses (a cycle, a BigInt, a throwing getter or `toJSON`) is written as the
 * safe copy {@link jsonSafe} makes of it.
 */

/** An error as a log field: what `err` carries (pino's shape, so log pipelines read it alike). */
export interface LoggedError {
  type: string;
  message: string;
  stack?: string;
  cause?: unknown;
  [property: string]: unknown;
}

/** An error's type, message, stack, own enumerable properties (an API error's code) and cause. */
export function serializeError(error: Error, seen: Set<unknown> = new Set()): LoggedError {
  seen.add(error);
  const logged: LoggedError = { type: error.constructor?.name ?? error.name, message: error.message };
  if (error.stack !== undefined) logged.stack = error.stack;
  for (const key of Object.keys(error)) {
    if (key === 'cause' || key in logged) continue;
    logged[key] = (error as unknown as Record<string, unknown>)[key];
  }
  const cause = error.cause;
  if (cause instanceof Error && !seen.has(cause)) logged.cause = serializeError(cause, seen);
  else if (cause !== undefined && !(cause instanceof Error)) logged.cause = cause;
  return logged;
}

/** `JSON.stringify`, falling back to the safe copy of the value when it throws. */
export function stringifyField(value: unknown): string {
  const field = value instanceof Error ? serializeError(value) : value;
  try {
    return JSON.stringify(field) ?? 'null';
  } catch {
    return JSON.stringify(jsonSafe(field, [])) ?? 'null';
  }
}

/**
 * A copy of `value` that `JSON.stringify` accepts: a cycle becomes `"[Circular]"` (an object met
 * again on the way down, not one merely seen twice), a BigInt its decimal text, a getter or
 * `toJSON` that throws `"[Unserializable: message]"`.
 */
export function jsonSafe(value: unknown, ancestors: unknown[]): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (ancestors.includes(value)) return '[Circular]';
  try {
    const own = value as { toJSON?: () => unknown };
    if (typeof own.toJSON === 'function') return jsonSafe(own.toJSON(), [...ancestors, value]);
    const path = [...ancestors, value];
    if (value instanceof Error) return jsonSafe(serializeError(value), path);
    if (Array.isArray(value)) return value.map((item) => jsonSafe(item, path));
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = jsonSafe((value as Record<string, unknown>)[key], path);
    return copy;
  } catch (error) {
    return unserializable(error);
  }
}

function unserializable(error: unknown): string {
  return `[Unserializable: ${error instanceof Error ? error.message : String(error)}]`;
}

/** The `,"key":value` pairs of the defined fields, in their order. */
export function encodeFields(fields: object): string {
  let encoded = '';
  for (const key of Object.keys(fields)) {
    let value: unknown;
    try {
      value = (fields as Record<string, unknown>)[key];
    } catch (error) {
      value = unserializable(error);
    }
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    encoded += `,${JSON.stringify(key)}:${stringifyField(value)}`;
  }
  return encoded;
}
