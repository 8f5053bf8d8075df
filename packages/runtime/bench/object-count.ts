/**
 * A probe's object count from its command line: a positive integer, or an error that says the
 * usage. Without it a probe waiting for `NaN` objects would wait forever.
 */
export function objectCount(text: string | undefined, usage: string): number {
  const count = Number(text);
  if (!Number.isInteger(count) || count <= 0)
    throw new Error(`expected a positive object count, got ${JSON.stringify(text)}; usage: ${usage}`);
  return count;
}
